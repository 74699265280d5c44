/**
 * The monitor daemon: loads the policy as cf-monitord 3.21 does (common
 * bundles evaluated by the loader, `body monitor control` read), takes the
 * first sample at once and then one every 2.5 minutes until stopped. The
 * clock and the timer are injectable so tests need not wait.
 */
import type { Diagnostic } from "../language/diagnostics.js";
import { DEFAULT_NAMESPACE, type EvalContext } from "../eval/context.js";
import { isScalar } from "../eval/values.js";
import { loadCheckedPolicy } from "../loader/checked.js";
import type { Logger } from "../system/logger.js";
import { bundleThisVars, resolveSections } from "../eval/resolve.js";
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
  readonly monitorFacility: string;
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
    monitorFacility: text("monitorfacility") ?? "LOG_USER",
  };
}

export interface LoadedMonitorPolicy {
  readonly control: MonitorControl;
  readonly ctx: EvalContext;
  readonly measurements: readonly Measurement[];
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
  // The monitor bundles' vars and classes, once (common bundles the loader evaluated).
  for (const { bundle, path } of bundles) {
    if (bundle.type.text !== "monitor" || (bundle.params?.length ?? 0) > 0) continue;
    ctx.pushFrame(bundle.namespace, bundle.name.text, bundleThisVars(path));
    try {
      resolveSections(ctx, bundle, "vars", {}, path);
      resolveSections(ctx, bundle, "classes", {}, path);
    } finally {
      ctx.popFrame();
    }
  }
  const index = new PolicyIndex(loaded.set, entry);
  const measurements = collectMeasurements(ctx, bundles, index, logger);
  return { control: readMonitorControl(ctx, logger), ctx, measurements };
}

export interface RunningMonitor {
  stop(): void;
}

/** Starts the daemon: the first sample now, then one per period. */
export async function startMonitor(options: MonitorDaemonOptions): Promise<RunningMonitor> {
  const { control, measurements } = await loadMonitorPolicy(options);
  const now = options.now ?? (() => new Date());
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
    measure: (weekly, at) => keeper.keep(measurements, weekly, at),
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
