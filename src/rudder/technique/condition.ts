/**
 * Conditions as rudderc 8.3 handles them: `true`/`any` and
 * `false`/`!any`/`!true` are resolved at compile time, anything else is a
 * class expression left to the agent, with its spaces removed; `and` joins
 * two with `.`, parenthesising what is not a plain class name.
 */
import type { Condition } from "./model.js";

const VALID = /^[A-Za-z0-9_${}[\]|&.!() ]*$/;

/** Parses a condition's text; undefined when it holds a character rudderc refuses. */
export function parseCondition(text: string): Condition | undefined {
  const bare = text.replace(/[()]/g, "");
  if (bare === "true" || bare === "any") return true;
  if (bare === "false" || bare === "!any" || bare === "!true") return false;
  if (!VALID.test(text)) return undefined;
  return text.replaceAll(" ", "");
}

export function conditionText(c: Condition): string {
  if (c === true) return "true";
  if (c === false) return "false";
  return c;
}

export function andCondition(a: Condition, b: Condition): Condition {
  if (a === false || b === false) return false;
  if (a === true) return b;
  if (b === true) return a;
  return `${parenthesized(a)}.${parenthesized(b)}`;
}

function parenthesized(expression: string): string {
  return isCanonified(expression) ? expression : `(${expression})`;
}

/** Whether text is only ASCII letters, digits and underscores. */
export function isCanonified(text: string): boolean {
  return /^[A-Za-z0-9_]*$/.test(text);
}

/** Rudder's canonify: one underscore per character (not per byte) outside [A-Za-z0-9_]. */
export function canonify(text: string): string {
  let out = "";
  for (const ch of text) out += /[A-Za-z0-9_]/.test(ch) ? ch : "_";
  return out;
}
