/**
 * `tend puppet <subcommand>`: the Puppet front end. `apply` applies a
 * catalog (`--catalog FILE.json`) or compiles the environment's manifests,
 * a manifest file or `-e` code first, with tend's engine, accepting
 * `puppet apply`'s options; `catalog compile NODE` compiles a node's
 * catalog as `puppet catalog compile` does.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { type PuppetLevel, formatConsoleLine, shownAt, toStderr } from "../puppet/console.js";
import { Logger } from "../system/logger.js";
import { finishFrontEndReporting, startReporting } from "./agent-report.js";
import { parseCommandLine } from "./args.js";
import { shouldColor } from "./color.js";
import { ConsoleLines } from "./console-lines.js";
import { type CliIo, EXIT_FAILURE, EXIT_OK, UsageError } from "./io.js";

export const puppetUsage = `Usage: tend puppet <subcommand> [options]

The Puppet front end: Puppet 7 catalogs applied by tend's engine.

Subcommands:
  apply    compile and apply manifests or apply a compiled catalog, as puppet
           apply does (accepts its options)
  catalog  compile a node's catalog, as puppet catalog compile does
           (tend puppet catalog --help)
  parser   dump or validate Puppet code (tend puppet parser --help)
`;

export const applyUsage = `Usage: tend puppet apply [MANIFEST.pp | -e CODE | --catalog FILE.json] [OPTIONS]

Compiles the node's catalog (from the manifest file, the code, or the
environment's manifests with -e '') and applies it with tend's engine, as
puppet apply does; or applies a Puppet 7 catalog (as compiled by
\`puppet catalog compile NODE --render-as json\`).

Options:
      --catalog FILE        the catalog to apply (JSON; - reads stdin)
  -e, --execute CODE        compile and apply this code ('' for the manifests)
      --noop                change nothing; report what would change
      --detailed-exitcodes  exit 0 (no changes), 2 (changes), 4 (failures) or 6
                            (changes and failures)
      --confdir DIR         Puppet's configuration directory (its puppet.conf is read)
      --vardir DIR          Puppet's state directory (the report goes to
                            <vardir>/state/last_run_report.yaml)
      --certname NAME       the node's name in the report
      --environment ENV     the environment's name (production)
      --modulepath DIRS     the module path (: separated; overrides environment.conf)
      --environmentpath, --codedir, --basemodulepath, --hiera_config,
      --node_terminus exec --external_nodes CMD, --strict, --strict_variables
                            Puppet's settings for the compile
      --facts_terminus json read the node's facts from
                            <vardir>/client_data/facts/NODE.json
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
  -w, --workdir DIR         the work directory of reporting: its key pair (ppkeys/),
                            reporting.json and the report spool (default: tend
                            agent's, /var/lib/tend for root)
      --hub HOST[:PORT]     send the run's report to this hub (default: what
                            <workdir>/reporting.json says; none without it)
  -h, --help                show this help
`;

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === "-h" || sub === "--help" || sub === "help") {
    (sub === undefined ? io.stderr : io.stdout)(puppetUsage);
    return sub === undefined ? EXIT_FAILURE : EXIT_OK;
  }
  if (sub === "apply") return runApply(rest, io);
  if (sub === "parser") return (await import("./puppet-parser.js")).runParser(rest, io);
  if (sub === "catalog") return (await import("./puppet-catalog.js")).runCatalog(rest, io);
  if (sub === "lookup") {
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
    environmentpath: { type: "string" },
    codedir: { type: "string" },
    basemodulepath: { type: "string" },
    hiera_config: { type: "string" },
    node_terminus: { type: "string" },
    external_nodes: { type: "string" },
    strict: { type: "string" },
    strict_variables: { type: "boolean" },
    verbose: { type: "boolean", short: "v" },
    debug: { type: "boolean", short: "d" },
    color: { type: "string" },
    json: { type: "boolean" },
    workdir: { type: "string", short: "w" },
    hub: { type: "string" },
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
  let catalogText: string | undefined;
  if (values.catalog === undefined) {
    const compiled = await compileForApply(values, positionals, level, color, io);
    if (compiled === undefined) return EXIT_FAILURE;
    catalogText = compiled;
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
  const { agentDirectories } = await import("../agent/workdir.js");
  const workdir = agentDirectories({ workdir: values.workdir }, io.env).workdir;
  const reporting = await startReporting(workdir, values.hub, (text) =>
    io.stderr(`tend puppet apply: warning: ${text}\n`),
  );
  const lines = new ConsoleLines(out, (stderr) => (stderr || json ? io.stderrIsTTY : io.stdoutIsTTY));
  const result = await runPuppetApply({
    promiseModules: { named, dirs: (values["promise-modules"] ?? []).map((d) => resolve(io.cwd, d)) },
    catalogFile: values.catalog ?? "<compiled>",
    catalogText,
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
  if (reporting && result.runReport !== undefined) {
    const { catalogRunReport } = await import("./catalog-run-report.js");
    // Puppet's detailed exit code says "changes" with 2: only failures count as a failed run.
    const failed = result.exitCode === EXIT_FAILURE || (result.exitCode & 4) !== 0;
    const run = catalogRunReport(
      result.runReport,
      values.catalog ?? positionals[0] ?? "-e",
      failed ? EXIT_FAILURE : EXIT_OK,
    );
    const logger = new Logger(
      (record) => io.stderr(`tend puppet apply: ${record.level}: ${record.message}\n`),
      "warning",
    );
    await finishFrontEndReporting(reporting, workdir, "puppet", run, null, logger);
  }
  if (result.exitCode === EXIT_FAILURE || values["detailed-exitcodes"]) return result.exitCode;
  return EXIT_OK;
}

/**
 * The catalog `puppet apply` compiles when no `--catalog` is given: from the
 * manifest file named, or `-e` code (`-e ''`: the environment's manifests),
 * for the node `--certname` names; its JSON, or undefined after printing
 * the error as Puppet prints it.
 */
async function compileForApply(
  values: ApplyArgs["values"],
  positionals: readonly string[],
  level: PuppetLevel,
  color: "always" | "auto" | "never",
  io: CliIo,
): Promise<string | undefined> {
  const { puppetPrinter } = await import("./puppet-catalog.js");
  const printer = puppetPrinter(io, level, color);
  if (values.execute === undefined && positionals.length === 0) {
    printer.error(
      "nothing to apply: give a manifest file, -e CODE (-e '' for the environment's manifests) or --catalog FILE.json",
    );
    return undefined;
  }
  const given: Record<string, string | undefined> = {
    confdir: values.confdir,
    vardir: values.vardir,
    certname: values.certname,
    environment: values.environment,
    modulepath: values.modulepath,
    environmentpath: values.environmentpath,
    codedir: values.codedir,
    basemodulepath: values.basemodulepath,
    hiera_config: values.hiera_config,
    node_terminus: values.node_terminus,
    external_nodes: values.external_nodes,
    strict: values.strict,
    strict_variables: values.strict_variables ? "true" : undefined,
    facts_terminus: values.facts_terminus ?? values["facts-terminus"],
  };
  if (values.execute !== undefined) given.code = values.execute;
  else {
    const manifest = resolve(io.cwd, positionals[0]);
    if (!existsSync(manifest)) {
      printer.error(`Could not find file ${positionals[0]}`);
      return undefined;
    }
    if (positionals.length > 1)
      printer.line(
        "warning",
        `Only one file can be applied per run.  Skipping ${positionals.slice(1).join(", ")}`,
      );
    given.manifest = manifest;
  }
  const { compileCatalogCommand } = await import("./puppet-compile.js");
  const outcome = await compileCatalogCommand({ node: undefined, given, io, printer, forApply: true });
  return outcome.catalog === undefined ? undefined : JSON.stringify(outcome.catalog);
}
