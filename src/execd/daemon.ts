/**
 * cf-execd 3.21's main loop: at each pulse, reload the policy when it
 * changed, rediscover the time classes of now, and when a schedule entry
 * holds, wait the splay time and start the agent (without waiting for it:
 * the next pulse comes on time, as 3.21's runs in a thread). The clock and
 * the sleeps are injectable, so tests need not wait for real minutes.
 */
import type { Logger } from "../system/logger.js";
import { type ExecutorControl, defaultExecCommand } from "./control.js";
import { type LoadedExecdPolicy, loadExecdPolicy, policyStamp } from "./policy.js";
import { type RunResult, ctimeText, runAgent } from "./runner.js";
import { getHostFacts } from "../eval/host.js";
import { PULSE_SECONDS, scheduleClasses, scheduledBy } from "./schedule.js";

export interface ExecutorOptions {
  /** The entry file (a bare name is taken in the input directory). */
  readonly file: string;
  readonly workdir: string;
  readonly inputDir?: string;
  readonly logger: Logger;
  readonly defines?: readonly string[];
  readonly negates?: readonly string[];
  /** Extra classes the schedule sees (the run's mode classes). */
  readonly modeClasses?: readonly string[];
  /** How to run tend (`[node, script]`), for the default exec_command. */
  readonly tendCommand: readonly string[];
  /** `sys.fqhost` for the output files' names (the host's, by default). */
  readonly fqname?: string;
  /** The clock (tests). */
  readonly clock?: () => Date;
  /** Sleeps `ms`, or less when `wake` is signalled (tests replace it). */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** agent_expireafter in milliseconds instead of the policy's minutes (tests). */
  readonly expireAfterMs?: number;
  readonly killGraceMs?: readonly [number, number];
  readonly maxOutputs?: number;
  readonly env?: NodeJS.ProcessEnv;
  /** The SMTP port (25; tests). */
  readonly smtpPort?: number;
  /**
   * Called with each policy accepted, at start and at each reload (where
   * cf-execd 3.21 applies `executorfacility`, LOG_USER when absent).
   */
  readonly onControl?: (control: ExecutorControl) => void;
}

/** `sys.fqhost`, as the evaluation computes it. */
function hostFqname(): string {
  return getHostFacts().fqhost;
}

function realSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done);
  });
}

export class Executor {
  private control: ExecutorControl | undefined;
  private sources: readonly string[] = [];
  private stamp = "";
  private ipAddress = "";
  private runCommand: string | undefined;
  private reloadRequested = false;
  private readonly stopper = new AbortController();
  private readonly runs = new Set<Promise<RunResult | undefined>>();
  /** Every finished run, oldest first (tests and the CLI's --once read it). */
  readonly results: RunResult[] = [];

  constructor(private readonly options: ExecutorOptions) {}

  get executorControl(): ExecutorControl | undefined {
    return this.control;
  }

  private now(): Date {
    return this.options.clock ? this.options.clock() : new Date();
  }

  private load(): LoadedExecdPolicy {
    const { options } = this;
    return loadExecdPolicy({
      file: options.file,
      workdir: options.workdir,
      inputDir: options.inputDir,
      logger: options.logger,
      defines: options.defines,
      negates: options.negates,
    });
  }

  /** Loads the policy; the diagnostics when it is not valid. */
  start(): LoadedExecdPolicy {
    const loaded = this.load();
    if (loaded.ok) this.accept(loaded);
    return loaded;
  }

  private accept(loaded: Extract<LoadedExecdPolicy, { ok: true }>): void {
    this.control = loaded.control;
    this.sources = loaded.sources;
    this.ipAddress = loaded.ipAddress;
    this.runCommand = loaded.localRunCommand;
    this.stamp = policyStamp(loaded.sources);
    this.options.logger.verbose(`SET Syslog FACILITY = ${loaded.control.executorFacility}`);
    this.options.onControl?.(loaded.control);
  }

  /** `cfruncommand` of the policy last read, for local runagent requests. */
  get localRunCommand(): string | undefined {
    return this.runCommand;
  }

  /** Asks for a reload at the next pulse (SIGHUP). */
  requestReload(): void {
    this.reloadRequested = true;
  }

  /** Stops the loop at its next step; runs under way go on. */
  stop(): void {
    this.stopper.abort();
  }

  get stopped(): boolean {
    return this.stopper.signal.aborted;
  }

  /** Waits for every run under way. */
  async idle(): Promise<void> {
    while (this.runs.size > 0) await Promise.all([...this.runs]);
  }

  /** CheckNewPromises: reload when the policy files changed or a reload was asked for. */
  private checkNewPromises(): void {
    const { logger } = this.options;
    const stamp = policyStamp(this.sources);
    let reload = false;
    if (stamp !== this.stamp) {
      logger.verbose("New promises detected...");
      reload = true;
    }
    if (this.reloadRequested) {
      logger.verbose("Force reload of inputs files...");
      reload = true;
    }
    if (!reload) {
      logger.debug("No new promises found");
      return;
    }
    this.reloadRequested = false;
    this.stamp = stamp;
    const loaded = this.load();
    if (!loaded.ok) {
      logger.info("New promises file contains syntax errors -- ignoring");
      return;
    }
    logger.info(`Re-reading promise file '${this.options.file}'`);
    this.accept(loaded);
  }

  /** ScheduleRun: whether the agent runs at this pulse. */
  scheduleRun(): boolean {
    this.checkNewPromises();
    const control = this.control;
    if (!control) return false;
    const now = this.now();
    const classes = scheduleClasses(now, [
      ...(this.options.defines ?? []),
      ...(this.options.modeClasses ?? []),
    ]);
    const by = scheduledBy(control.schedule, classes);
    if (by !== undefined) {
      this.options.logger.verbose(`Waking up the agent at ${ctimeText(now)} ~ ${by}`);
      return true;
    }
    this.options.logger.verbose(`Nothing to do at ${ctimeText(now)}`);
    return false;
  }

  /** The command of a run: exec_command, or the default one. */
  command(scheduled: boolean): string {
    const control = this.control;
    if (control && control.execCommand !== "") return control.execCommand;
    return defaultExecCommand(this.options.tendCommand, this.options.workdir, scheduled);
  }

  /** Starts one run; the promise settles when it ends. */
  runOnce(scheduled: boolean): Promise<RunResult | undefined> {
    const control = this.control;
    if (!control) return Promise.resolve(undefined);
    const { options } = this;
    const start = this.now();
    // Started on the next turn, as 3.21's forked child: the pulse's own lines come first.
    const run = Promise.resolve()
      .then(() =>
        runAgent({
          control,
          command: this.command(scheduled),
          workdir: options.workdir,
          fqname: options.fqname ?? hostFqname(),
          logger: options.logger,
          scheduled,
          now: start,
          expireAfterMs: options.expireAfterMs,
          killGraceMs: options.killGraceMs,
          maxOutputs: options.maxOutputs,
          env: options.env,
          ipAddress: this.ipAddress,
          ipAddresses: this.ipAddress,
          smtpPort: options.smtpPort,
        }),
      )
      .then((result) => {
        this.results.push(result);
        return result;
      })
      .catch((error: unknown) => {
        options.logger.error(`Agent run failed: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      })
      .finally(() => this.runs.delete(run));
    this.runs.add(run);
    return run;
  }

  /** The main loop, until `stop()`. */
  async loop(): Promise<void> {
    const { logger } = this.options;
    const sleep = this.options.sleep ?? realSleep;
    const signal = this.stopper.signal;
    while (!this.stopped) {
      if (this.scheduleRun()) {
        const splay = this.control?.splaySeconds ?? 0;
        logger.verbose(`Sleeping for splay time ${splay} seconds`);
        if (splay > 0) await sleep(splay * 1000, signal);
        if (this.stopped) break;
        logger.verbose("Forking for exec_command execution");
        void this.runOnce(true).then(() =>
          logger.verbose("Finished exec_command execution, terminating the forked process"),
        );
      }
      if (this.stopped) break;
      logger.verbose(`Sleeping for pulse time ${PULSE_SECONDS} seconds`);
      await sleep(PULSE_SECONDS * 1000, signal);
    }
  }
}
