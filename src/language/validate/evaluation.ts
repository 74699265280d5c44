/**
 * Finds every function call in bundles and bodies and decides, for each
 * value, whether cf-promises evaluates it while loading the policy.
 */
import type { Attribute, Body, Bundle, ClassGuard, Promise as PromiseNode } from "../ast.js";
import { getBodyType, getPromiseType } from "../syntax/index.js";
import type { AttributeSyntax } from "../syntax/types.js";
import type { ValidationContext } from "./context.js";
import { checkCalls } from "./functions.js";

const CONDITION_ATTRIBUTES = ["if", "ifvarclass", "unless"];

/** Whether a guard is certainly true (no guard, or `any`). */
function isAlwaysTrue(guard: ClassGuard | null): boolean {
  return guard === null || (!guard.quoted && guard.expression === "any");
}

/** Whether cf-promises evaluates this promise's values while loading. */
function isEvaluatedAtLoad(
  bundle: Bundle,
  sectionType: string,
  guard: ClassGuard | null,
  promise: PromiseNode,
): boolean {
  const evaluatedType =
    sectionType === "vars" || (sectionType === "classes" && bundle.type.text === "common");
  if (!evaluatedType || !isAlwaysTrue(guard)) return false;
  return !promise.attributes.some((a) => CONDITION_ATTRIBUTES.includes(a.name.text));
}

/** Whether the attribute's top-level calls were already checked as its value. */
function isValueChecked(syntax: AttributeSyntax | undefined, visibilityMatters: boolean): boolean {
  if (!syntax || syntax.type === "body" || syntax.type === "bundle" || syntax.status === "removed")
    return false;
  return !visibilityMatters || syntax.visibility === "promiseType";
}

/** Checks the calls in every promise of a bundle. */
export function walkBundleCalls(bundle: Bundle, file: string, ctx: ValidationContext): void {
  for (const section of bundle.sections) {
    const syntax = getPromiseType(bundle.type.text, section.type.text);
    if (syntax?.status === "removed") continue;
    for (const group of section.groups) {
      for (const promise of group.promises) {
        const evaluatedAtLoad = isEvaluatedAtLoad(bundle, section.type.text, group.guard, promise);
        for (const attribute of promise.attributes) {
          const attributeSyntax = syntax?.attributes[attribute.name.text];
          const topLevelChecked = isValueChecked(attributeSyntax, true);
          const topLevelIsReference =
            isReference(attribute, attributeSyntax) || (!syntax && isCustomBodyCall(attribute, ctx));
          checkCalls(attribute.value, { file, evaluatedAtLoad, topLevelChecked, topLevelIsReference }, ctx);
        }
      }
    }
  }
}

/**
 * In a custom promise, `perms => mode("644")` calls a body when a body of
 * that type and name exists (as 3.21 resolves it), not a function.
 */
function isCustomBodyCall(attribute: Attribute, ctx: ValidationContext): boolean {
  const value = attribute.value;
  if (value.kind !== "call") return false;
  const name = value.name.slice(value.name.indexOf(":") + 1);
  return ctx.index.bodies.some((b) => b.node.type.text === attribute.name.text && b.node.name.text === name);
}

/** Checks the calls in a body; control bodies are evaluated while loading. */
export function walkBodyCalls(body: Body, file: string, ctx: ValidationContext): void {
  const syntax = getBodyType(body.type.text);
  if (syntax?.status === "removed") return;
  for (const group of body.groups) {
    for (const attribute of group.attributes) {
      const evaluatedAtLoad =
        body.name.text === "control" && isAlwaysTrue(group.guard) && attribute.name.text !== "bundlesequence";
      const attributeSyntax = syntax?.attributes[attribute.name.text];
      const topLevelChecked = isValueChecked(attributeSyntax, false);
      const topLevelIsReference = isReference(attribute, attributeSyntax);
      checkCalls(attribute.value, { file, evaluatedAtLoad, topLevelChecked, topLevelIsReference }, ctx);
    }
  }
}

/** Whether calls written as the value are parameterised bodies or bundles. */
function isReference(attribute: Attribute, syntax: AttributeSyntax | undefined): boolean {
  return syntax?.type === "body" || syntax?.type === "bundle" || isBundleAttribute(attribute);
}

function isBundleAttribute(attribute: Attribute): boolean {
  return ["bundlesequence", "edit_line", "edit_xml", "usebundle", "service_bundle", "home_bundle"].includes(
    attribute.name.text,
  );
}
