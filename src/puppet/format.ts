/**
 * Puppet's way of showing a value in a message (`defined 'message' as
 * 'Hi there'`, `change from 'notrun' to ['0'] failed`): strings quoted as
 * Puppet quotes them (single quotes, or double quotes with escapes when
 * the text holds control characters), arrays as `['a', 'b']`, hashes as
 * `{'k' => 'v'}`, other scalars as they print. Types share it so that
 * every event reads as Puppet's.
 */
import type { ParamValue } from "../catalog/model.js";

/** A value as Puppet's `format_value_for_display` shows it. */
export function formatValue(value: ParamValue | undefined): string {
  if (value === undefined || value === null) return "undef";
  if (typeof value === "string") return quote(value);
  if (Array.isArray(value)) return `[${value.map((v) => formatValue(v)).join(", ")}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value).map(([k, v]) => `${quote(k)} => ${formatValue(v)}`);
    return `{${entries.join(", ")}}`;
  }
  return String(value);
}

/** A string in Puppet's quotes: single when it can be, else double with escapes. */
export function quote(text: string): string {
  let out = "'";
  let escaped = false;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x20) return doubleQuote(text);
    if (escaped) {
      out += `\\${char}`;
      escaped = false;
    } else if (char === "'") out += "\\'";
    else if (char === "\\") escaped = true;
    else out += char;
  }
  return `${out}${escaped ? "\\" : ""}'`;
}

const DOUBLE_ESCAPES: Readonly<Record<string, string>> = {
  "\t": "\\t",
  "\n": "\\n",
  "\r": "\\r",
  '"': '\\"',
  $: "\\$",
  "\\": "\\\\",
};

function doubleQuote(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (Object.hasOwn(DOUBLE_ESCAPES, char)) out += DOUBLE_ESCAPES[char];
    else if (code < 0x20) out += `\\u{${code.toString(16).toUpperCase()}}`;
    else out += char;
  }
  return `${out}"`;
}

/** The message of a property defined from nothing: `defined 'message' as 'x'`. */
export function definedMessage(property: string, desired: ParamValue): string {
  return `defined '${property}' as ${formatValue(desired)}`;
}

/** The message of a property that noop leaves out of sync. */
export function noopMessage(current: ParamValue, desired: ParamValue): string {
  return `current_value ${formatValue(current)}, should be ${formatValue(desired)} (noop)`;
}
