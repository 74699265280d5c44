/**
 * `classes` promises: define a class when its condition holds. The rules
 * (conditions, scope, persistence, canonification) are 3.21's, shared with
 * pre-evaluation in `eval/class-promise.ts`.
 */
import type { Outcome } from "../agent/outcome.js";
import { expandRval } from "../eval/expand.js";
import { verifyClassPromise } from "../eval/class-promise.js";
import { asStrings } from "./values.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "./contract.js";

function evaluateClass(promise: ActivePromise, env: PromiseEnvironment): Outcome {
  const { ctx } = env;
  const meta = promise.raw("meta") ? asStrings(promise.value("meta")) : [];
  return verifyClassPromise(
    ctx,
    {
      promiser: promise.promiser,
      bundleType: promise.bundle.block.type.text,
      raw: (name) => promise.raw(name),
      expand: (rval) => expandRval(ctx, rval, promise.options),
    },
    {
      define: (name, scope, persist) => {
        env.defineClass(name, scope, persist);
        if (meta.length > 0) ctx.setClassTags(name, meta);
      },
      cancelPersistent: (name) => env.cancelPersistentClass?.(name),
      error: (message) => env.log.error(message),
      fatal: (message) => env.fatal(message),
      verbose: (message) => env.log.verbose(message),
    },
  );
}

export const classesPromiseType: PromiseType = {
  name: "classes",
  evaluate: evaluateClass,
};
