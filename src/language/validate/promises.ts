/**
 * Checks of single promises: their attributes (known, deprecated, value
 * type), their promiser, and the rules particular to `vars`, `classes`,
 * `methods`, `access` and custom promise types.
 */
import type { Attribute, Bundle, Promise as PromiseNode, PromiseSection } from "../ast.js";
import { getPromiseType, isBuiltinPromiseType } from "../syntax/index.js";
import type { AttributeSyntax, PromiseTypeSyntax } from "../syntax/types.js";
import { checkAttributeCommon, reportUnknownAttribute } from "./attributes.js";
import { type ValidationContext, listChoices } from "./context.js";
import { findCalledBundle } from "./references.js";
import { checkValue, checkValueShape, getScalarText, isScalar } from "./values.js";

/** Where a promise sits, for checks that depend on it. */
export interface PromisePlace {
  readonly bundle: Bundle;
  readonly section: PromiseSection;
  readonly file: string;
}

/** Checks one promise in its section. */
export function checkPromise(promise: PromiseNode, place: PromisePlace, ctx: ValidationContext): void {
  checkPromiser(promise, place, ctx);
  const syntax = getPromiseType(place.bundle.type.text, place.section.type.text);
  if (syntax) checkBuiltinPromise(promise, syntax, place, ctx);
  else if (!isBuiltinPromiseType(place.section.type.text)) checkCustomPromise(promise, place, ctx);
}

function checkPromiser(promise: PromiseNode, place: PromisePlace, ctx: ValidationContext): void {
  const text = promise.promiser.value;
  if (text === "$()" || text === "$" + "{}") {
    ctx.report(
      "error",
      "invalid-promise",
      `the promiser '${text}' is an empty variable reference`,
      promise.promiser.span,
      place.file,
    );
  }
}

function checkBuiltinPromise(
  promise: PromiseNode,
  syntax: PromiseTypeSyntax,
  place: PromisePlace,
  ctx: ValidationContext,
): void {
  for (const attribute of promise.attributes) {
    const attributeSyntax = syntax.attributes[attribute.name.text];
    if (!attributeSyntax) reportUnknownPromiseAttribute(attribute, syntax, place, ctx);
    else checkPromiseAttribute(attribute, attributeSyntax, place, ctx);
  }
  PROMISE_TYPE_CHECKS[syntax.name]?.(promise, place, ctx);
}

function reportUnknownPromiseAttribute(
  attribute: Attribute,
  syntax: PromiseTypeSyntax,
  place: PromisePlace,
  ctx: ValidationContext,
): void {
  const where = `promise type '${syntax.name}' in ${article(place.bundle.type.text)} ${place.bundle.type.text} bundle`;
  const known = Object.keys(syntax.attributes).filter((n) => syntax.attributes[n].status !== "removed");
  reportUnknownAttribute(attribute, where, known, place.file, ctx);
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? "an" : "a";
}

function checkPromiseAttribute(
  attribute: Attribute,
  syntax: AttributeSyntax,
  place: PromisePlace,
  ctx: ValidationContext,
): void {
  const where = `promise type '${place.section.type.text}'`;
  if (!checkAttributeCommon(attribute, syntax, where, place.file, ctx)) return;
  const shape = checkValueShape(syntax, attribute.value);
  if (shape) {
    ctx.report("error", shape.code, shape.message, shape.span, place.file);
    return;
  }
  // Like cf-promises, only the promise type's own attributes have their values checked while parsing.
  if (syntax.visibility !== "promiseType") return;
  if (syntax.type === "body" && attribute.value.kind === "string") {
    const message = `attribute '${syntax.name}' takes a body name, which is written without quotes: ${syntax.name} => ${attribute.value.value}`;
    ctx.report("error", "quoted-body-reference", message, attribute.value.span, place.file);
    return;
  }
  const found = checkValue(syntax, attribute.value);
  if (found) ctx.report("error", found.code, found.message, found.span, place.file);
}

/** Custom promise types take any attribute, except two that modules cannot honour. */
function checkCustomPromise(promise: PromiseNode, place: PromisePlace, ctx: ValidationContext): void {
  const typeName = place.section.type.text;
  for (const attribute of promise.attributes) {
    const name = attribute.name.text;
    if (name === "ifvarclass") {
      ctx.report(
        "error",
        "unknown-attribute",
        `custom promise type '${typeName}' does not support 'ifvarclass'; use 'if' instead`,
        attribute.name.span,
        place.file,
      );
    } else if (name === "expireafter") {
      ctx.report(
        "error",
        "unknown-attribute",
        `custom promise type '${typeName}' does not implement 'expireafter'`,
        attribute.name.span,
        place.file,
      );
    } else {
      checkAttributeCommon(attribute, undefined, `promise type '${typeName}'`, place.file, ctx);
    }
  }
}

type PromiseTypeCheck = (promise: PromiseNode, place: PromisePlace, ctx: ValidationContext) => void;

const VALUE_TYPES = ["string", "int", "real", "slist", "ilist", "rlist", "data"];

const RESERVED_VARIABLE_NAMES: ReadonlySet<string> = new Set([
  "promiser",
  "handle",
  "promise_filename",
  "promise_dirname",
  "promise_linenumber",
  "this",
]);

const PROMISE_TYPE_CHECKS: Readonly<Record<string, PromiseTypeCheck>> = {
  vars: checkVarsPromise,
  classes: checkClassesPromise,
  methods: checkMethodsPromise,
  access: checkAccessPromise,
};

function checkVarsPromise(promise: PromiseNode, place: PromisePlace, ctx: ValidationContext): void {
  const name = promise.promiser.value;
  const span = promise.promiser.span;
  if (/^\d+$/.test(name))
    ctx.report(
      "error",
      "invalid-promise",
      `variable name "${name}" is only digits; a variable name needs at least one other character`,
      span,
      place.file,
    );
  const problem = findVariableNameProblem(name);
  if (problem)
    ctx.report(
      "error",
      "invalid-promise",
      `"${name}" cannot be a variable name: ${problem}`,
      span,
      place.file,
    );
  const types = promise.attributes.filter((a) => VALUE_TYPES.includes(a.name.text));
  for (const extra of types.slice(1)) {
    const message = `variable "${name}" is already given type '${types[0].name.text}'; a vars promise takes exactly one of: ${listChoices(VALUE_TYPES)}`;
    ctx.report("error", "invalid-promise", message, extra.name.span, place.file);
  }
}

/** Why a vars promiser is not a valid variable name, or null when it is. */
export function findVariableNameProblem(name: string): string | null {
  if (RESERVED_VARIABLE_NAMES.has(name)) return `'${name}' is reserved`;
  const firstDot = name.indexOf(".");
  if (firstDot === -1) return null;
  let dots = 0;
  let depth = 0;
  for (const c of name) {
    if (c === ".") {
      dots++;
      if (dots > 1 && depth !== 1)
        return "only one '.' (between a bundle and a variable) is allowed outside [ ]";
    } else if (c === "[") depth++;
    else if (c === "]") depth--;
    if (depth > 1) return "array indices [ ] cannot nest";
  }
  if (dots === 1 && (firstDot === 0 || firstDot === name.length - 1))
    return "a '.' needs a bundle name before it and a variable name after it";
  return null;
}

function checkClassesPromise(promise: PromiseNode, place: PromisePlace, ctx: ValidationContext): void {
  const name = promise.promiser.value;
  if (/^\d+$/.test(name)) {
    ctx.report(
      "error",
      "invalid-promise",
      `class name "${name}" is only digits; a class name needs at least one other character`,
      promise.promiser.span,
      place.file,
    );
  }
}

function checkMethodsPromise(promise: PromiseNode, place: PromisePlace, ctx: ValidationContext): void {
  for (const attribute of promise.attributes) {
    if (attribute.name.text !== "usebundle" || attribute.value.kind !== "call") continue;
    const call = attribute.value;
    const callee = findCalledBundle(ctx.index, call.name, place.bundle.namespace);
    const expected = callee?.node.params?.length ?? 0;
    if (!callee || expected === call.args.length) continue;
    const params = callee.node.params?.map((p) => p.text).join(", ") ?? "";
    const message = `bundle '${call.name}' takes ${expected} argument${expected === 1 ? "" : "s"} (${params}), but ${call.args.length} ${call.args.length === 1 ? "is" : "are"} given`;
    ctx.report("error", "wrong-argument-count", message, call.span, place.file);
  }
}

function checkAccessPromise(promise: PromiseNode, place: PromisePlace, ctx: ValidationContext): void {
  const select = promise.attributes.find((a) => a.name.text === "report_data_select");
  if (!select) return;
  const isQuery = promise.attributes.some(
    (a) => a.name.text === "resource_type" && isScalar(a.value) && getScalarText(a.value) === "query",
  );
  if (!isQuery) {
    ctx.report(
      "error",
      "invalid-promise",
      "'report_data_select' is only allowed in access promises with resource_type => \"query\"",
      select.name.span,
      place.file,
    );
  }
}
