/**
 * The monitor daemon: loads the policy as cf-monitord 3.21 does (common
 * bundles evaluated by the loader, `body monitor control` read), takes the
 * first sample at once and then one every 2.5 minutes until stopped. The
 * clock and the timer are injectable so tests need not wait.
 */
import type { Diagnostic } from "../language/diagnostics.js";
import { DEFAULT_NAMESPACE, type EvalContext } from "../eval/context.js";
import { timeClassesAt } from "../eval/hard-classes.js";
import { isScalar } from "../eval/values.js";
import { loadCheckedPolicy } from "../loader/checked.js";
import type { Logger } from "../system/logger.js";
import { resolveSections } from "../eval/resolve.js";
import { PolicyIndex } from "../promises/policy-index.js";
import {
  type BundleSource,
  collectMeasurements,
  type Measurement,
  MeasurementKeeper,
} from "./measurements.js";
import { Monitor, SAMPLE_PERIOD_MS } from "./monitor.js";
import { LINUX_ROOTS, type ProbeRoots } from "./probes.js";

export interface MonitorDaemonOptions {
  readonly file: string;
  readonly workdir: string;
  readonly inputdir: string;
  readonly statedir: string;
  readonly logger: Logger;
  readonly defines?: readonly string[];
  readonly negates?: readonly string[];
  /** Take one sample and return. */
  readonly once?: boolean;
  readonly roots?: ProbeRoots;
  readonly now?: () => Date;
  readonly random?: () => number;
  /**
   * Called once `body monitor control` is read, before the first sample
   * (where cf-monitord's KeepControlPromises applies `monitorfacility`).
   */
  readonly onControl?: (control: MonitorControl) => void;
  /** Runs `take` every `ms` (setInterval by default); tests drive it by hand. */
  readonly every?: (take: () => void, ms: number) => () => void;
}

export class MonitorStartError extends Error {
  constructor(
    readonly messages: readonly string[],
    readonly diagnostics: readonly Diagnostic[] = [],
  ) {
    super(messages.join("; "));
  }
}

export interface MonitorControl {
  /** forgetrate: 0.6 unless the policy says otherwise (cf-monitord sets 0.6 at start). */
  readonly forgetRate: number;
  readonly histograms: boolean;
  readonly tcpdump: boolean;
  /** `monitorfacility`; undefined when absent (the facility in use stays). */
  readonly monitorFacility: string | undefined;
}

/** Reads `body monitor control` after the loader resolved it. */
export function readMonitorControl(ctx: EvalContext, log: Logger): MonitorControl {
  const text = (name: string): string | undefined => {
    const value = ctx.getVariable({ ns: DEFAULT_NAMESPACE, scope: "control_monitor", name, indices: [] });
    return value && isScalar(value) ? value.value : undefined;
  };
  const truth = (t: string | undefined) => t !== undefined && ["true", "yes", "on"].includes(t.toLowerCase());
  let forgetRate = 0.6;
  const rate = text("forgetrate");
  if (rate !== undefined) {
    const n = Number(rate);
    if (Number.isFinite(n)) forgetRate = n;
    else log.error(`forgetrate '${rate}' is not a real number; keeping 0.6`);
  }
  return {
    forgetRate,
    histograms: truth(text("histograms")),
    tcpdump: truth(text("tcpdump")),
    monitorFacility: text("monitorfacility"),
  };
}

export interface LoadedMonitorPolicy {
  readonly control: MonitorControl;
  readonly ctx: EvalContext;
  /**
   * The measurements promised at a moment. Each sample evaluates the monitor
   * bundles again, as cf-monitord 3.21 does, so classes that come and go
   * (time classes, classes promised on what the host shows) decide which
   * measurements are taken. 3.21 then also forgets every variable a policy
   * defined, so that promises using one go unexpanded from the second sample
   * on; tend keeps them evaluated instead.
   */
  measurementsAt(now: Date): Measurement[];
}

/** Loads and checks the policy; throws MonitorStartError with the problems. */
export async function loadMonitorPolicy(options: MonitorDaemonOptions): Promise<LoadedMonitorPolicy> {
  const { logger } = options;
  const checked = loadCheckedPolicy({
    file: options.file,
    inputDir: options.inputdir,
    workdir: options.workdir,
    program: "monitor",
    logger,
    defines: options.defines,
    negates: options.negates,
  });
  if (!checked.ok)
    throw new MonitorStartError(["Error reading CFEngine policy. Exiting..."], checked.diagnostics);
  const { loaded, files, entry } = checked;
  const ctx = loaded.context;
  const bundles: BundleSource[] = [];
  for (const file of files)
    for (const block of file.policy.blocks)
      if (block.kind === "bundle") bundles.push({ bundle: block, path: file.path });
  const index = new PolicyIndex(loaded.set, entry);
  // What the loader defined; what the monitor bundles define is forgotten
  // before each sample, as 3.21 clears its context, and promised again.
  const loadedClasses = new Set(ctx.listClasses());
  const measurementsAt = (now: Date): Measurement[] => {
    for (const name of ctx.listClasses())
      if (!loadedClasses.has(name) && !ctx.isHardClass(name)) ctx.undefineClass(name);
    ctx.functionCache.clear();
    const time = timeClassesAt(now);
    ctx.replaceTimeClasses(time.classes, time.tags);
    // The monitor bundles' vars and classes in each bundle's frame, where its
    // measurements see its bundle-scoped classes (common bundles the loader evaluated).
    return collectMeasurements(ctx, bundles, index, logger, ({ bundle, path }) => {
      if (bundle.type.text !== "monitor") return;
      resolveSections(ctx, bundle, "vars", {}, path);
      resolveSections(ctx, bundle, "classes", {}, path);
    });
  };
  return { control: readMonitorControl(ctx, logger), ctx, measurementsAt };
}

export interface RunningMonitor {
  stop(): void;
}

/** Starts the daemon: the first sample now, then one per period. */
export async function startMonitor(options: MonitorDaemonOptions): Promise<RunningMonitor> {
  const { control, measurementsAt } = await loadMonitorPolicy(options);
  options.onControl?.(control);
  const now = options.now ?? (() => new Date());
  const measurements = measurementsAt(now());
  const keeper = new MeasurementKeeper(options.statedir, options.logger);
  const monitor = new Monitor({
    statedir: options.statedir,
    roots: options.roots ?? LINUX_ROOTS,
    forgetRate: control.forgetRate,
    random: options.random,
    logger: options.logger,
    weekly: measurements
      .filter((m) => m.historyType === "weekly" && m.dataType !== "string" && m.dataType !== "slist")
      .map((m) => m.handle),
    measure: (weekly, at) => keeper.keep(measurementsAt(at), weekly, at),
  });
  const take = () => {
    try {
      const result = monitor.sampleOnce(now());
      options.logger.verbose(`Published ${result.lines.length} lines in env_data`);
    } catch (error) {
      options.logger.error(
        `Could not take a sample: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };
  take();
  if (options.once) return { stop: () => {} };
  const every =
    options.every ??
    ((fn: () => void, ms: number) => {
      const timer = setInterval(fn, ms);
      return () => clearInterval(timer);
    });
  return { stop: every(take, SAMPLE_PERIOD_MS) };
}
