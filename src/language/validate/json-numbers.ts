/**
 * JSON numbers 3.21 cannot store. Its JSON reader takes a number written
 * without a dot for an integer and keeps the text; copying the value into a
 * variable (which a `data` value written inline always is, and a
 * `parsejson()` result too) reads that text as a C long, and a failure stops
 * cf-promises and cf-agent alike: an exponent (`1e3`) leaves text unread, a
 * value beyond 64 bits overflows.
 */

import type { Span } from "../ast.js";
import type { Severity } from "../diagnostics.js";
import { parseDataJson } from "../print/data-json.js";
import { type ValidationContext, hasVariable } from "./context.js";

/**
 * Reports the first number 3.21 cannot store in JSON text written in the
 * policy (literal, no variables; YAML and text 3.21 does not read as a
 * container are left to other checks), with 3.21's own message.
 */
export function checkJsonNumbers(
  text: string,
  span: Span,
  severity: Severity,
  file: string,
  ctx: ValidationContext,
): void {
  if (hasVariable(text) || parseDataJson(text) === undefined) return;
  const message = findUnstorableJsonNumber(text);
  if (message) ctx.report(severity, "json-number-conversion", message, span, file);
}

/** 3.21's message for the first number of `text` it could not store; undefined when all can be. */
export function findUnstorableJsonNumber(text: string): string | undefined {
  for (const token of numberTokens(text)) {
    if (token.includes(".")) continue;
    if (/[eE]/.test(token)) return conversionError("-83 - Not terminated", token);
    if (beyondLong(token)) return conversionError("34 - Overflow", token);
  }
  return undefined;
}

function conversionError(reason: string, token: string): string {
  return `Conversion error (${reason}) on '${token}' (StringToLongExitOnError)`;
}

/** The numbers of JSON text, outside strings and names. */
function* numberTokens(text: string): Generator<string> {
  const pattern = /"(?:[^"\\]|\\.)*"?|[\w.]*\d[\w.+-]*|-\d[\w.+-]*/g;
  for (const match of text.matchAll(pattern)) {
    const token = match[0];
    if (/^-?\d/.test(token)) yield token;
  }
}

const LONG_MAX = 2n ** 63n - 1n;
const LONG_MIN = -(2n ** 63n);

function beyondLong(token: string): boolean {
  try {
    const value = BigInt(token);
    return value > LONG_MAX || value < LONG_MIN;
  } catch {
    return false;
  }
}
