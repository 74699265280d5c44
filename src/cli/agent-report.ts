/**
 * `tend agent`'s side of reporting to the hub (src/reporting): whether it
 * is on (`--hub`, or `<workdir>/reporting.json`: one stat when neither is
 * there, the reporting code is not even loaded), and, at the end of the
 * run, the run report spooled and the spool sent. A failure is logged;
 * it never changes the run's exit code.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { AgentResult } from "../agent/run.js";
import type { Logger } from "../system/logger.js";
import type { ReportingSettings } from "../reporting/settings.js";
import type { RunReport } from "../reporting/report.js";

export interface AgentReporting {
  readonly settings: ReportingSettings;
  readonly started: Date;
  /** The run's report lines (`R: …`), as printed. */
  readonly lines: string[];
}

/** The reporting of this run, undefined when it is off (or misconfigured: said on `warn`). */
export async function startReporting(
  workdir: string,
  hubOption: string | undefined,
  warn: (text: string) => void,
): Promise<AgentReporting | undefined> {
  if (hubOption === undefined && !existsSync(join(workdir, "reporting.json"))) return undefined;
  const { readReportingSettings } = await import("../reporting/settings.js");
  const settings = readReportingSettings(workdir, hubOption);
  if (settings === undefined) return undefined;
  if ("error" in settings) {
    warn(`run reports are not sent: ${settings.error}`);
    return undefined;
  }
  return { settings, started: new Date(), lines: [] };
}

/** The release id cf-promises left next to the policy (cf_promises_release_id), if any. */
function policyRelease(file: string): string | null {
  try {
    const parsed = JSON.parse(readFileSync(join(dirname(file), "cf_promises_release_id"), "utf8")) as {
      releaseId?: unknown;
    };
    return typeof parsed.releaseId === "string" ? parsed.releaseId.slice(0, 255) : null;
  } catch {
    return null;
  }
}

/** Spools this run's report and sends the spool. */
export async function finishReporting(
  reporting: AgentReporting,
  workdir: string,
  file: string,
  run: RunReport,
  logger: Logger,
): Promise<void> {
  await finishFrontEndReporting(reporting, workdir, "agent", run, policyRelease(file), logger);
}

/** The same for any front end ("agent", "recipes", "puppet"). */
export async function finishFrontEndReporting(
  reporting: AgentReporting,
  workdir: string,
  frontEnd: string,
  run: RunReport,
  release: string | null,
  logger: Logger,
): Promise<void> {
  const { reportRun } = await import("../reporting/node.js");
  await reportRun(
    workdir,
    reporting.settings,
    {
      frontEnd,
      started: reporting.started,
      ended: new Date(),
      policyRelease: release,
      run,
      lines: reporting.lines,
    },
    logger,
  );
}

export type { AgentResult };
