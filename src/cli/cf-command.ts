/**
 * What every CFEngine-style command (agent, serverd, monitord, execd) does
 * before its own work, as the cf-* programs do: the command line split
 * (a usage error names the option and points at --help), `--help`,
 * `--version`, the colour mode checked, at most one policy file, and the
 * log level from `--log-level`, `-d`, `-v` or `-I`.
 */
import { formatLogLine, type LogLevel, Logger } from "../system/logger.js";
import type { SyslogWriter } from "../system/syslog.js";
import { colorMode, onePolicyFile } from "./args.js";
import { type CliIo, EXIT_FAILURE, EXIT_OK, UsageError } from "./io.js";

/** The levels `--log-level` accepts. */
export const LOG_LEVELS: readonly LogLevel[] = ["error", "warning", "notice", "info", "verbose", "debug"];

/** The options every such command has (each may lack some). */
export interface CfCommonValues {
  readonly color?: string;
  readonly help?: boolean;
  readonly version?: boolean;
  readonly "log-level"?: string;
  readonly debug?: boolean;
  readonly verbose?: boolean;
  readonly inform?: boolean;
}

export interface CfCommandStart<V> {
  readonly values: V;
  /** The policy file given without `-f`, if any. */
  readonly positional: string | undefined;
  readonly level: LogLevel;
}

/** The log level the options ask for; undefined for an unknown `--log-level`. */
export function cfLogLevel(values: CfCommonValues): LogLevel | undefined {
  const named = values["log-level"];
  if (named !== undefined)
    return (LOG_LEVELS as readonly string[]).includes(named) ? (named as LogLevel) : undefined;
  if (values.debug) return "debug";
  if (values.verbose) return "verbose";
  if (values.inform) return "info";
  return "notice";
}

/** Values of a repeatable, comma-separated option (`-D a,b -D c`), empty items dropped. */
export function splitList(values: readonly string[] | undefined): string[] {
  return (values ?? []).flatMap((v) => v.split(",")).filter((v) => v.length > 0);
}

/**
 * Reads the command line of `tend <name>`: the values to go on with, or
 * the exit code when the command is already done (a usage error, --help,
 * --version). `validate` checks the command's own options, throwing a
 * UsageError.
 */
export async function startCfCommand<V extends CfCommonValues>(
  name: string,
  usage: string,
  parse: (args: readonly string[]) => { values: V; positionals: string[] },
  args: readonly string[],
  io: CliIo,
  validate?: (values: V) => void,
): Promise<CfCommandStart<V> | number> {
  let values: V;
  let positional: string | undefined;
  try {
    const parsed = parse(args);
    values = parsed.values;
    positional = onePolicyFile(parsed.positionals);
    colorMode(values.color);
    validate?.(values);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`tend ${name}: ${error.message}\nTry 'tend ${name} --help'.\n`);
    return EXIT_FAILURE;
  }
  if (values.help) {
    io.stdout(usage);
    return EXIT_OK;
  }
  if (values.version) return (await import("./app.js")).main(["--version"], io);
  const level = cfLogLevel(values);
  if (!level) {
    io.stderr(`tend ${name}: unknown log level '${values["log-level"]}'\n`);
    return EXIT_FAILURE;
  }
  return { values, positional, level };
}

/**
 * The policy file `-f` names, as the cf-* programs find it: a bare name
 * (not starting with `/` or `.`) is looked up in the input directory
 * (`-f update.cf`).
 */
export function policyFileOption(file: string | undefined, inputdir: string): string | undefined {
  if (file === undefined || file.startsWith("/") || file.startsWith(".")) return file;
  return `${inputdir}/${file}`;
}

/** The time prefix of a log line under `--timestamp` (`-l`), as the cf-* programs print it. */
export function logTimestamp(): string {
  return `${new Date().toISOString().replace(/\.\d+Z$/, "+0000")} `;
}

/**
 * A daemon's logger: its lines on stdout, as cf-serverd, cf-monitord and
 * cf-execd print theirs, time-stamped under `--timestamp`, after `prefix`
 * (cf-monitord names itself on every line); and, given `syslog`, the same
 * messages but verbose and debug ones to the system log, as the 3.21
 * daemons send them whether in the foreground or not.
 */
export function stdoutLogger(
  io: CliIo,
  level: LogLevel,
  stamp: boolean,
  prefix = "",
  syslog?: SyslogWriter,
): Logger {
  return new Logger((record) => {
    io.stdout(`${stamp ? logTimestamp() : ""}${prefix}${formatLogLine(record)}\n`);
    syslog?.write(record.level, record.message);
  }, level);
}

/**
 * The system log of daemon `ident` ("cf-serverd"), its facility the one
 * the last policy set; where nothing can reach it, said once on stdout.
 */
export async function daemonSyslog(
  io: CliIo,
  ident: string,
  agentType: string,
  statedir: string,
  prefix?: string,
): Promise<SyslogWriter> {
  const { SyslogWriter } = await import("../system/syslog.js");
  return new SyslogWriter({
    ident,
    agentType,
    statedir,
    ...(prefix === undefined ? {} : { prefix }),
    unavailable: (reason) => io.stdout(`${formatLogLine({ level: "warning", message: reason })}\n`),
  });
}
