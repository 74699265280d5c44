/**
 * The promise modules of one run (a CFEngine agent run, a Puppet catalog
 * run): one process per module path, shared by every promise or resource
 * type that names that path, started on first use and terminated when the
 * run ends (`shutdown`). The watchdog (watchdog.ts) is started with the
 * first module, or ahead when the front end knows modules will run.
 */
import type { Logger } from "../../system/logger.js";
import { discardPipes, preparePipes } from "./module-pipes.js";
import { type ModuleSpec, ModuleSession } from "./session.js";
import { TimerProcess } from "./timer-process.js";
import { ModuleWatchdog } from "./watchdog.js";

export class ModuleRuntime {
  private watchdog: ModuleWatchdog | undefined;
  private prepared = false;
  private readonly sessions = new Map<string, ModuleSession>();
  /** The longest time limit in use, for terminating. */
  private longestTimeoutMs = 0;

  /**
   * The module at `spec.path`, or a message when the path already ran with
   * another interpreter (cf-agent refuses that too).
   */
  session(spec: ModuleSpec, timeoutMs: number): ModuleSession | string {
    this.longestTimeoutMs = Math.max(this.longestTimeoutMs, timeoutMs);
    const existing = this.sessions.get(spec.path);
    if (existing && existing.spec.interpreter === spec.interpreter) return existing;
    if (existing?.everStarted) {
      const started = existing.spec.interpreter ?? "(null)";
      return `Conflicting interpreter specifications for custom promise module '${spec.path}' (started with '${started}' and '${spec.interpreter ?? "(null)"}' requested`;
    }
    // A module that never started may be tried with another interpreter.
    existing?.stop();
    const session = new ModuleSession(spec, () => this.moduleWatchdog());
    this.sessions.set(spec.path, session);
    return session;
  }

  /** Starts the module at `spec` ahead of its first promise (see early-start.ts). */
  startEarly(spec: ModuleSpec): void {
    const session = this.session(spec, 0);
    if (typeof session !== "string") session.startEarly();
  }

  /** Terminates every module and ends the watchdog. */
  shutdown(log: Logger): void {
    this.terminate(log);
    this.awaitExits();
  }

  /**
   * Says `terminate` to every module and ends its input, without waiting
   * for it to exit: the run finishes its work meanwhile, then calls
   * `awaitExits` (which `shutdown` does at once).
   */
  terminate(log: Logger): void {
    for (const session of this.sessions.values()) session.terminate(this.longestTimeoutMs, log, false);
  }

  /** Waits for the terminated modules to exit (killing any that lingers), then ends the watchdog. */
  awaitExits(): void {
    for (const session of this.sessions.values()) session.awaitExit();
    this.sessions.clear();
    this.watchdog?.shutdown();
    this.watchdog = undefined;
    discardPipes();
  }

  /**
   * Starts the watchdog's timer process, which first makes FIFOs for
   * `modules` modules, in the background, so that modules start without
   * waiting for them. Once per run; nothing for no modules.
   */
  prepare(modules: number): void {
    if (modules === 0 || this.prepared) return;
    this.prepared = true;
    preparePipes(modules, (paths) => {
      if (this.watchdog) return undefined;
      const timer = TimerProcess.start(paths);
      this.watchdog = new ModuleWatchdog(timer);
      return timer;
    });
  }

  private moduleWatchdog(): ModuleWatchdog {
    this.watchdog ??= new ModuleWatchdog(TimerProcess.start());
    return this.watchdog;
  }
}
