/**
 * Checks shared by attributes of promises, bodies and promise blocks:
 * unknown and deprecated attributes, class expressions in `if` and
 * `ifvarclass`, and JSON written inline in `data` attributes.
 */
import type { Attribute } from "../ast.js";
import type { AttributeSyntax } from "../syntax/types.js";
import { findClassExpressionError } from "./class-expressions.js";
import { type ValidationContext, hasVariable, listChoices } from "./context.js";
import { checkJsonNumbers } from "./json-numbers.js";
import { formatSuggestion } from "./suggest.js";

/** Reports an attribute that `where` does not know, with a suggestion. */
export function reportUnknownAttribute(
  attribute: Attribute,
  where: string,
  known: readonly string[],
  file: string,
  ctx: ValidationContext,
): void {
  const name = attribute.name.text;
  const hint = formatSuggestion(name, known);
  const choices = hint === "" ? ` Expected one of: ${listChoices([...known].sort(), 20)}.` : "";
  ctx.report(
    "error",
    "unknown-attribute",
    `unknown attribute '${name}' for ${where}.${hint}${choices}`,
    attribute.name.span,
    file,
  );
}

/**
 * The checks every known attribute gets. Returns false when the attribute
 * is removed from the language, so that its value needs no further checks.
 */
export function checkAttributeCommon(
  attribute: Attribute,
  syntax: AttributeSyntax | undefined,
  where: string,
  file: string,
  ctx: ValidationContext,
): boolean {
  const name = attribute.name.text;
  if (syntax?.status === "removed") {
    ctx.report(
      "warning",
      "deprecated",
      `attribute '${name}' of ${where} has been removed; it is ignored`,
      attribute.name.span,
      file,
    );
    return false;
  }
  if (syntax?.status === "deprecated") {
    ctx.report(
      "warning",
      "deprecated",
      `attribute '${name}' of ${where} is deprecated`,
      attribute.name.span,
      file,
    );
  }
  if (name === "ifvarclass") {
    ctx.report(
      "warning",
      "deprecated",
      "'ifvarclass' is an older name of 'if'; write 'if' instead",
      attribute.name.span,
      file,
    );
  }
  if (name === "if" || name === "ifvarclass") checkClassExpressionValue(attribute, file, ctx);
  // Only a data container is JSON: the `data` of a password body is a plain string.
  if ((name === "data" || name === "template_data") && syntax?.type !== "string")
    checkInlineJson(attribute, file, ctx);
  return true;
}

function checkClassExpressionValue(attribute: Attribute, file: string, ctx: ValidationContext): void {
  const value = attribute.value;
  let text: string;
  if (value.kind === "string") text = value.value;
  else if (value.kind === "symbol") text = value.name;
  else if (value.kind === "nakedvar") text = value.text;
  else return;
  const at = findClassExpressionError(text);
  if (at === -1) return;
  const message = `'${text}' is not a valid class expression (problem at character ${at + 1}); combine class names with '.', '&', '|', '!' and parentheses`;
  ctx.report("error", "invalid-class-expression", message, value.span, file);
}

/** 3.21 turns a literal string in `data` into parsed JSON (or YAML after `---`); a bad one fails at run time. */
function checkInlineJson(attribute: Attribute, file: string, ctx: ValidationContext): void {
  const value = attribute.value;
  if (value.kind !== "string" || hasVariable(value.value) || value.value.startsWith("---")) return;
  // 3.21 copies the parsed value while it loads the policy.
  checkJsonNumbers(value.value, value.span, "error", file, ctx);
  const problem = findJsonProblem(value.value);
  if (problem)
    ctx.report(
      "warning",
      "invalid-json",
      `the value of '${attribute.name.text}' ${problem}; the promise will fail when evaluated`,
      value.span,
      file,
    );
}

function findJsonProblem(text: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return `is not valid JSON (${(error as Error).message})`;
  }
  if (parsed === null || typeof parsed !== "object") return "is a JSON primitive, not an object or array";
  return null;
}

/** The names of attributes as a sorted list for messages. */
export function describeChoices(names: readonly string[]): string {
  return listChoices([...names].sort(), 20);
}
