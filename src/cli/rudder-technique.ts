/**
 * `tend rudder technique check|compile FILE.yml`: reads a technique in
 * rudderc's YAML, checks it against the ncf method library, and (compile)
 * writes technique.cf, metadata.xml and its resources into the output
 * folder (`target/` beside the file by default, as rudderc does).
 * Diagnostics go to stderr as `file:line:col: error: message`; with --json
 * the result is one JSON object on stdout.
 */
import { cpSync, existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseCommandLine } from "./args.js";
import type { CompiledTechnique } from "../rudder/technique/index.js";
import { standalonePrelude } from "../rudder/technique/standalone.js";
import { type CliIo, EXIT_FAILURE, EXIT_OK, UsageError } from "./io.js";

const usage = `Usage: tend rudder technique check FILE.yml [--ncf DIR] [--json]
       tend rudder technique compile FILE.yml [-o DIR] [--ncf DIR] [--json]
                                     [--standalone [--param NAME=VALUE]... [--audit]]

Reads a technique written in rudderc's YAML and checks it against the ncf
method library; compile also writes technique.cf and metadata.xml (and copies
the technique's resources/) into DIR, by default target/ beside FILE.

The method library is read from the generic methods' annotations in the ncf
tree given by --ncf, else $TEND_NCF, else /usr/share/ncf/tree.

Options:
  -o, --output DIR  where compile writes (default: target/ beside FILE)
      --ncf DIR     the ncf tree (or its 30_generic_methods folder)
      --json        print the result as JSON on stdout
      --standalone  make technique.cf a whole policy: it loads ncf from the
                    --ncf tree and runs the technique (tend agent -f FILE)
      --param NAME=VALUE  a parameter's value for --standalone (else its default)
      --audit       run the standalone technique in audit mode
      --rudder-var DIR    ncf's g.rudder_var for --standalone (default /var/rudder)
  -h, --help        show this help
`;

const DEFAULT_NCF = "/usr/share/ncf/tree";

interface Options {
  readonly action: "check" | "compile";
  readonly file: string;
  readonly output?: string;
  readonly ncf?: string;
  readonly json: boolean;
  readonly standalone?: {
    readonly params: ReadonlyMap<string, string>;
    readonly audit: boolean;
    readonly rudderVar?: string;
  };
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  let options: Options | undefined;
  try {
    options = parseOptions(args, io);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`tend rudder technique: ${error.message}\n${usage}`);
    return EXIT_FAILURE;
  }
  if (!options) return EXIT_OK;
  return runTechnique(options, io);
}

function parseOptions(args: readonly string[], io: CliIo): Options | undefined {
  const { values, positionals } = parseCommandLine(args, {
    output: { type: "string", short: "o" },
    ncf: { type: "string" },
    json: { type: "boolean" },
    standalone: { type: "boolean" },
    param: { type: "string", multiple: true },
    audit: { type: "boolean" },
    "rudder-var": { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    io.stdout(usage);
    return undefined;
  }
  const [action, file, ...extra] = positionals;
  if (action !== "check" && action !== "compile") throw new UsageError("expected 'check' or 'compile'");
  if (file === undefined || extra.length > 0) throw new UsageError("expected one technique file");
  return {
    action,
    file: resolve(io.cwd, file),
    ...(values.output !== undefined ? { output: resolve(io.cwd, values.output) } : {}),
    ...(values.ncf !== undefined ? { ncf: resolve(io.cwd, values.ncf) } : {}),
    json: values.json === true,
    ...(values.standalone
      ? { standalone: standaloneOptions(values.param, values.audit === true, values["rudder-var"]) }
      : {}),
  };
}

function standaloneOptions(
  params: readonly string[] | undefined,
  audit: boolean,
  rudderVar: string | undefined,
): Options["standalone"] {
  const values = new Map<string, string>();
  for (const p of params ?? []) {
    const eq = p.indexOf("=");
    if (eq <= 0) throw new UsageError(`--param expects NAME=VALUE, not '${p}'`);
    values.set(p.slice(0, eq), p.slice(eq + 1));
  }
  return { params: values, audit, ...(rudderVar !== undefined ? { rudderVar } : {}) };
}

async function runTechnique(options: Options, io: CliIo): Promise<number> {
  const technique = await import("../rudder/technique/index.js");
  const fail = (message: string): number => {
    if (options.json) io.stdout(`${JSON.stringify({ ok: false, error: message })}\n`);
    io.stderr(`tend rudder technique: ${message}\n`);
    return EXIT_FAILURE;
  };
  const ncf = options.ncf ?? io.env.TEND_NCF ?? (existsSync(DEFAULT_NCF) ? DEFAULT_NCF : undefined);
  if (ncf === undefined) return fail("no method library: give the ncf tree with --ncf DIR or TEND_NCF");
  const library = technique.loadMethodLibrary([ncf]);
  if (library.error) return fail(library.error);
  for (const s of library.skipped) io.stderr(`${s.file}: warning: not a method, skipped: ${s.reason}\n`);
  let text: string;
  try {
    text = readFileSync(options.file, "utf8");
  } catch (error) {
    return fail(`cannot read ${options.file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const resourcesDir = join(dirname(options.file), "resources");
  const resources = technique.listResources(resourcesDir);
  const result = technique.compileTechnique(text, options.file, { methods: library.methods, resources });
  for (const d of result.diagnostics) io.stderr(`${technique.formatTechniqueDiagnostic(d)}\n`);
  if (!result.ok) {
    if (options.json) io.stdout(`${JSON.stringify({ ok: false, diagnostics: result.diagnostics })}\n`);
    return EXIT_FAILURE;
  }
  const { checkGeneratedPolicy } = await import("../rudder/technique/verify.js");
  const policyErrors = checkGeneratedPolicy(result.technique.files.get("technique.cf") ?? "", "technique.cf");
  if (policyErrors.length > 0)
    return fail(`generated policy does not validate: ${policyErrors.map((d) => d.message).join("; ")}`);
  const files = options.standalone
    ? withPrelude(result.technique, ncf, options.standalone, io)
    : result.technique.files;
  if (typeof files === "string") return fail(files);
  const written =
    options.action === "compile" ? await writeOutput(files, resourcesDir, resources, options) : [];
  if (options.json) {
    const { id, version, name, metadata } = result.technique;
    io.stdout(
      `${JSON.stringify({ ok: true, id, version, name, written, metadata, diagnostics: result.diagnostics }, null, 2)}\n`,
    );
  } else if (options.action === "compile") {
    io.stdout(`${written.map((w) => `wrote ${w}`).join("\n")}\n`);
  } else io.stdout(`${options.file}: ok\n`);
  return EXIT_OK;
}

/** technique.cf made standalone, or why it cannot be. */
function withPrelude(
  compiled: CompiledTechnique,
  ncf: string,
  standalone: NonNullable<Options["standalone"]>,
  io: CliIo,
): ReadonlyMap<string, string> | string {
  if (ncf.endsWith(".json")) return "--standalone needs an ncf tree (--ncf DIR), not a JSON method library";
  const tree = /\/30_generic_methods\/?$/.test(ncf) ? dirname(ncf) : ncf;
  for (const name of standalone.params.keys()) {
    if (!compiled.technique.params.some((p) => p.name === name))
      return `--param ${name}: the technique has no parameter '${name}'`;
  }
  const prelude = standalonePrelude(compiled.technique, {
    ncfTree: tree,
    params: standalone.params,
    policyMode: standalone.audit ? "audit" : "enforce",
    ...(standalone.rudderVar !== undefined ? { rudderVar: resolve(io.cwd, standalone.rudderVar) } : {}),
  });
  return new Map([...compiled.files, ["technique.cf", prelude + (compiled.files.get("technique.cf") ?? "")]]);
}

async function writeOutput(
  files: ReadonlyMap<string, string>,
  resourcesDir: string,
  resources: readonly string[],
  options: Options,
): Promise<string[]> {
  const [{ writeFileAtomically }, { makeDirectoriesSync }] = await Promise.all([
    import("../system/atomic.js"),
    import("../system/make-directories.js"),
  ]);
  const out = options.output ?? join(dirname(options.file), "target");
  makeDirectoriesSync(out);
  const written: string[] = [];
  for (const [name, content] of files) {
    const path = join(out, name);
    writeFileAtomically(path, content, 0o644);
    written.push(path);
  }
  if (resources.length > 0) {
    cpSync(resourcesDir, join(out, "resources"), { recursive: true });
    written.push(...resources.map((r) => join(out, "resources", r)));
  }
  return written;
}
