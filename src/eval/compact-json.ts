/**
 * JSON written the way 3.21 writes a data container on one line
 * (`JsonWriteCompact`): object keys sorted byte-wise, keys written as they
 * are, strings with only `"`, `\`, and `\b \f \n \r \t` escaped.
 */
import { type JsonValue, jsonNumberText } from "./values.js";
import { compareBytes } from "../text/byte-order.js";

const ESCAPES: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};

/** A JSON string literal as 3.21 writes it: `"`, `\\` and \\b \\f \\n \\r \\t escaped, anything else as is. */
export function quoteJsonString(text: string): string {
  return `"${text.replace(/["\\\b\f\n\r\t]/g, (ch) => ESCAPES[ch] ?? ch)}"`;
}

export function writeCompactJson(json: JsonValue): string {
  if (json === null) return "null";
  if (typeof json === "string") return quoteJsonString(json);
  if (typeof json === "number") return jsonNumberText(json);
  if (typeof json !== "object") return String(json);
  if (Array.isArray(json)) return `[${json.map(writeCompactJson).join(",")}]`;
  const keys = Object.keys(json).sort(compareBytes);
  return `{${keys.map((k) => `"${k}":${writeCompactJson(json[k])}`).join(",")}}`;
}
