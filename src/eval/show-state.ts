/**
 * The tables `cf-promises --show-vars[=REGEX]` and `--show-classes[=REGEX]`
 * print, byte for byte as 3.21 prints them: a header, then one line per
 * variable (or global class) whose qualified name the regex matches
 * anywhere, sorted byte-wise by the whole line; columns padded with
 * spaces (name 40, value 60, tags 40, comment 40 for variables; name 60,
 * tags 40, comment 40 for classes), trailing spaces included.
 *
 * Values are written as 3.21 writes them: strings as they are, lists as
 * ` {"a","b"}` (with the leading space), data compact with sorted keys; a
 * value with a byte outside printable ASCII shows as `<non-printable>`.
 */
import { writeCompactJson } from "./compact-json.js";
import type { EvalContext } from "./context.js";
import { compileCfRegex } from "./regex/match.js";
import { PcreError, type PcreRegExp } from "./regex/pcre.js";
import { toByteString } from "./regex/bytes.js";
import { type Value, isList } from "./values.js";
import { compareBytes } from "../text/byte-order.js";

/** A regex that does not compile: cf-promises logs an error and prints nothing. */
export class ShowRegexError extends Error {}

function pad(text: string, width: number): string {
  const length = Buffer.byteLength(text, "utf8");
  return length >= width ? text : text + " ".repeat(width - length);
}

function compile(regex: string): PcreRegExp {
  const compiled = compileCfRegex(regex, { global: true });
  if (compiled instanceof PcreError) throw new ShowRegexError(compiled.message);
  return compiled;
}

function matches(regex: PcreRegExp, subject: string): boolean {
  regex.lastIndex = 0;
  return regex.exec(toByteString(subject)) !== null;
}

/** A value as 3.21's `RvalWrite` writes it. */
export function writeValue(value: Value): string {
  if (value.type === "data") return writeCompactJson(value.value);
  if (isList(value)) {
    if (value.value.length === 0) return "";
    return ` {${value.value.map((item) => `"${item.replace(/"/g, '\\"')}"`).join(",")}}`;
  }
  // As 3.21's ScalarWrite, a double quote is escaped even outside quotes.
  return value.value.replace(/"/g, '\\"');
}

/** Only bytes 0x20-0x7e count as printable (C's isprint in the C locale). */
function isPrintable(text: string): boolean {
  return /^[\x20-\x7e]*$/.test(text);
}

/** The `--show-vars` table; throws ShowRegexError for a bad regex. */
export function formatVariables(ctx: EvalContext, regex: string): string {
  const rx = compile(regex);
  const lines: string[] = [];
  for (const [scope, lval, value] of ctx.allVariables()) {
    const name = `${scope}.${lval}`;
    if (!matches(rx, name)) continue;
    const written = writeValue(value);
    const shown = isPrintable(written) ? written : "<non-printable>";
    const meta = ctx.scopeVariableMeta(scope, lval);
    lines.push(
      `${pad(name, 40)} ${pad(shown, 60)} ${pad((meta.tags ?? []).join(","), 40)} ${pad(meta.comment ?? "", 40)}`,
    );
  }
  lines.sort(compareBytes);
  const header = `${pad("Variable name", 40)} ${pad("Variable value", 60)} ${pad("Meta tags", 40)} ${pad("Comment", 40)}`;
  return [header, ...lines].map((line) => `${line}\n`).join("");
}

/** The `--show-classes` table (global classes only); throws ShowRegexError for a bad regex. */
export function formatClasses(ctx: EvalContext, regex: string): string {
  const rx = compile(regex);
  const lines: string[] = [];
  for (const [ns, name] of ctx.globalClasses()) {
    const qualified = ns === "default" ? name : `${ns}:${name}`;
    if (!matches(rx, qualified)) continue;
    const meta = ctx.getClassMeta(`${ns}:${name}`);
    lines.push(
      `${pad(qualified, 60)} ${pad((meta.tags ?? []).join(","), 40)} ${pad(meta.comment ?? "", 40)}`,
    );
  }
  lines.sort(compareBytes);
  const header = `${pad("Class name", 60)} ${pad("Meta tags", 40)} ${pad("Comment", 40)}`;
  return [header, ...lines].map((line) => `${line}\n`).join("");
}
