/**
 * Which configuration a node's last run is judged against, as Rudder's
 * `ExecutionBatch.computeNodesRunInfo` decides for one node: the run's
 * config id against the current one, the time a run stays valid (run
 * interval plus five minutes, times the heartbeat in changes-only mode),
 * pending while a new configuration may not have run yet. Times are
 * milliseconds since the epoch.
 */
import type { NodeExpectedReports } from "./expected.js";

const MINUTE = 60_000;
/** Rudder's grace period after a run interval (`GRACE_TIME_PENDING`). */
export const GRACE_TIME_PENDING = 5 * MINUTE;

/** A configuration's id and validity span (Rudder's `NodeConfigIdInfo`). */
export interface ConfigIdInfo {
  readonly configId: string;
  readonly creation: number;
  readonly endOfLife?: number;
}

/** The node's last run: its start time and config id, and that config if known. */
export interface LastRun {
  readonly time: number;
  readonly configId?: string;
  readonly config?: NodeExpectedReports;
}

export type RunAnalysis =
  | { readonly kind: "NoRunNoExpectedReport" }
  | { readonly kind: "NoExpectedReport"; readonly runTime: number; readonly configId?: string }
  | {
      readonly kind: "ReportsDisabledInInterval" | "NoReportInInterval";
      readonly expected: NodeExpectedReports;
      readonly expiration: number;
    }
  | {
      readonly kind: "Pending";
      readonly expected: NodeExpectedReports;
      readonly lastRun?: { readonly time: number; readonly config: NodeExpectedReports };
      readonly expiration: number;
    }
  | {
      readonly kind: "UnexpectedVersion";
      readonly runTime: number;
      readonly runConfig: NodeExpectedReports;
      readonly expected: NodeExpectedReports;
      readonly expiration: number;
    }
  | {
      readonly kind: "UnexpectedNoVersion" | "UnexpectedUnknownVersion";
      readonly runTime: number;
      readonly runConfigId: string;
      readonly expected: NodeExpectedReports;
      readonly expiration: number;
    }
  | {
      readonly kind: "ComputeCompliance";
      readonly runTime: number;
      readonly expected: NodeExpectedReports;
      readonly expiration: number;
    };

export type RunAnalysisKind = RunAnalysis["kind"];

/** The node's run interval (ms) and heartbeat; the root server always runs every five minutes. */
function agentRun(config: NodeExpectedReports): { interval: number; heartbeat: number } {
  if (config.nodeId === "root") return { interval: 5 * MINUTE, heartbeat: 1 };
  return { interval: config.modes.runInterval * MINUTE, heartbeat: config.modes.heartbeatPeriod };
}

/** How long a run stays valid after a configuration change. */
function updateValidity(config: NodeExpectedReports): number {
  return agentRun(config).interval + GRACE_TIME_PENDING;
}

/** How long a run stays valid in the steady state. */
function runValidity(config: NodeExpectedReports): number {
  const run = agentRun(config);
  if (config.modes.complianceMode === "changes-only")
    return run.interval * run.heartbeat + GRACE_TIME_PENDING;
  return updateValidity(config);
}

/** When a configuration began, ms (0 when the expected reports do not say). */
export function beginOf(config: NodeExpectedReports): number {
  return config.beginDate === undefined ? 0 : Date.parse(config.beginDate);
}

function endOf(config: NodeExpectedReports): number | undefined {
  return config.endDate === undefined ? undefined : Date.parse(config.endDate);
}

function withoutRun(current: NodeExpectedReports | undefined, now: number): RunAnalysis {
  if (!current) return { kind: "NoRunNoExpectedReport" };
  const expiration = now + runValidity(current);
  if (current.modes.complianceMode === "reports-disabled")
    return { kind: "ReportsDisabledInInterval", expected: current, expiration };
  const expire = beginOf(current) + updateValidity(current);
  if (expire < now) return { kind: "NoReportInInterval", expected: current, expiration };
  return { kind: "Pending", expected: current, expiration: expire };
}

function runWithoutConfigId(
  run: LastRun,
  current: NodeExpectedReports,
  known: readonly ConfigIdInfo[] | undefined,
  now: number,
): RunAnalysis {
  const infos =
    known && known.length > 0 ? known : [{ configId: current.configId, creation: beginOf(current) }];
  const oldest = infos.reduce((a, b) => (b.creation < a.creation ? b : a));
  const oldestExpiration = oldest.creation + updateValidity(current);
  const expiration = now + runValidity(current);
  if (oldestExpiration < run.time)
    return {
      kind: "UnexpectedNoVersion",
      runTime: run.time,
      runConfigId: oldest.configId,
      expected: current,
      expiration,
    };
  const configExpiration = beginOf(current) + updateValidity(current);
  if (configExpiration < run.time) return { kind: "NoReportInInterval", expected: current, expiration };
  return { kind: "Pending", expected: current, expiration: configExpiration };
}

function runWithKnownConfig(
  run: LastRun & { configId: string; config: NodeExpectedReports },
  current: NodeExpectedReports,
  now: number,
): RunAnalysis {
  const eol = endOf(run.config);
  if (eol === undefined) {
    const expiration = run.time + runValidity(current);
    if (expiration < now) return { kind: "NoReportInInterval", expected: current, expiration };
    if (run.config.configId !== current.configId)
      return {
        kind: "Pending",
        expected: current,
        lastRun: { time: run.time, config: run.config },
        expiration,
      };
    return { kind: "ComputeCompliance", runTime: run.time, expected: current, expiration };
  }
  const eolExpiration = eol + updateValidity(run.config);
  const configExpiration = beginOf(current) + updateValidity(current);
  if (eolExpiration < run.time)
    return {
      kind: "UnexpectedVersion",
      runTime: run.time,
      runConfig: run.config,
      expected: current,
      expiration: run.time + runValidity(current),
    };
  if (configExpiration < now)
    return { kind: "NoReportInInterval", expected: current, expiration: configExpiration };
  return {
    kind: "Pending",
    expected: current,
    lastRun: { time: run.time, config: run.config },
    expiration: configExpiration,
  };
}

/**
 * What to compare a node's last run with: the run (if any), the node's
 * current expected reports (if any), the config ids the server knows for
 * it (only used when the run has no config id), and the time it is now.
 */
export function analyseRun(
  run: LastRun | undefined,
  current: NodeExpectedReports | undefined,
  now: number,
  known?: readonly ConfigIdInfo[],
): RunAnalysis {
  if (!run) return withoutRun(current, now);
  if (!current) return { kind: "NoExpectedReport", runTime: run.time };
  if (run.configId === undefined) return runWithoutConfigId(run, current, known, now);
  if (!run.config) {
    const expiration = run.time + runValidity(current);
    if (expiration < now) return { kind: "NoReportInInterval", expected: current, expiration };
    return {
      kind: "UnexpectedUnknownVersion",
      runTime: run.time,
      runConfigId: run.configId,
      expected: current,
      expiration: now + runValidity(current),
    };
  }
  return runWithKnownConfig({ ...run, configId: run.configId, config: run.config }, current, now);
}
