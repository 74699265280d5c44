/**
 * `tend puppet catalog compile NODE`: compiles the node's catalog as
 * `puppet catalog compile NODE --render-as json` does, with Puppet's options
 * and output: Notice lines (the compile's own, then "Compiled catalog for N
 * in environment E in S seconds") on stdout before the catalog's JSON on one
 * line; warnings and errors on stderr as `Warning:`/`Error:` lines with
 * Puppet's wording, exit 1 on failure.
 */
import type { PuppetLevel } from "../puppet/console.js";
import { parseCommandLine } from "./args.js";
import { shouldColor } from "./color.js";
import { type CliIo, EXIT_FAILURE, EXIT_OK, UsageError } from "./io.js";

export const catalogUsage = `Usage: tend puppet catalog compile NODE [OPTIONS]

Compiles NODE's catalog as puppet catalog compile does, and prints it as JSON.

Options (Puppet's settings; puppet.conf's [user] then [main] give the rest):
      --confdir DIR            Puppet's configuration directory (puppet.conf)
      --environment ENV        the environment (production); an ENC may choose
      --environmentpath PATH   where environments are (: separated)
      --codedir DIR            $codedir
      --vardir DIR             $vardir
      --modulepath PATH        the module path (overrides environment.conf)
      --basemodulepath PATH    modules for every environment
      --manifest PATH          the main manifest file or directory
      --config_version CMD     the command whose output is the catalog version
      --code TEXT              Puppet code compiled instead of the manifests
      --facts_terminus json    read facts from <server_datadir>/facts/NODE.json
      --node_terminus exec     classify the node with an ENC...
      --external_nodes CMD     ...this command (run with the node's name)
      --hiera_config FILE      Hiera's hiera.yaml
      --strict MODE            off, warning or error
      --strict_variables       an unknown variable is an error
      --render-as json         the output format (json)
      --log_level LEVEL        debug, info, notice, warning or err
  -v, --verbose                log at info level
  -d, --debug                  log at debug level
      --color WHEN             always, auto or never (Puppet's true/ansi/false too)
  -h, --help                   show this help
`;

/** The compile's settings accepted on the command line, with `-` or `_` between words. */
const SETTINGS = [
  "confdir",
  "environment",
  "environmentpath",
  "codedir",
  "vardir",
  "modulepath",
  "basemodulepath",
  "manifest",
  "config_version",
  "code",
  "facts_terminus",
  "node_terminus",
  "external_nodes",
  "hiera_config",
  "strict",
  "server_datadir",
  "default_manifest",
  "log_level",
  "certname",
] as const;

function parse(args: readonly string[]) {
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {
    "render-as": { type: "string" },
    render_as: { type: "string" },
    strict_variables: { type: "boolean" },
    "strict-variables": { type: "boolean" },
    "no-strict_variables": { type: "boolean" },
    verbose: { type: "boolean", short: "v" },
    debug: { type: "boolean", short: "d" },
    color: { type: "string" },
    help: { type: "boolean", short: "h" },
  };
  for (const name of SETTINGS) {
    options[name] = { type: "string" };
    options[name.replace(/_/g, "-")] = { type: "string" };
  }
  return parseCommandLine(args, options);
}

const LEVELS: readonly PuppetLevel[] = ["debug", "info", "notice", "warning", "err"];

function levelOf(given: string | undefined, values: Record<string, unknown>): PuppetLevel {
  if (values.debug) return "debug";
  if (values.verbose) return "info";
  if (given === undefined) return "notice";
  const level = LEVELS.find((l) => l === given) ?? (given === "error" ? "err" : undefined);
  if (!level) throw new UsageError(`unknown log level '${given}' (debug, info, notice, warning or err)`);
  return level;
}

export function colorWhen(value: string | undefined): "always" | "auto" | "never" {
  if (value === undefined || value === "auto") return "auto";
  if (["always", "true", "ansi", "html"].includes(value)) return "always";
  if (["never", "false"].includes(value)) return "never";
  throw new UsageError(`unknown colour mode '${value}' (always, auto or never)`);
}

export async function runCatalog(args: readonly string[], io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  if (action === undefined || action === "-h" || action === "--help" || action === "help") {
    (action === undefined ? io.stderr : io.stdout)(catalogUsage);
    return action === undefined ? EXIT_FAILURE : EXIT_OK;
  }
  if (action === "diff") return (await import("./puppet-catalog-diff.js")).runCatalogDiff(rest, io);
  if (action !== "compile") {
    io.stderr(`tend puppet catalog: unknown action '${action}' (tend compiles catalogs: compile)\n`);
    return EXIT_FAILURE;
  }
  let parsed: ReturnType<typeof parse>;
  let given: Record<string, string | undefined>;
  let level: PuppetLevel;
  let color: "always" | "auto" | "never";
  try {
    parsed = parse(rest);
    const values = parsed.values as Record<string, string | boolean | undefined>;
    given = {};
    for (const name of SETTINGS) {
      const value = values[name] ?? values[name.replace(/_/g, "-")];
      if (typeof value === "string") given[name] = value;
    }
    if (values.strict_variables || values["strict-variables"]) given.strict_variables = "true";
    if (values["no-strict_variables"]) given.strict_variables = "false";
    const render = (values["render-as"] ?? values.render_as) as string | undefined;
    if (render !== undefined && render !== "json" && render !== "pson")
      throw new UsageError(`tend renders catalogs as json only, not '${render}'`);
    level = levelOf(given.log_level, values);
    color = colorWhen(values.color as string | undefined);
    if (values.help) {
      io.stdout(catalogUsage);
      return EXIT_OK;
    }
    if (parsed.positionals.length !== 1)
      throw new UsageError(
        parsed.positionals.length === 0 ? "the node's name is missing" : "one node at a time",
      );
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`tend puppet catalog compile: ${error.message}\nTry 'tend puppet catalog --help'.\n`);
    return EXIT_FAILURE;
  }
  const node = parsed.positionals[0];
  const printer = puppetPrinter(io, level, color);
  const { compileCatalogCommand } = await import("./puppet-compile.js");
  const outcome = await compileCatalogCommand({ node, given, io, printer, forApply: false });
  const writeJson = outcome.writeCatalogJson;
  if (outcome.node === undefined || writeJson === undefined) {
    printer.error("Try 'tend puppet catalog --help' for usage");
    return EXIT_FAILURE;
  }
  // The text in pieces as it is made: a catalog of ten thousand resources
  // is never held whole, as data (~12 MB) or as text (4.4 MB).
  writeJson(
    io.stdoutBytes ??
      ((bytes) => io.stdout(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString())),
  );
  io.stdout("\n");
  return EXIT_OK;
}

/** Puppet's console lines: notices and below on stdout, warnings and errors on stderr. */
export interface PuppetPrinter {
  line(level: PuppetLevel, message: string): void;
  error(message: string): void;
  readonly level: PuppetLevel;
}

const NAMES: Readonly<Record<string, string>> = {
  err: "Error",
  warning: "Warning",
  notice: "Notice",
  info: "Info",
  debug: "Debug",
};

const COLORS: Readonly<Record<string, string>> = {
  err: "\u001b[1;31m",
  warning: "\u001b[1;33m",
  notice: "\u001b[m",
  info: "\u001b[0;32m",
  debug: "\u001b[0;36m",
};

const RANK: Readonly<Record<string, number>> = { debug: 0, info: 1, notice: 2, warning: 3, err: 4 };

export function puppetPrinter(
  io: CliIo,
  level: PuppetLevel,
  color: "always" | "auto" | "never",
): PuppetPrinter {
  const colored = [false, true].map((stderr) =>
    shouldColor(color, { isTTY: stderr ? io.stderrIsTTY : io.stdoutIsTTY }, io.env),
  );
  const line = (at: PuppetLevel, message: string): void => {
    if ((RANK[at] ?? 4) < (RANK[level] ?? 2)) return;
    const stderr = at === "warning" || at === "err";
    const text = `${NAMES[at] ?? "Error"}: ${message}`;
    (stderr ? io.stderr : io.stdout)(
      colored[stderr ? 1 : 0] ? `${COLORS[at] ?? ""}${text}\u001b[0m\n` : `${text}\n`,
    );
  };
  return { line, error: (message) => line("err", message), level };
}
