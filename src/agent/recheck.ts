/**
 * 3.21 checks every expanded promise's attribute values against the syntax
 * (option words, numbers and their ranges, string patterns) and stops the
 * agent when one does not fit ("In attribute 'create', Selection is out of
 * bounds"), since a value built from variables could not be checked when
 * the policy was parsed. Values still holding unresolved variables pass.
 */
import { hasUnresolvedReference } from "../eval/expand.js";
import { isList } from "../eval/values.js";
import { getBodyAttribute, getPromiseAttribute } from "../language/syntax/index.js";
import type { AttributeSyntax } from "../language/syntax/types.js";
import { type ValueIssue, checkScalar } from "../language/validate/values.js";
import type { ActivePromiseImpl } from "./active-promise.js";
import { writeValue } from "../eval/show-state.js";
import type { Value } from "../eval/values.js";

const COMMON_BODIES: ReadonlySet<string> = new Set(["action", "classes"]);

/** 3.21's wording for each kind of problem (SyntaxTypeMatchToString). */
function describe(syntax: AttributeSyntax, issue: ValueIssue, text: string): string {
  switch (syntax.type) {
    case "option":
    case "olist":
      return "Selection is out of bounds";
    case "int":
    case "ilist":
      return issue.code === "type-mismatch" ? "Cannot parse value as integer" : "Integer is out of range";
    case "real":
    case "rlist":
      if (text === "inf") return "Keyword 'inf' has an integer value, cannot be used as real";
      return "Real value is out of range";
    case "context":
    case "clist":
      return "Context string is invalid/out of range";
    case "irange":
    case "rrange":
      if (text.startsWith("[") || text.startsWith("("))
        return "Real range specification should not be enclosed in brackets - just 'a,b'";
      return "Range format specifier should be of form 'a,b'' but got multiple items";
    default:
      if (syntax.range === '"?(/.*)') return "Filename is not an absolute path";
      return text === "" ? "Empty scalar value is out of range" : "Scalar value is out of range";
  }
}

/** Whether values of this syntax can be wrong at all (strings without a pattern never are). */
function isCheckable(syntax: AttributeSyntax | undefined): syntax is AttributeSyntax {
  if (!syntax || syntax.type === "body" || syntax.type === "bundle") return false;
  if (syntax.type === "string" || syntax.type === "slist") return (syntax.range ?? "") !== "";
  return true;
}

/** Verdicts on scalar values already checked, by syntax (thousands of promises repeat a few values). */
const verdicts = new WeakMap<AttributeSyntax, Map<string, string | undefined>>();
const VERDICTS_PER_SYNTAX = 1000;

function checkExpanded(syntax: AttributeSyntax, value: Value): string | undefined {
  if (value.type === "data") return undefined;
  if (isList(value)) return checkItems(syntax, value.value);
  return checkText(syntax, value.value);
}

/**
 * Whether the literal `text`, given to attribute `name` of a `type`
 * promise, passes this check (as it must to have been parsed at all).
 */
export function literalFits(bundleType: string, type: string, name: string, text: string): boolean {
  const syntax = getPromiseAttribute(bundleType, type, name);
  return !isCheckable(syntax) || checkText(syntax, text) === undefined;
}

function checkText(syntax: AttributeSyntax, text: string): string | undefined {
  let known = verdicts.get(syntax);
  if (!known) {
    known = new Map();
    verdicts.set(syntax, known);
  }
  const verdict = known.get(text);
  if (verdict !== undefined || known.has(text)) return verdict;
  const found = checkItems(syntax, [text]);
  if (known.size < VERDICTS_PER_SYNTAX) known.set(text, found);
  return found;
}

function checkItems(syntax: AttributeSyntax, items: readonly string[]): string | undefined {
  for (const text of items) {
    if (hasUnresolvedReference(text)) continue;
    const issue = checkScalar(syntax, text, [0, 0]);
    if (issue) return describe(syntax, issue, text);
  }
  return undefined;
}

/**
 * The first attribute of the promise (own, then its bodies') whose expanded
 * value does not fit the syntax, as 3.21 words the error; undefined if all fit.
 */
export function recheckConstraints(promise: ActivePromiseImpl): string | undefined {
  const bundleType = promise.bundle.block.type.text;
  const where = `${promise.bundle.file}:0:0`;
  for (const name of promise.deref.attributes.keys()) {
    const syntax = getPromiseAttribute(bundleType, promise.type, name);
    if (!isCheckable(syntax)) continue;
    const value = promise.value(name);
    const problem = value ? checkExpanded(syntax, value) : undefined;
    if (problem && value)
      return `${where}: In attribute '${name}', ${problem}. Given attribute value '${writeValue(value).trimStart()}'`;
  }
  for (const [bodyName, body] of promise.deref.bodies) {
    // 3.21 leaves the common bodies (`action`, `classes`) unchecked here.
    if (COMMON_BODIES.has(bodyName)) continue;
    for (const name of body.attributes.keys()) {
      const syntax = getBodyAttribute(body.type, name);
      if (!isCheckable(syntax)) continue;
      const value = promise.bodyValue(bodyName, name);
      const problem = value ? checkExpanded(syntax, value) : undefined;
      if (problem && value)
        return `${where}: In attribute '${name}', ${problem}. Given attribute value '${writeValue(value).trimStart()}'`;
    }
  }
  return undefined;
}
