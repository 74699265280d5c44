/**
 * What a front end calls at the end of a run when reporting is on
 * (settings.ts): the run becomes a node report with a new run id, goes to
 * the spool, and the spool is sent to the hub, oldest first. Nothing here
 * throws or changes the run's outcome: a failure is logged and the report
 * stays in the spool for the next run.
 */
import { hostname, networkInterfaces } from "node:os";
import { join } from "node:path";
import { keyDigest, readKeyPair } from "../net/keys.js";
import type { Logger } from "../system/logger.js";
import { randomUuid } from "../system/uuid.js";
import { NODE_REPORT_VERSION, type NodeReport, type RunReport } from "./report.js";
import { type SendSummary, sendSpooled } from "./send.js";
import type { ReportingSettings } from "./settings.js";
import { spoolPaths, spoolReport } from "./spool.js";

export interface FinishedRun {
  /** "agent", "puppet", "recipes". */
  readonly frontEnd: string;
  readonly started: Date;
  readonly ended: Date;
  readonly policyRelease: string | null;
  readonly run: RunReport;
  /** The run's report lines as printed (`R: …`). */
  readonly lines: readonly string[];
}

/** This host's non-loopback addresses. */
export function hostAddresses(): string[] {
  const out: string[] = [];
  for (const list of Object.values(networkInterfaces()))
    for (const address of list ?? []) if (!address.internal) out.push(address.address);
  return out.slice(0, 64);
}

/** Spools the run's report and sends the spool; returns what was sent, or undefined when nothing could be. */
export async function reportRun(
  workdir: string,
  settings: ReportingSettings,
  finished: FinishedRun,
  logger: Logger,
): Promise<SendSummary | undefined> {
  try {
    const ppkeys = join(workdir, "ppkeys");
    const pair = readKeyPair(ppkeys);
    if (!pair) {
      logger.warning(`No run report sent: this host has no key pair in ${ppkeys} (make one with tend key)`);
      return undefined;
    }
    const report: NodeReport = {
      version: NODE_REPORT_VERSION,
      runId: randomUuid(),
      node: { id: keyDigest(pair.publicKey), name: hostname(), addresses: hostAddresses() },
      frontEnd: finished.frontEnd,
      started: finished.started.toISOString(),
      ended: finished.ended.toISOString(),
      policyRelease: finished.policyRelease,
      run: finished.run,
      lines: finished.lines,
    };
    const paths = spoolPaths(workdir);
    spoolReport(paths.spool, report, settings, logger);
    return await sendSpooled(
      paths,
      {
        hub: settings.hub,
        pair,
        ppkeys,
        trustHubKey: settings.trustHubKey,
        timeoutMs: settings.timeoutMs,
        maxSends: settings.maxSendsPerRun,
        keepRefused: settings.maxReports,
      },
      logger,
    );
  } catch (error) {
    logger.error(`Run report not spooled or sent: ${(error as Error).message}`);
    return undefined;
  }
}
