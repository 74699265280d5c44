/**
 * A method parameter's constraints checked on a literal value, in
 * rudder-commons 8.3's order: empty, surrounding whitespace, length, regex,
 * forbidden regex, allowed set, JSON/YAML format. Lengths count bytes, as
 * Rust's `str::len` does.
 */
import { parse as parseYaml } from "yaml";
import { type MethodConstraints, compileRustRegex } from "./methods.js";

/** The first constraint `value` breaks, as a message; undefined when it keeps them all. */
export function checkConstraints(c: MethodConstraints, value: string): string | undefined {
  if (!c.allowEmpty && value === "") return "value must not be empty";
  if (!c.allowWhitespace && (/^\s/.test(value) || /\s$/.test(value))) {
    return "value must not have leading or trailing whitespaces";
  }
  const length = Buffer.byteLength(value, "utf8");
  if (length > c.maxLength) return `value length (${length}) exceeds max length (${c.maxLength})`;
  if (length < c.minLength) return `value length (${length}) is lower than min length (${c.minLength})`;
  if (c.regex !== undefined && !compileRustRegex(c.regex)?.test(value)) {
    return `value '${value}' does not match regex '${c.regex}'`;
  }
  if (c.notRegex !== undefined && compileRustRegex(c.notRegex)?.test(value)) {
    return `value '${value}' does match forbidden regex '${c.notRegex}'`;
  }
  if (c.select !== undefined && !c.select.includes(value)) {
    return `value '${value}' not included in allowed set [${c.select.map((s) => JSON.stringify(s)).join(", ")}]`;
  }
  if (c.validFormat !== undefined && !validFormat(c.validFormat, value)) {
    return `value '${value}' is not valid ${c.validFormat.toUpperCase()}`;
  }
  return undefined;
}

function validFormat(format: "json" | "yaml", value: string): boolean {
  try {
    if (format === "json") JSON.parse(value);
    else parseYaml(value);
    return true;
  } catch {
    return false;
  }
}
