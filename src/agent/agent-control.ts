/**
 * What the agent reads from `body agent control` (and `body common
 * control`) before running: abort classes, default locks, and the like.
 * Values are expanded in the context as it stands after pre-evaluation.
 */
import type { Body, Rval } from "../language/ast.js";
import type { EvalContext } from "../eval/context.js";
import { expandRval } from "../eval/expand.js";
import { parseCfInt } from "../eval/numbers.js";
import { isGuardTrue } from "../eval/resolve.js";
import { boundedRegExp } from "../eval/regex/watchdog.js";
import { asStrings } from "../promises/values.js";
import type { PolicyIndex } from "../promises/policy-index.js";

export interface AgentControl {
  /** Regular expressions: a matching class aborts the whole run. */
  readonly abortClasses: readonly RegExp[];
  /** Regular expressions: a matching class aborts the current bundle. */
  readonly abortBundleClasses: readonly RegExp[];
  /** The same items as class expressions: once one holds, the current bundle stops. */
  readonly abortBundleExpressions: readonly string[];
  /** `ignore_missing_bundles` of body common control: a missing bundle is not fatal. */
  readonly ignoreMissingBundles: boolean;
  /** `addclasses`: classes defined (globally) before the first bundle runs. */
  readonly addClasses: readonly string[];
  /** `dryrun`: true or false when set, as `-n`. */
  readonly dryRun: boolean | undefined;
  /** `inform` and `verbose`: raise (or lower) the log level, when set. */
  readonly inform: boolean | undefined;
  readonly verbose: boolean | undefined;
  /** Minutes a promise waits before acting again (runs without `-K`); 1 by default. */
  readonly ifelapsed: number;
}

/** The first attribute of that name, in any control body of that type, whose guard holds. */
export function controlAttribute(
  ctx: EvalContext,
  index: PolicyIndex,
  type: string,
  name: string,
): Rval | undefined {
  for (const { block } of index.controlBodiesOf(type)) {
    const found = attributeOf(ctx, block, name);
    if (found) return found;
  }
  return undefined;
}

function attributeOf(ctx: EvalContext, body: Body, name: string): Rval | undefined {
  for (const group of body.groups) {
    if (!isGuardTrue(ctx, group.guard)) continue;
    const found = group.attributes.find((a) => a.name.text === name);
    if (found) return found.value;
  }
  return undefined;
}

function patterns(ctx: EvalContext, rval: Rval | undefined): RegExp[] {
  if (!rval) return [];
  const out: RegExp[] = [];
  for (const text of asStrings(expandRval(ctx, rval))) {
    try {
      out.push(boundedRegExp(`^(?:${text})$`));
    } catch {
      // An invalid pattern can match nothing; the validator reports it.
    }
  }
  return out;
}

function minutes(ctx: EvalContext, rval: Rval | undefined): number | undefined {
  const text = rval ? asStrings(expandRval(ctx, rval))[0] : undefined;
  return text === undefined ? undefined : parseCfInt(text);
}

function booleanOf(text: string | undefined): boolean | undefined {
  if (text === "true" || text === "yes" || text === "on") return true;
  if (text === "false" || text === "no" || text === "off") return false;
  return undefined;
}

function strings(ctx: EvalContext, rval: Rval | undefined): string[] {
  return rval ? [...asStrings(expandRval(ctx, rval))] : [];
}

export function readAgentControl(ctx: EvalContext, index: PolicyIndex): AgentControl {
  const abortBundle = controlAttribute(ctx, index, "agent", "abortbundleclasses");
  const ignoreMissing = strings(ctx, controlAttribute(ctx, index, "common", "ignore_missing_bundles"))[0];
  return {
    abortClasses: patterns(ctx, controlAttribute(ctx, index, "agent", "abortclasses")),
    abortBundleClasses: patterns(ctx, abortBundle),
    abortBundleExpressions: strings(ctx, abortBundle),
    ignoreMissingBundles: booleanOf(ignoreMissing) === true,
    addClasses: strings(ctx, controlAttribute(ctx, index, "agent", "addclasses")),
    dryRun: booleanOf(strings(ctx, controlAttribute(ctx, index, "agent", "dryrun"))[0]),
    inform: booleanOf(strings(ctx, controlAttribute(ctx, index, "agent", "inform"))[0]),
    verbose: booleanOf(strings(ctx, controlAttribute(ctx, index, "agent", "verbose"))[0]),
    ifelapsed: minutes(ctx, controlAttribute(ctx, index, "agent", "ifelapsed")) ?? 1,
  };
}
