/**
 * The system log, as the CFEngine 3.21 programs write to it
 * (libntech logging.c `LogToSystemLog`, generic_agent.c `OpenLog`): every
 * message at the program's log level and below verbose, foreground or not,
 * as `<PRI>TIMESTAMP cf-serverd[PID]: CFEngine(server)  message` on the
 * local syslog socket (/dev/log), the facility LOG_USER unless the policy
 * says otherwise (`serverfacility`, `executorfacility`...), and the last
 * one a policy set remembered in `$(sys.statedir)/<program>_log_facility.dat`
 * for the next start.
 *
 * Node has no Unix datagram sockets (node:dgram speaks UDP only, node:net
 * streams only), and /dev/log is a datagram socket. So the messages go
 * through one logger(1) process (util-linux) per daemon, started with the
 * first message, fed a line per message with its priority in front
 * (`--prio-prefix`): logger sends each as one datagram to the socket, with
 * the same header glibc's syslog(3) writes (its trailing newline aside).
 * When /dev/log is missing or logger ends, the messages are dropped, as
 * syslog(3) drops them, and logger is started again for a message at most
 * once a minute; without logger(1), nothing reaches syslog, and
 * `unavailable` says why once.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomically } from "./atomic.js";
import type { LogLevel } from "./logger.js";

/** The facilities the CFEngine programs accept (ParseFacility), as syslog numbers them. */
export const FACILITIES: Readonly<Record<string, number>> = {
  LOG_USER: 1,
  LOG_DAEMON: 3,
  LOG_LOCAL0: 16,
  LOG_LOCAL1: 17,
  LOG_LOCAL2: 18,
  LOG_LOCAL3: 19,
  LOG_LOCAL4: 20,
  LOG_LOCAL5: 21,
  LOG_LOCAL6: 22,
  LOG_LOCAL7: 23,
};

/** Syslog severities of the levels that go there (verbose and debug do not). */
const SEVERITY: Readonly<Partial<Record<LogLevel, number>>> = {
  critical: 2,
  error: 3,
  warning: 4,
  notice: 5,
  info: 6,
};

const RESTART_MS = 60_000;

export interface SyslogOptions {
  /** The program's name, the syslog tag: "cf-serverd". */
  readonly ident: string;
  /** 3.21's agent type in the message: "server", "monitor", "executor". */
  readonly agentType: string;
  /** A prefix of every message after the agent type (cf-monitord's "cf-monitord"). */
  readonly prefix?: string;
  /** Where the facility a policy set is remembered (the state directory). */
  readonly statedir?: string;
  /** The socket (default /dev/log). */
  readonly socket?: string;
  /** Told once why nothing reaches syslog (logger(1) missing). */
  readonly unavailable?: (reason: string) => void;
}

export class SyslogWriter {
  private child: ChildProcess | undefined;
  private startedAt = Number.NEGATIVE_INFINITY;
  private facility: number;
  private missing = false;

  constructor(private readonly options: SyslogOptions) {
    this.facility = FACILITIES[storedFacility(options)] ?? (FACILITIES.LOG_USER as number);
  }

  /** The facility by name ("LOG_DAEMON"), remembered for the next start; false for a name 3.21 does not know. */
  setFacility(name: string): boolean {
    const facility = FACILITIES[name];
    if (facility === undefined) return false;
    this.facility = facility;
    if (this.options.statedir !== undefined) {
      try {
        writeFileAtomically(facilityFile(this.options), `${name}\n`, 0o600);
      } catch {
        // As 3.21 ("Failed to store default log facility"): the facility still applies now.
      }
    }
    return true;
  }

  /** Sends a message at `level` (verbose and debug are not sent). */
  write(level: LogLevel, message: string): void {
    const severity = SEVERITY[level];
    if (severity === undefined || this.missing) return;
    const child = this.process();
    if (!child?.stdin?.writable) return;
    const priority = this.facility * 8 + severity;
    const head = `CFEngine(${this.options.agentType}) ${this.options.prefix ?? ""} `;
    let text = "";
    for (const line of message.split("\n")) if (line !== "") text += `<${priority}>${head}${line}\n`;
    child.stdin.write(text);
  }

  /** Ends the logger process once it has sent what it was given. */
  close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        child.kill();
        resolve();
      }, 2000);
      child.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
      child.stdin?.end();
    });
  }

  private process(): ChildProcess | undefined {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) return child;
    const now = Date.now();
    if (now - this.startedAt < RESTART_MS) return undefined;
    this.startedAt = now;
    const started = spawn(
      "logger",
      [
        "--prio-prefix",
        `--id=${process.pid}`,
        "--tag",
        this.options.ident,
        "--size",
        "4096",
        "--socket-errors=off",
        "--socket",
        this.options.socket ?? "/dev/log",
      ],
      { stdio: ["pipe", "ignore", "ignore"], detached: false },
    );
    started.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" && !this.missing) {
        this.missing = true;
        this.options.unavailable?.("logger(1) is not installed: no message goes to syslog");
      }
    });
    started.stdin?.on("error", () => {});
    started.unref();
    // The pipe must not keep a daemon's event loop alive on its own.
    (started.stdin as unknown as { _handle?: { unref?: () => void } })._handle?.unref?.();
    this.child = started;
    return started;
  }
}

function facilityFile(options: SyslogOptions): string {
  return join(options.statedir ?? "", `${options.ident}_log_facility.dat`);
}

/** The facility the last policy set (GetDefaultLogFacility), LOG_USER when none. */
function storedFacility(options: SyslogOptions): string {
  if (options.statedir === undefined) return "LOG_USER";
  try {
    const name = readFileSync(facilityFile(options), "utf8").replace(/\n$/, "");
    return FACILITIES[name] === undefined ? "LOG_USER" : name;
  } catch {
    return "LOG_USER";
  }
}
