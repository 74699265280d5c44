/**
 * `classes` promises: define a class when its condition holds. The rules
 * (conditions, scope, persistence, canonification) are 3.21's, shared with
 * pre-evaluation in `eval/class-promise.ts`.
 */
import type { Outcome } from "./outcome.js";
import { expandRval } from "../eval/expand.js";
import { verifyClassPromise } from "../eval/class-promise.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "./contract.js";
import { promiseEntryMeta } from "./vars.js";
import { logPromiseRef } from "./promise-context.js";

function evaluateClass(promise: ActivePromise, env: PromiseEnvironment): Outcome {
  const { ctx } = env;
  return verifyClassPromise(
    ctx,
    {
      promiser: promise.promiser,
      bundleType: promise.bundle.block.type.text,
      raw: (name) => promise.raw(name),
      expand: (rval) => expandRval(ctx, rval, promise.options),
    },
    {
      // Tags as 3.21 gives them: `source=promise`, then `meta`; and the comment.
      define: (name, scope, persist) => env.defineClass(name, scope, persist, promiseEntryMeta(promise)),
      cancelPersistent: (name) => env.cancelPersistentClass?.(name),
      error: (message) => env.log.error(message),
      ref: (level) => logPromiseRef(promise, env, level),
      fatal: (message) => {
        env.log.error(message);
        env.fatal("Fatal CFEngine error: Cannot continue");
      },
      verbose: (message) => env.log.verbose(message),
    },
  );
}

export const classesPromiseType: PromiseType = {
  name: "classes",
  evaluate: evaluateClass,
};
