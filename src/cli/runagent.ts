/**
 * `tend runagent`: cf-runagent 3.21's command line. It asks each host's
 * cf-serverd (real or `tend serverd`) to run its `cfruncommand` (EXEC),
 * sending classes to define there (`-D`), bundles to run (`--remote-bundles`)
 * and classes that select the hosts that should act (`-s`), and prints each
 * reply line prefixed with the host's address, as cf-runagent does.
 *
 * The hosts are `-H`'s, else `hosts` of `body runagent control` in the
 * policy (`-f`, else `inputs/promises.cf`, which must load, as with
 * cf-runagent). Exit code, as 3.21: with one host, the remote run's own
 * exit code (255 when there was none); with several, how many failed (at
 * most 100); 101 for a usage conflict. `-b` (`--background[=N]`) asks the
 * hosts in parallel, at most N at a time (50), each host's lines printed
 * together when it is done.
 *
 * Deliberate differences: a host that answers exit code 0 in background
 * mode counts as a success (3.21 turns it into 101); `-i` asks about a key
 * the server actually presented, naming its digest, instead of guessing
 * from the address beforehand.
 */
import { getopt, type OptionSpec } from "./getopt.js";
import { type CliIo, EXIT_FAILURE, EXIT_OK } from "./io.js";
import { COLOR_MODES } from "./args.js";
import { parseLogLevel } from "./remote.js";
import type { LogLevel } from "../system/logger.js";

const OPTIONS: readonly OptionSpec[] = [
  { short: "h", long: "help", argument: "none" },
  { short: "b", long: "background", argument: "optional" },
  { short: "d", long: "debug", argument: "none" },
  { short: "v", long: "verbose", argument: "none" },
  { short: "g", long: "log-level", argument: "required" },
  { short: "n", long: "dry-run", argument: "none" },
  { short: "V", long: "version", argument: "none" },
  { short: "f", long: "file", argument: "required" },
  { short: "D", long: "define-class", argument: "required" },
  { short: "s", long: "select-class", argument: "required" },
  { short: "I", long: "inform", argument: "none" },
  { short: "o", long: "remote-options", argument: "required" },
  { short: "x", long: "diagnostic", argument: "none" },
  { short: "H", long: "hail", argument: "required" },
  { short: "i", long: "interactive", argument: "none" },
  { short: "t", long: "timeout", argument: "required" },
  { short: "C", long: "color", argument: "optional" },
  { short: "l", long: "timestamp", argument: "none" },
  { short: "K", argument: "none", key: "no-lock" },
  { short: "M", argument: "none", key: "manpage" },
  { short: "q", argument: "required", key: "unsupported" },
  { short: "S", argument: "none", key: "unsupported" },
  { short: "w", long: "workdir", argument: "required" },
  { long: "ignore-preferred-augments", argument: "none" },
  { long: "log-modules", argument: "required" },
  { long: "remote-bundles", argument: "required" },
];

export const runagentUsage = `Usage: tend runagent [OPTIONS] [FILE]

Asks remote cf-serverd (or tend serverd) hosts to run their agent now, as cf-runagent 3.21.

Options:
  -H, --hail HOST[:PORT],...    the hosts (default: hosts of body runagent control)
  -D, --define-class A,B        classes the remote agent run defines (roles must allow them)
  -s, --select-class A,B        run only on hosts that have one of these classes
      --remote-bundles B1,B2    the bundles the remote agent runs
  -b, --background[=N]          ask the hosts in parallel, at most N at a time (50)
  -i, --interactive             ask before trusting a host's unknown key
  -t, --timeout SECONDS         the connection timeout (30)
  -f, --file FILE               the policy to read body runagent control from
                                (default: <workdir>/inputs/promises.cf)
  -w, --workdir DIR             the work directory (keys in ppkeys/; tend's, not in cf-runagent)
  -I, --inform / -v, --verbose / -d, --debug / -g, --log-level LEVEL
  -l, --timestamp               prefix log lines with the time
  -C, --color[=WHEN]            accepted, as cf-runagent accepts it
  -n, --dry-run, -K             accepted (they change nothing here)
  -h, --help                    show this help
  -M                            show this help as a manual page
  -V, --version                 print the version

Exit code: with one host, the remote agent's exit code (255 if none); with
several, the number of hosts whose run failed (at most 100); 101 otherwise.
`;

/** The command line, read. */
export interface RunagentOptions {
  hosts?: string[];
  defineClasses: string[];
  selectClasses: string[];
  bundles: string[];
  background?: number;
  interactive: boolean;
  timeoutSeconds: number;
  file?: string;
  workdir?: string;
  level: LogLevel;
  timestamp: boolean;
}

/** Exit code for errors other than the remote runs' (3.21's CF_RA_EXIT_CODE_OTHER_ERR). */
export const OTHER_ERROR = 101;

type Parsed = { options: RunagentOptions } | { exit: number; stdout?: string; stderr?: string };

function split(value: string | undefined): string[] {
  return (value ?? "").split(",").filter((s) => s !== "");
}

/** Reads the command line; `exit` when it is already decided (help, an error). */
export function parseRunagentArgs(args: readonly string[]): Parsed {
  const parsed = getopt(args, OPTIONS);
  if (parsed.error)
    return { exit: EXIT_FAILURE, stderr: `tend runagent: ${parsed.error}\n`, stdout: runagentUsage };
  const options: RunagentOptions = {
    defineClasses: [],
    selectClasses: [],
    bundles: [],
    interactive: false,
    timeoutSeconds: 30,
    level: "notice",
    timestamp: false,
  };
  for (const { key, value } of parsed.options) {
    const done = applyOption(options, key, value);
    if (done) return done;
  }
  if (parsed.operands.length > 1) return { exit: EXIT_FAILURE, stdout: "   error: Too many arguments\n" };
  if (parsed.operands.length === 1) options.file = parsed.operands[0];
  return { options };
}

function applyOption(options: RunagentOptions, key: string, value: string | undefined): Parsed | undefined {
  switch (key) {
    case "help":
      return { exit: EXIT_OK, stdout: runagentUsage };
    case "manpage":
      return { exit: EXIT_OK, stdout: `.TH TEND-RUNAGENT 1\n.nf\n${runagentUsage}.fi\n` };
    case "version":
      return { exit: -1 };
    case "background":
      if (value !== undefined && !/^\d+$/.test(value))
        return { exit: EXIT_FAILURE, stdout: `   error: Failed to convert '${value}' to a number\n` };
      options.background = value === undefined ? (options.background ?? 50) : Number(value);
      return undefined;
    case "debug":
    case "verbose":
    case "inform":
      options.level = key === "inform" ? "info" : key;
      return undefined;
    case "log-level": {
      const level = parseLogLevel(value ?? "");
      if (!level) return { exit: EXIT_FAILURE, stderr: `Invalid log level: '${value}'\n` };
      options.level = level;
      return undefined;
    }
    case "define-class":
      options.defineClasses.push(...split(value));
      return undefined;
    case "select-class":
      options.selectClasses.push(...(value ?? "").split(/[,: ]/).filter((s) => s !== ""));
      return undefined;
    case "remote-bundles":
      options.bundles.push(...split(value));
      return undefined;
    default:
      return applyOtherOption(options, key, value);
  }
}

function applyOtherOption(
  options: RunagentOptions,
  key: string,
  value: string | undefined,
): Parsed | undefined {
  switch (key) {
    case "hail":
      options.hosts = split(value);
      return undefined;
    case "interactive":
      options.interactive = true;
      return undefined;
    case "timeout":
      if (!/^\d+$/.test(value ?? ""))
        return { exit: EXIT_FAILURE, stdout: `   error: Failed to convert '${value}' to a number\n` };
      options.timeoutSeconds = Number(value);
      return undefined;
    case "file":
      options.file = value;
      return undefined;
    case "workdir":
      options.workdir = value;
      return undefined;
    case "timestamp":
      options.timestamp = true;
      return undefined;
    case "remote-options":
      return {
        exit: EXIT_FAILURE,
        stdout:
          '   error: Option "-o" has been deprecated, you can not pass arbitrary arguments to remote cf-agent\n',
      };
    case "diagnostic":
      return { exit: EXIT_FAILURE, stdout: '   error: Option "-x" has been deprecated\n' };
    case "color":
      if (value !== undefined && !(COLOR_MODES as readonly string[]).includes(value))
        return { exit: EXIT_FAILURE, stdout: `   error: Unrecognized color mode '${value}'\n` };
      return undefined;
    case "unsupported":
      return { exit: EXIT_FAILURE, stdout: runagentUsage };
    default:
      // -n, -K, --log-modules, --ignore-preferred-augments: nothing to do here.
      return undefined;
  }
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseRunagentArgs(args);
  if ("exit" in parsed) {
    if (parsed.exit === -1) return (await import("./app.js")).main(["--version"], io);
    if (parsed.stdout) io.stdout(parsed.stdout);
    if (parsed.stderr) io.stderr(parsed.stderr);
    return parsed.exit;
  }
  const { hailHosts } = await import("./runagent-hail.js");
  return hailHosts(parsed.options, io);
}
