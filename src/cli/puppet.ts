/**
 * `tend puppet <subcommand>`: the Puppet front end. `apply` applies a
 * catalog compiled by Puppet (`--catalog FILE.json`) with tend's engine,
 * accepting `puppet apply`'s options; compiling manifests is not in tend
 * yet (issue 16), so a manifest or `-e` is refused with what to do instead.
 */
import { resolve } from "node:path";
import { type PuppetLevel, formatConsoleLine, shownAt, toStderr } from "../puppet/console.js";
import { parseCommandLine } from "./args.js";
import { shouldColor } from "./color.js";
import { ConsoleLines } from "./console-lines.js";
import { type CliIo, EXIT_FAILURE, EXIT_OK, UsageError } from "./io.js";

export const puppetUsage = `Usage: tend puppet <subcommand> [options]

The Puppet front end: Puppet 7 catalogs applied by tend's engine.

Subcommands:
  apply   apply a compiled catalog, as puppet apply does (accepts its options)
  parser  dump or validate Puppet code (tend puppet parser --help)

Compiling manifests (puppet apply site.pp, puppet catalog compile) is not in
tend yet (issue 16): compile the catalog with Puppet and apply it with
tend puppet apply --catalog FILE.json.
`;

export const applyUsage = `Usage: tend puppet apply --catalog FILE.json [OPTIONS]

Applies a Puppet 7 catalog (as compiled by \`puppet catalog compile NODE
--render-as json\`) with tend's engine, as puppet apply does.

Options:
      --catalog FILE        the catalog to apply (JSON; - reads stdin)
      --noop                change nothing; report what would change
      --detailed-exitcodes  exit 0 (no changes), 2 (changes), 4 (failures) or 6
                            (changes and failures)
      --confdir DIR         Puppet's configuration directory (its puppet.conf is read)
      --vardir DIR          Puppet's state directory (the report goes to
                            <vardir>/state/last_run_report.yaml)
      --certname NAME       the node's name in the report
      --environment ENV     the environment's name (production)
      --modulepath DIRS     where puppet:///modules/ sources are found (: separated)
      --log_level LEVEL     debug, info, notice, warning or err
  -v, --verbose             log at info level
  -d, --debug               log at debug level
      --color WHEN          always, auto or never (Puppet's true/ansi/false too)
      --tags TAG,...        apply only the resources with one of these tags
      --promise-module NAME=PATH  a promise module run as resource type NAME
      --promise-modules DIR       a directory of promise modules, each run as the
                            resource type of its name (\`::\` written \`__\`)
      --json                print tend's run report as JSON on stdout (log lines
                            go to stderr)
  -h, --help                show this help
`;

const MANIFEST_REFUSED =
  "compiling Puppet manifests is not in tend yet (issue 16); compile the catalog with " +
  "'puppet catalog compile NODE --render-as json' and apply it with 'tend puppet apply --catalog FILE.json'";

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === "-h" || sub === "--help" || sub === "help") {
    (sub === undefined ? io.stderr : io.stdout)(puppetUsage);
    return sub === undefined ? EXIT_FAILURE : EXIT_OK;
  }
  if (sub === "apply") return runApply(rest, io);
  if (sub === "parser") return (await import("./puppet-parser.js")).runParser(rest, io);
  if (sub === "catalog" || sub === "lookup") {
    io.stderr(`tend puppet ${sub}: not in tend yet (issue 16: the Puppet language compiler)\n`);
    return EXIT_FAILURE;
  }
  io.stderr(`tend puppet: unknown subcommand '${sub}'\n\n${puppetUsage}`);
  return EXIT_FAILURE;
}

function parseApplyArgs(args: readonly string[]) {
  return parseCommandLine(args, {
    catalog: { type: "string" },
    execute: { type: "string", short: "e" },
    noop: { type: "boolean" },
    "detailed-exitcodes": { type: "boolean" },
    confdir: { type: "string" },
    vardir: { type: "string" },
    certname: { type: "string" },
    environment: { type: "string" },
    modulepath: { type: "string" },
    log_level: { type: "string" },
    "log-level": { type: "string" },
    facts_terminus: { type: "string" },
    "facts-terminus": { type: "string" },
    verbose: { type: "boolean", short: "v" },
    debug: { type: "boolean", short: "d" },
    color: { type: "string" },
    json: { type: "boolean" },
    tags: { type: "string", multiple: true },
    "promise-module": { type: "string", multiple: true },
    "promise-modules": { type: "string", multiple: true },
    help: { type: "boolean", short: "h" },
  });
}

type ApplyArgs = ReturnType<typeof parseApplyArgs>;

const LEVELS: readonly PuppetLevel[] = ["debug", "info", "notice", "warning", "err"];

/** The console threshold: -d, then -v, then --log_level, else notice. */
function threshold(values: ApplyArgs["values"]): PuppetLevel {
  if (values.debug) return "debug";
  if (values.verbose) return "info";
  const given = values.log_level ?? values["log-level"];
  if (given === undefined) return "notice";
  const level = LEVELS.find((l) => l === given) ?? (given === "error" ? "err" : undefined);
  if (!level) throw new UsageError(`unknown log level '${given}' (debug, info, notice, warning or err)`);
  return level;
}

function colorWhen(value: string | undefined): "always" | "auto" | "never" {
  if (value === undefined || value === "auto") return "auto";
  if (["always", "true", "ansi", "html"].includes(value)) return "always";
  if (["never", "false"].includes(value)) return "never";
  throw new UsageError(`unknown colour mode '${value}' (always, auto or never)`);
}

async function runApply(args: readonly string[], io: CliIo): Promise<number> {
  let parsed: ApplyArgs;
  let level: PuppetLevel;
  let color: "always" | "auto" | "never";
  try {
    parsed = parseApplyArgs(args);
    level = threshold(parsed.values);
    color = colorWhen(parsed.values.color);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`tend puppet apply: ${error.message}\nTry 'tend puppet apply --help'.\n`);
    return EXIT_FAILURE;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(applyUsage);
    return EXIT_OK;
  }
  if (values.execute !== undefined || positionals.length > 0 || values.catalog === undefined) {
    const what =
      positionals.length > 0 ? `'${positionals[0]}': ` : values.execute !== undefined ? "-e: " : "";
    io.stderr(`Error: ${what}${MANIFEST_REFUSED}\n`);
    return EXIT_FAILURE;
  }
  const json = values.json === true;
  const out = (stderr: boolean) => (stderr || json ? io.stderr : io.stdout);
  // Asked once per stream, not at every line.
  const coloring: (boolean | undefined)[] = [undefined, undefined];
  const colored = (stderr: boolean): boolean =>
    (coloring[stderr ? 1 : 0] ??= shouldColor(
      color,
      { isTTY: stderr || json ? io.stderrIsTTY : io.stdoutIsTTY },
      io.env,
    ));
  const { runPuppetApply } = await import("../puppet/apply.js");
  const { resolveSettings, SettingsError } = await import("../puppet/settings.js");
  let settings: ReturnType<typeof resolveSettings>;
  try {
    settings = resolveSettings(
      {
        confdir: values.confdir,
        vardir: values.vardir,
        certname: values.certname,
        environment: values.environment,
        modulepath: values.modulepath,
      },
      io.cwd,
    );
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    io.stderr(`Error: ${error.message}\n`);
    return EXIT_FAILURE;
  }
  const { parsePromiseModuleOption } = await import("../puppet/types/promise-module.js");
  const named = new Map<string, { path: string }>();
  for (const text of values["promise-module"] ?? []) {
    const parsedModule = parsePromiseModuleOption(text);
    if (typeof parsedModule === "string") {
      io.stderr(`tend puppet apply: ${parsedModule}\n`);
      return EXIT_FAILURE;
    }
    named.set(parsedModule[0], parsedModule[1]);
  }
  const lines = new ConsoleLines(out, (stderr) => (stderr || json ? io.stderrIsTTY : io.stdoutIsTTY));
  const result = await runPuppetApply({
    promiseModules: { named, dirs: (values["promise-modules"] ?? []).map((d) => resolve(io.cwd, d)) },
    catalogFile: values.catalog,
    cwd: io.cwd,
    readStdin: values.catalog === "-",
    settings,
    noop: values.noop === true || settings.noop,
    tags: (values.tags ?? [])
      .flatMap((t) => t.split(","))
      .map((t) => t.trim().toLowerCase())
      .filter((t) => t !== ""),
    logLevel: level,
    log: (line) => {
      if (!shownAt(line.level, level)) return;
      const stderr = toStderr(line.level);
      lines.write(stderr, formatConsoleLine(line, colored(stderr)));
    },
  }).finally(() => lines.flush());
  if (json && result.runReport !== undefined) io.stdout(`${JSON.stringify(result.runReport, null, 2)}\n`);
  if (result.exitCode === EXIT_FAILURE || values["detailed-exitcodes"]) return result.exitCode;
  return EXIT_OK;
}
