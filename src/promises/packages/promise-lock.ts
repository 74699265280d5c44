/**
 * The lock of a packages promise, taken inside the promise as 3.21 does
 * (after its sanity check and banner): once per run, and without `-K`
 * only when `ifelapsed` minutes have passed since it last acted.
 */
import { parseCfInt } from "../../eval/numbers.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import type { RunSlot } from "../run-state.js";
import { asText } from "../values.js";

/** Promise locks taken in this run. */
const TAKEN: RunSlot<Set<string>> = { name: "packages promise locks", create: () => new Set() };

/** Whether the promise may act now; `operand` is what 3.21 names the lock after. */
export function acquirePromiseLock(
  promise: ActivePromise,
  env: PromiseEnvironment,
  operand: string,
): boolean {
  const key = `${promise.bundle.block.name.text}:${promise.handle}:${operand}`;
  const seen = env.runState.get(TAKEN);
  if (seen.has(key)) return false;
  seen.add(key);
  const own = parseCfInt(asText(promise.bodyValue("action", "ifelapsed")) ?? "");
  if (env.acquireLock?.(key, own ?? undefined) ?? true) return true;
  env.log.verbose(
    `Skipping promise '${promise.promiser}': it ran less than ${own ?? "ifelapsed"} minute(s) ago (ifelapsed)`,
  );
  return false;
}
