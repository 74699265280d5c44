/**
 * The catalog applier's run report (src/catalog/report.ts, Puppet's shape)
 * as the run report the hub takes (src/reporting/report.ts), so that the
 * front ends on the shared applier (`tend converge`, `tend puppet apply`)
 * report to the hub as `tend agent` does. One resource is one promise:
 * its type (lower case), its title as promiser, `Type[title]` as handle,
 * the class or recipe containing it as bundle; failed is failed, changed
 * is repaired, a noop change pending is warn, anything else kept.
 */
import type { RunReport as CatalogRunReport, ResourceStatus } from "../catalog/report.js";
import type { PromiseOutcome, ReportedPromise, RunReport } from "../reporting/report.js";

function outcomeOf(status: ResourceStatus): PromiseOutcome {
  if (status.failed || status.failed_to_restart) return "failed";
  if (status.changed) return "repaired";
  if (status.out_of_sync) return "warn";
  return "kept";
}

function messageOf(status: ResourceStatus): string | undefined {
  const wanted = status.failed ? "failure" : status.out_of_sync && !status.changed ? "noop" : undefined;
  const messages = wanted ? status.events.filter((e) => e.status === wanted).map((e) => e.message) : [];
  if (messages.length > 0) return messages.join("\n");
  return status.skip_reason;
}

export function catalogRunReport(report: CatalogRunReport, policy: string, exitCode: number): RunReport {
  const promises: ReportedPromise[] = Object.values(report.resource_statuses).map((status) => {
    const message = messageOf(status);
    const outcome = outcomeOf(status);
    return {
      bundle: status.containment_path.at(-2) ?? "",
      namespace: "",
      type: status.resource_type.toLowerCase(),
      promiser: status.title,
      handle: status.resource,
      file: status.file ?? "",
      line: status.line ?? 0,
      span: [0, 0],
      pass: 1,
      outcome,
      classes: [],
      ...(message === undefined ? {} : { message }),
    };
  });
  const outcome = report.status === "failed" ? "failed" : report.status === "changed" ? "repaired" : "kept";
  return {
    version: 1,
    policy,
    exitCode,
    outcome,
    diagnostics: report.failure ? [report.failure] : [],
    promises,
    classes: [],
  };
}
