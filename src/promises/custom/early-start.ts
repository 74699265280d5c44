/**
 * Promise modules started ahead of their first promise.
 *
 * Why: a module's interpreter takes a while to start (Python, ~20 ms of a
 * run of 1,000 promises that takes ~300), and the agent waited for it at
 * the first promise of its type. Started once the policy check has
 * evaluated the policy (or, without a check, once it is loaded), it starts
 * while the agent loads the policy and sets up its run. Nothing is said to it yet: the
 * header, and the "Starting custom promise module" line, come at the first
 * promise, as they did. A module whose path or interpreter is by then
 * another, or whose files have changed (a policy may write the module it
 * uses), is killed unused and started anew (see ModuleSession); one no
 * promise comes to is killed at the end of the run. A module should do
 * nothing before it has read the agent's header; one that does sees the
 * agent start it even in a run that turns out not to need it.
 *
 * Only modules some bundle has promises for are started, and only from
 * declarations whose path and interpreter are strings: a function call
 * there is not run an extra time.
 */
import type { PolicyIndex } from "../policy-index.js";
import type { EvalContext } from "../../eval/context.js";
import { hasUnresolvedReference } from "../../eval/expand.js";
import { bundleThisVars } from "../../eval/resolve.js";
import type { Bundle, CustomPromiseBlock } from "../../language/ast.js";
import type { PromiseTypeRegistry } from "../registry.js";
import { blockAttribute, blockText, customDeclarations } from "./promise-type.js";
import type { CustomPromiseRuntime } from "./runtime.js";
import type { ModuleSpec } from "../../providers/modules/session.js";

/**
 * Starts the modules of the policy's custom promise types (not built into
 * `registry`) that it has promises for, their paths evaluated in `ctx`.
 */
export function startModulesEarly(
  runtime: CustomPromiseRuntime,
  registry: PromiseTypeRegistry,
  index: PolicyIndex,
  ctx: EvalContext,
): void {
  for (const { block } of customDeclarations(registry, index)) {
    const user = firstBundleUsing(index, block.name.text);
    if (!user) continue;
    const spec = specIn(ctx, block, user.block, user.file);
    if (spec) runtime.startEarly(spec);
  }
}

/** The bundle of the policy's first promise of `type`, which the module's path is likely expanded in. */
function firstBundleUsing(index: PolicyIndex, type: string): { block: Bundle; file: string } | undefined {
  for (const located of index.allBundles()) {
    if (
      located.block.sections.some((s) => s.type.text === type && s.groups.some((g) => g.promises.length > 0))
    )
      return located;
  }
  return undefined;
}

/** The declaration's module as seen from `bundle`, if it is made of strings only and resolves. */
function specIn(
  ctx: EvalContext,
  block: CustomPromiseBlock,
  bundle: Bundle,
  file: string,
): ModuleSpec | undefined {
  for (const name of ["path", "interpreter"]) {
    const rval = blockAttribute(block, ctx, name);
    if (rval !== undefined && rval.kind !== "string") return undefined;
  }
  ctx.pushFrame(bundle.namespace, bundle.name.text, bundleThisVars(file));
  try {
    const path = blockText(block, ctx, "path");
    const interpreter = blockText(block, ctx, "interpreter");
    if (path === undefined || [path, interpreter].some((t) => t !== undefined && hasUnresolvedReference(t)))
      return undefined;
    return { path, interpreter };
  } finally {
    ctx.popFrame();
  }
}
