/**
 * Generated node reports for the hub's tests, fuzzer and benchmark: a
 * node report (src/reporting/report.ts) with `promises` results cycling
 * through kept, repaired and failed, and a Rudder-like report line for
 * each failure.
 */
import { randomUUID } from "node:crypto";
import type { NodeReport, PromiseOutcome, ReportedPromise } from "../../src/reporting/report.js";

const OUTCOMES: readonly PromiseOutcome[] = ["kept", "kept", "kept", "repaired", "failed"];

export interface GenerateOptions {
  readonly nodeId: string;
  readonly name?: string;
  readonly promises?: number;
  readonly ended?: Date;
  readonly runId?: string;
}

/** A fake key digest for node number `n` (tests that do not go through TLS). */
export function fakeNodeId(n: number): string {
  return `MD5=${n.toString(16).padStart(32, "0")}`;
}

export function generateReport(options: GenerateOptions): NodeReport {
  const count = options.promises ?? 10;
  const ended = options.ended ?? new Date();
  const started = new Date(ended.getTime() - 1500);
  const promises: ReportedPromise[] = [];
  for (let i = 0; i < count; i++) {
    const outcome = OUTCOMES[i % OUTCOMES.length] as PromiseOutcome;
    promises.push({
      bundle: `bundle_${i % 7}`,
      namespace: "default",
      type: i % 3 === 0 ? "files" : i % 3 === 1 ? "commands" : "packages",
      promiser: `/etc/tend/generated/file-${i}.conf`,
      handle: `h_${i}`,
      file: "/var/lib/tend/inputs/promises.cf",
      line: 10 + i,
      span: [100 + i * 40, 130 + i * 40],
      pass: 1,
      outcome,
      classes: outcome === "repaired" ? [`repaired_${i}`] : [],
      ...(outcome === "failed" ? { message: `could not converge file-${i}` } : {}),
    });
  }
  const failed = promises.filter((p) => p.outcome === "failed");
  return {
    version: 1,
    runId: options.runId ?? randomUUID(),
    node: {
      id: options.nodeId,
      name: options.name ?? `node-${options.nodeId.slice(-6)}`,
      addresses: ["192.0.2.10"],
    },
    frontEnd: "agent",
    started: started.toISOString(),
    ended: ended.toISOString(),
    policyRelease: "0123456789abcdef0123456789abcdef01234567",
    run: {
      version: 1,
      policy: "/var/lib/tend/inputs/promises.cf",
      exitCode: 0,
      outcome: failed.length > 0 ? "failed" : "repaired",
      diagnostics: [],
      promises,
      classes: ["any", "linux"],
    },
    lines: failed.map(
      (p) => `R: @@tend@@result_error@@rule@@directive@@${p.handle}@@File@@${p.promiser}@@0##node@#failed`,
    ),
  };
}
