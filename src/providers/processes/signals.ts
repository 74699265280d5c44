/**
 * The `signals` of a `processes` promise, as 3.21 reads them: a signal
 * name from its list (`hup`, `term`, `kill`, ...), or a number of seconds
 * (`10` or `10s`) to wait before the next signal.
 */
import { constants } from "node:os";

const NAMES: Readonly<Record<string, keyof typeof constants.signals>> = {
  hup: "SIGHUP",
  int: "SIGINT",
  trap: "SIGTRAP",
  kill: "SIGKILL",
  pipe: "SIGPIPE",
  cont: "SIGCONT",
  abrt: "SIGABRT",
  stop: "SIGSTOP",
  quit: "SIGQUIT",
  term: "SIGTERM",
  child: "SIGCHLD",
  usr1: "SIGUSR1",
  usr2: "SIGUSR2",
  bus: "SIGBUS",
  segv: "SIGSEGV",
};

/** A pause (seconds) or a signal number (-1 for a name 3.21 does not know). */
export type SignalStep = { readonly pause: number } | { readonly signal: number };

export function readSignalStep(spec: string): SignalStep {
  const pause = /^(\d+)s?$/.exec(spec);
  if (pause) return { pause: Number(pause[1]) };
  const name = NAMES[spec];
  return { signal: name === undefined ? -1 : constants.signals[name] };
}

/** Whether the signal ends a process (then a restart is due). */
export function isKillingSignal(signal: number): boolean {
  return signal === constants.signals.SIGKILL || signal === constants.signals.SIGTERM;
}

/** Waits, blocking the agent, as 3.21's sleep() between signals. */
export function pause(seconds: number): void {
  if (seconds <= 0) return;
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, seconds * 1000);
}

const ERRORS: Readonly<Record<string, string>> = {
  ESRCH: "No such process",
  EPERM: "Operation not permitted",
  EINVAL: "Invalid argument",
};

/** Sends a signal; the system's reason when it could not be sent. */
export function sendSignal(pid: number, signal: number): string | undefined {
  try {
    process.kill(pid, signal);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    return ERRORS[code] ?? (error instanceof Error ? error.message : String(error));
  }
}
