/**
 * Package module promises under `--simulate`, as 3.21: nothing is asked
 * of the module that would change the system; each operation the promise
 * would make (install, remove) or found needless (present, absent) is
 * appended to `pkgs_ops` in the changes chroot, a CSV line of operation,
 * name, version and architecture, for the audit at the end of the run
 * (simulate-audit.ts).
 */
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import type { Outcome } from "../outcome.js";
import { formatCsvField } from "../../providers/packages/inventory.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import { makingChanges } from "../edit/common.js";
import { logPromiseContext } from "../promise-context.js";
import { asText } from "../values.js";
import { makeDirectoriesSync } from "../../system/make-directories.js";

export type PackageOperation = "present" | "absent" | "install" | "remove";

const CODES: Readonly<Record<PackageOperation, string>> = {
  present: "p",
  absent: "a",
  install: "i",
  remove: "r",
};

/** The record file of a chroot. */
export function operationsFile(chrootRoot: string): string {
  return join(chrootRoot, "pkgs_ops");
}

/** Records an operation when the run simulates (nothing happens otherwise). */
export function recordOperation(
  env: PromiseEnvironment,
  operation: PackageOperation,
  name: string,
  version?: string,
  arch?: string,
): void {
  const chroot = env.changesChroot;
  if (!chroot) return;
  const line = [CODES[operation], name, version ?? "", arch ?? ""].map(formatCsvField).join(",");
  try {
    makeDirectoriesSync(chroot.root);
    appendFileSync(operationsFile(chroot.root), `${line}\r\n`);
  } catch {
    env.log.error("Failed to open package operations record file '/pkgs_ops'");
  }
}

/**
 * 3.21's MakingChanges for package modules: with `action_policy => "warn"`
 * or in a dry run the change is only named ("Should ..."); undefined means
 * go ahead (under `--simulate`: record it), else the outcome to return.
 */
export function refuseChange(
  promise: ActivePromise,
  env: PromiseEnvironment,
  what: string,
): Outcome | undefined {
  const warnOnly = asText(promise.bodyValue("action", "action_policy")) === "warn";
  // Under --simulate the run is no dry run for package modules: operations are recorded instead.
  if (env.changesChroot && !warnOnly) return undefined;
  // 3.21 says where the promise is before saying what it should do.
  if (warnOnly || env.dryRun) logPromiseContext(promise, env);
  let outcome: Outcome = "warn";
  return makingChanges(promise, env, what, (o) => (outcome = o)) ? undefined : outcome;
}
