/**
 * A promise made ready for expansion, as 3.21's `DeRefCopyPromise` does:
 * its own attributes apart from the bodies it references (arguments
 * substituted, inheritance applied, default bodies added), and the texts
 * whose list references it iterates over. Shared by the engine's run and
 * the load-time expansion of every promise (load-expansion.ts).
 */
import type { Attribute, Bundle, Promise as PromiseNode } from "../language/ast.js";
import { getPromiseAttribute } from "../language/syntax/index.js";
import type { EvalContext } from "../eval/context.js";
import { expandRval } from "../eval/expand.js";
import { collectIterationTexts } from "../eval/iteration.js";
import { parseCfInt } from "../eval/numbers.js";
import { isScalar } from "../eval/values.js";
import type { DerefPromise } from "./active-promise.js";
import { type BodyInstance, type BodyProblem, resolveBody } from "../promises/bodies.js";
import { addDefaultBodies } from "./default-bodies.js";
import type { Located, PolicyIndex } from "../promises/policy-index.js";

/** What dereferencing needs from its caller. */
export interface DerefSources {
  readonly ctx: EvalContext;
  readonly index: PolicyIndex;
  /** `bodydefault:` bodies of the policy (see default-bodies.ts). */
  readonly defaultBodies: ReadonlySet<string>;
  /** A body that cannot be used; `fatal` when cf-agent cannot continue after it. */
  readonly problem: BodyProblem;
  readonly verbose: (message: string) => void;
}

/** Splits a promise's attributes into its own and the bodies they reference. */
export function derefPromise(
  sources: DerefSources,
  located: Located<Bundle>,
  type: string,
  node: PromiseNode,
  varClass?: string,
): DerefPromise {
  const { ctx, index } = sources;
  const attributes = new Map<string, Attribute>();
  const bodies = new Map<string, BodyInstance>();
  for (const attribute of node.attributes) {
    const name = attribute.name.text;
    if (isBodyReference(ctx, index, located.block.type.text, type, attribute)) {
      const body = resolveBody(ctx, index, name, attribute.value, sources.problem);
      if (body) bodies.set(name, body);
      continue;
    }
    attributes.set(name, attribute);
  }
  addDefaultBodies(
    ctx,
    index,
    sources.defaultBodies,
    located.block.type.text,
    type,
    bodies,
    (name) => bodies.has(name) || attributes.has(name),
    sources.verbose,
  );
  return { type, node, bundle: located, attributes, bodies, varClass };
}

function isBodyReference(
  ctx: EvalContext,
  index: PolicyIndex,
  bundleType: string,
  type: string,
  attribute: Attribute,
): boolean {
  const value = attribute.value;
  if (value.kind !== "symbol" && value.kind !== "call") return false;
  const name = attribute.name.text;
  const syntax = getPromiseAttribute(bundleType, type, name);
  if (syntax) return syntax.type === "body";
  // Custom promise types: the agent still handles these common bodies, and
  // as in 3.21 any other name takes a body of its type when one exists.
  if (name === "classes" || name === "action") return true;
  return index.findBody(name, value.name, ctx.currentNamespace()) !== undefined;
}

/** The texts whose list references a promise iterates over. */
export function promiseIterationTexts(deref: DerefPromise): string[] {
  const { node } = deref;
  const texts = [node.promiser.value];
  if (deref.varClass) texts.push(deref.varClass);
  if (node.promisee) collectIterationTexts(node.promisee, texts);
  for (const attribute of deref.attributes.values()) collectIterationTexts(attribute.value, texts);
  for (const body of deref.bodies.values()) {
    for (const attribute of body.attributes.values()) collectIterationTexts(attribute.value, texts);
  }
  return texts;
}

/** Whether the promise's action body sets `ifelapsed => "0"` (its cached function calls run again). */
export function setsIfElapsedZero(
  ctx: EvalContext,
  deref: DerefPromise,
  bindings: ReadonlyMap<string, string>,
): boolean {
  return isIfElapsedZero(ctx, deref.bodies.get("action"), bindings);
}

/** Whether an action body sets `ifelapsed => "0"`. */
export function isIfElapsedZero(
  ctx: EvalContext,
  action: BodyInstance | undefined,
  bindings: ReadonlyMap<string, string>,
): boolean {
  const attribute = action?.attributes.get("ifelapsed");
  if (!attribute) return false;
  const value = expandRval(ctx, attribute.value, { bindings });
  return value !== undefined && isScalar(value) && parseCfInt(value.value) === 0;
}
