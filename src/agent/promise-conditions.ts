/**
 * The exclusions of one iteration of a promise, in 3.21's order
 * (`ExpandDeRefPromise`): a quoted class guard, `ifvarclass` and `if` must
 * hold, `unless` must not, and every `depends_on` handle must have been
 * kept or repaired. Each skip is logged (verbose) as 3.21 words it. Shared
 * by the engine's run and the load-time expansion (load-expansion.ts).
 */
import type { EvalContext } from "../eval/context.js";
import { expandString } from "../eval/expand.js";
import { isScalar } from "../eval/values.js";
import { asStrings, isUnresolved } from "../promises/values.js";
import type { ActivePromiseImpl } from "./active-promise.js";
import type { Logger } from "../system/logger.js";
import { rvalText } from "../promises/ornaments.js";

/** The attributes that must hold for a promise to act (`unless` is checked apart). */
const IF_ATTRIBUTES: readonly string[] = ["ifvarclass", "if"];

export interface ConditionState {
  /** The last pass: an `unless` that cannot be evaluated no longer skips. */
  readonly lastPass: boolean;
  /** Whether the promise of a handle has been kept or repaired. */
  readonly dependencyDone: (handle: string) => boolean;
}

/** `if`/`ifvarclass` must hold, `unless` must not, dependencies must be done. */
export function conditionsHold(
  ctx: EvalContext,
  log: Logger,
  promise: ActivePromiseImpl,
  state: ConditionState,
): boolean {
  const varClass = promise.deref.varClass;
  if (varClass !== undefined) {
    const expression = expandString(ctx, varClass, promise.options);
    if (isUnresolved(expression) || !ctx.checkExpression(expression)) {
      log.verbose(
        `Skipping promise '${promise.node.promiser.value}' because constraint 'ifvarclass => ${varClass}' is not met`,
      );
      return false;
    }
  }
  for (const name of IF_ATTRIBUTES) {
    if (promise.raw(name) !== undefined && condition(ctx, promise, name) !== true) {
      logSkip(log, promise, name);
      return false;
    }
  }
  const unless = promise.raw("unless");
  if (unless !== undefined) {
    const value = condition(ctx, promise, "unless");
    // An unresolvable `unless` skips, except in the last pass (where `if` would skip).
    if (value === undefined && state.lastPass) {
      log.verbose(
        `Not skipping ${promise.type} promise '${promise.node.promiser.value}' with constraint 'unless => ${rvalText(unless)}' in last evaluation pass (since if would skip)`,
      );
    } else if (value !== false) {
      logSkip(log, promise, "unless");
      return false;
    }
  }
  const depends = promise.raw("depends_on");
  if (depends) {
    const missing = asStrings(promise.value("depends_on")).find((h) => !state.dependencyDone(h));
    if (missing !== undefined) {
      log.verbose(
        `Skipping promise '${promise.node.promiser.value}', as promise dependency '${missing}' has not yet been kept`,
      );
      return false;
    }
  }
  return true;
}

function logSkip(log: Logger, promise: ActivePromiseImpl, name: string): void {
  if (!log.wouldLog("verbose")) return;
  const rval = promise.raw(name);
  log.verbose(
    `Skipping promise '${promise.node.promiser.value}' because constraint '${name} => ${rval ? rvalText(rval) : ""}' is not met`,
  );
}

function condition(ctx: EvalContext, promise: ActivePromiseImpl, name: string): boolean | undefined {
  const value = promise.value(name);
  if (!value || !isScalar(value) || isUnresolved(value.value)) return undefined;
  return ctx.classExpressionValue(value.value);
}
