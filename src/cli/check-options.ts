/**
 * The options of `tend check`: cf-promises' command line, so that tend can
 * stand in for it, plus `--json`. Options that have no meaning for a static
 * check are accepted and listed in `ignored`.
 */
import { isAbsolute, join, resolve } from "node:path";
import { agentDirectories } from "../agent/workdir.js";
import { colorMode, onePolicyFile, parseCommandLine } from "./args.js";
import type { ColorMode } from "./color.js";
import { UsageError } from "./io.js";

export type PolicyOutputFormat = "none" | "cf" | "json" | "cf-full" | "json-full";

export interface CheckCommandOptions {
  /** The entry file as written, or null for the default `$(sys.inputdir)/promises.cf`. */
  readonly file: string | null;
  /** Whether the file came from `-f` (looked up in the input directory when not anchored). */
  readonly fileFromOption: boolean;
  readonly fullCheck: boolean;
  readonly policyOutput: PolicyOutputFormat;
  readonly syntaxDescription: "none" | "json";
  readonly defines: readonly string[];
  readonly negates: readonly string[];
  readonly bundlesequence: readonly string[] | null;
  readonly workdir: string | null;
  readonly verbose: boolean;
  readonly debug: boolean;
  readonly inform: boolean;
  readonly color: ColorMode;
  readonly json: boolean;
  /** `--log-to-stderr`: log lines to stderr instead of stdout (where cf-promises writes them). */
  readonly logToStderr: boolean;
  readonly help: boolean;
  readonly version: boolean;
  /** `--show-vars[=REGEX]`: print the variables after loading (as cf-promises); null when not asked. */
  readonly showVars: string | null;
  /** `--show-classes[=REGEX]`: print the global classes after loading; null when not asked. */
  readonly showClasses: string | null;
  /** `-T DIR`: check DIR/promises.cf and tag DIR (cf_promises_validated, cf_promises_release_id); null when not asked. */
  readonly tagRelease: string | null;
  /** Options accepted for compatibility that tend does not act on, as written. */
  readonly ignored: readonly string[];
}

const optionSpec = {
  file: { type: "string", short: "f" },
  "full-check": { type: "boolean", short: "c" },
  "policy-output-format": { type: "string", short: "p" },
  "syntax-description": { type: "string", short: "s" },
  define: { type: "string", short: "D", multiple: true },
  negate: { type: "string", short: "N", multiple: true },
  bundlesequence: { type: "string", short: "b" },
  workdir: { type: "string", short: "w" },
  inform: { type: "boolean", short: "I" },
  verbose: { type: "boolean", short: "v" },
  debug: { type: "boolean", short: "d" },
  color: { type: "string", short: "C" },
  json: { type: "boolean" },
  "log-to-stderr": { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
  "show-classes": { type: "string" },
  "show-vars": { type: "string" },
  // Accepted for compatibility; they change nothing in a static check.
  "eval-functions": { type: "string" },
  warn: { type: "string", short: "W", multiple: true },
  "tag-release": { type: "string", short: "T" },
  timestamp: { type: "boolean", short: "l" },
  "dry-run": { type: "boolean", short: "n" },
  diagnostic: { type: "boolean", short: "x" },
  "log-level": { type: "string", short: "g" },
  "log-modules": { type: "string" },
  "ignore-preferred-augments": { type: "boolean" },
} as const;

const ignoredOptions = [
  "eval-functions",
  "warn",
  "timestamp",
  "dry-run",
  "diagnostic",
  "log-level",
  "log-modules",
  "ignore-preferred-augments",
] as const;

/**
 * Options whose value is optional in cf-promises (getopt's optional_argument):
 * a value must be attached (`--color=always`, `-Calways`); written alone they
 * take their default.
 */
const optionalValues: Readonly<Record<string, string>> = {
  "-C": "--color=auto",
  "--color": "--color=auto",
  "--eval-functions": "--eval-functions=yes",
  "--show-classes": "--show-classes=.*",
  "--show-vars": "--show-vars=.*",
};

/** Splits `-D a,b -D c` into `[a, b, c]`. */
function splitList(values: readonly string[] | undefined): string[] {
  return (values ?? []).flatMap((v) => v.split(",")).filter((v) => v !== "");
}

function oneOf<T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  fallback: T,
  flag: string,
): T {
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`invalid value '${value}' for ${flag}; expected one of: ${allowed.join(", ")}`);
}

/** Parses the arguments after `check`; throws UsageError on a bad command line. */
export function parseCheckOptions(args: readonly string[]): CheckCommandOptions {
  const { values, positionals } = parseCommandLine(args, optionSpec, optionalValues);
  const positional = onePolicyFile(positionals);
  const policyOutput = oneOf(
    values["policy-output-format"],
    ["none", "cf", "json", "cf-full", "json-full"],
    "none",
    "--policy-output-format",
  );
  return {
    // As in cf-promises, a positional FILE overrides -f.
    file: positional ?? values.file ?? null,
    fileFromOption: positional === undefined && values.file !== undefined,
    fullCheck: values["full-check"] ?? false,
    policyOutput,
    syntaxDescription: oneOf(values["syntax-description"], ["none", "json"], "none", "--syntax-description"),
    defines: splitList(values.define),
    negates: splitList(values.negate),
    bundlesequence: values.bundlesequence === undefined ? null : splitList([values.bundlesequence]),
    workdir: values.workdir ?? null,
    verbose: values.verbose ?? false,
    debug: values.debug ?? false,
    inform: values.inform ?? false,
    color: colorMode(values.color),
    json: values.json ?? false,
    logToStderr: values["log-to-stderr"] ?? false,
    help: values.help ?? false,
    version: values.version ?? false,
    showVars: values["show-vars"] ?? null,
    showClasses: values["show-classes"] ?? null,
    tagRelease: values["tag-release"] ?? null,
    ignored: ignoredOptions.filter((name) => values[name] !== undefined).map((name) => `--${name}`),
  };
}

/** The work directory, by the agent's rule (`tend agent` runs what this checks). */
export function resolveWorkdir(options: CheckCommandOptions, env: NodeJS.ProcessEnv): string {
  return agentDirectories({ workdir: options.workdir ?? undefined }, env).workdir;
}

/**
 * The entry file's path, as cf-promises finds it: a positional FILE is taken
 * as written; a `-f` path that is neither absolute nor starts with `./` or
 * `../` is looked up in the input directory; no file means
 * `$(sys.inputdir)/promises.cf`.
 */
export function resolveEntryFile(options: CheckCommandOptions, inputDir: string): string {
  // As cf-promises, -T DIR checks DIR/promises.cf.
  if (options.tagRelease !== null) return join(options.tagRelease, "promises.cf");
  const file = options.file;
  if (file === null) return join(inputDir, "promises.cf");
  if (isAbsolute(file) || !options.fileFromOption || isAnchored(file)) return file;
  return resolve(inputDir, file);
}

function isAnchored(path: string): boolean {
  return path === "." || path === ".." || /^\.\.?[\\/]/.test(path);
}

export const checkUsage = `Usage: tend check [options] [FILE]

Validates a policy as cf-promises does; exits 0 when it is valid, 1 otherwise.
Diagnostics go to stderr; results and log lines to stdout (as cf-promises).

Options:
  -f, --file FILE            the entry file (a path not starting with ./ or ../ is
                             looked up in the input directory); default:
                             $(sys.inputdir)/promises.cf
  -c, --full-check           also run the checks cf-promises runs only with -c
  -p, --policy-output-format none|cf|json|cf-full|json-full
                             print the parsed policy as cf-promises does (the entry
                             file, or all files)
  -s, --syntax-description none|json
                             print the syntax tables and exit
  -D, --define a,b           classes to define
  -N, --negate a,b           classes to undefine
  -b, --bundlesequence a,b   the bundlesequence to check against
  -w, --workdir DIR          the work directory, as for tend agent: -w, else
                             CFENGINE_TEST_OVERRIDE_WORKDIR, else /var/lib/tend
                             for root and ~/.tend for other users
  -C, --color[=WHEN]         always, auto (default) or never (attached:
                             -Cnever, --color=never); NO_COLOR is honoured
      --show-vars[=REGEX]    print the variables known after loading, as cf-promises
      --show-classes[=REGEX] print the global classes known after loading
      --json                 print the result and diagnostics as JSON on stdout
                             (log lines then go to stderr)
      --log-to-stderr        write log lines to stderr instead of stdout
  -T, --tag-release DIR      check DIR/promises.cf; when valid, write
                             DIR/cf_promises_validated and DIR/cf_promises_release_id
  -v, --verbose              say what is done (and which options are ignored)
  -I, --inform, -d, --debug  more output
  -h, --help                 this help

Accepted and ignored, for compatibility with cf-promises:
  --eval-functions, -W, -l, -n, -x, -g, --log-modules,
  --ignore-preferred-augments
`;
