/**
 * A promise module process, started from the agent's thread: in its own
 * process group (so that a kill reaches everything it started), with
 * standard streams on descriptors the caller opened.
 *
 * The agent's thread does not run its event loop while a policy runs, so
 * it never reaps the module: a module that has ended stays a zombie until
 * the run is over, and its exit status is read from /proc (Linux). Where
 * there is no /proc the status is unknown, and a module that should end is
 * killed after a short wait.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { constants } from "node:os";

const SIGNAL_NAMES = new Map<number, string>(Object.entries(constants.signals).map(([name, n]) => [n, name]));
/**
 * How often a wait for a module's end looks: often at first, since a module
 * told to end usually does within milliseconds (and the agent waits for it,
 * as cf-agent does), then less.
 */
const FIRST_POLL_MS = 0.25;
const POLL_MS = 2;

export interface ExitStatus {
  readonly exited: boolean;
  readonly exitCode?: number | null;
  readonly signal?: string | null;
}

/** Starts `argv` (no shell); the process, or why it could not start. */
export function startProcess(
  argv: readonly string[],
  stdio: readonly [number, number, number],
): ChildProcess | string {
  let child: ChildProcess;
  try {
    child = spawn(argv[0], argv.slice(1), { stdio: [...stdio], detached: true });
  } catch (error) {
    return (error as Error).message;
  }
  // Reported later by the event loop, after the failure is already known here.
  child.on("error", () => {});
  return child.pid === undefined ? `cannot run '${argv[0]}'` : child;
}

/** Whether /proc tells about processes (Linux); elsewhere a module's end is not seen. */
const HAS_PROC = existsSync("/proc/self/stat");
/** Without /proc, how long to give a module to end before killing it anyway. */
const BLIND_WAIT_MS = 100;

/** How the process ended, if it has (a zombie, since nobody reaps it during the run). */
export function exitStatus(pid: number): ExitStatus {
  if (!HAS_PROC) return { exited: false };
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    // Reaped already: gone, status unknown.
    return { exited: true };
  }
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  if (fields[0] !== "Z" && fields[0] !== "X") return { exited: false };
  const status = Number(fields[49]);
  if (!Number.isInteger(status)) return { exited: true };
  const signal = status & 0x7f;
  return signal === 0
    ? { exited: true, exitCode: (status >> 8) & 0xff, signal: null }
    : { exited: true, exitCode: null, signal: SIGNAL_NAMES.get(signal) ?? `signal ${signal}` };
}

/** Milliseconds of CLOCK_MONOTONIC (libuv's hrtime reads that clock; so does the timer process). */
export function monotonicMs(): number {
  const [seconds, nanoseconds] = process.hrtime();
  return seconds * 1000 + nanoseconds / 1e6;
}

/** Blocks the agent's thread for `ms` (fractions too). */
export function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Waits up to `ms` for the process to end; how it ended (or that it has not). */
export function waitForExit(pid: number, ms: number): ExitStatus {
  if (!HAS_PROC) {
    sleep(Math.min(ms, BLIND_WAIT_MS));
    return { exited: false };
  }
  const deadline = Date.now() + ms;
  for (let pause = FIRST_POLL_MS; ; pause = Math.min(pause * 1.5, POLL_MS)) {
    const status = exitStatus(pid);
    if (status.exited || Date.now() >= deadline) return status;
    sleep(pause);
  }
}

/** Kills the process group and waits (briefly) for the end. */
export function killGroup(pid: number): ExitStatus {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
  return waitForExit(pid, 2_000);
}
