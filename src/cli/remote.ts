/**
 * What the network commands (`tend net`, `tend runagent`) share: the
 * work directory and its key pair, host lists as cf-net and cf-runagent
 * read them, and log lines written to stdout as the CFEngine tools write
 * them (`   error: …`).
 */
import { join } from "node:path";
import { agentDirectories } from "../agent/workdir.js";
import { splitHostPort } from "../eval/policy-server.js";
import { type KeyPair, readKeyPair } from "../net/keys.js";
import { formatLogLine, type LogLevel, Logger } from "../system/logger.js";
import type { CliIo } from "./io.js";

/** cf-serverd's port when a host names none. */
export const DEFAULT_PORT = 5308;

export const LOG_LEVELS: readonly LogLevel[] = ["error", "warning", "notice", "info", "verbose", "debug"];

/**
 * A log level as `-g`/`--log-level` names it, or undefined: as 3.21, any
 * prefix of a level's long name in any case (`i`, `inform`, `WARN`).
 */
export function parseLogLevel(text: string): LogLevel | undefined {
  if (text === "") return undefined;
  const names: readonly [string, LogLevel][] = [
    ["critical", "critical"],
    ["errors", "error"],
    ["warnings", "warning"],
    ["notices", "notice"],
    ["information", "info"],
    ["verbose", "verbose"],
    ["debug", "debug"],
  ];
  const lower = text.toLowerCase();
  return names.find(([name]) => name.startsWith(lower))?.[1];
}

/** A logger writing CFEngine's log lines to stdout (where the CFEngine tools write them). */
export function stdoutLogger(io: CliIo, level: LogLevel, stamp = false): Logger {
  return new Logger((record) => io.stdout(`${stamp ? timestamp() : ""}${formatLogLine(record)}\n`), level);
}

function timestamp(): string {
  return `${new Date().toISOString().replace(/\.\d+Z$/, "+0000")} `;
}

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/** `host[:port]` (or `[v6]:port`) as 3.21's ParseHostPort splits it; a port that is not a number is undefined. */
export function parseHostPort(entry: string): HostPort | undefined {
  const { host, port } = splitHostPort(entry.trim());
  if (host === "") return undefined;
  if (port === undefined) return { host, port: DEFAULT_PORT };
  const number = Number(port);
  if (!/^\d+$/.test(port) || number < 1 || number > 65535) return undefined;
  return { host, port: number };
}

/** The work directory (`--workdir`, CFENGINE_TEST_OVERRIDE_WORKDIR, else tend's) and its ppkeys. */
export function networkDirectories(io: CliIo, workdir?: string): { workdir: string; ppkeys: string } {
  const dirs = agentDirectories({ workdir }, io.env);
  return { workdir: dirs.workdir, ppkeys: join(dirs.workdir, "ppkeys") };
}

/** The host's key pair; undefined (with 3.21's error logged) when there is none. */
export function loadKeyPair(ppkeys: string, log: Logger): KeyPair | undefined {
  let pair: KeyPair | undefined;
  try {
    pair = readKeyPair(ppkeys);
  } catch (error) {
    log.error(
      `Unable to read the key pair in '${ppkeys}': ${error instanceof Error ? error.message : String(error)}`,
    );
    return undefined;
  }
  if (!pair) log.error("No public/private key pair is loaded, please create one using tend key");
  return pair;
}

/** A word of an error for a log line. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
