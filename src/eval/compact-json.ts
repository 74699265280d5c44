/**
 * JSON written the way 3.21 writes a data container on one line
 * (`JsonWriteCompact`): object keys sorted byte-wise, keys written as they
 * are, strings with only `"`, `\`, and `\b \f \n \r \t` escaped.
 */
import type { JsonValue } from "./values.js";

const ESCAPES: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};

function quote(text: string): string {
  return `"${text.replace(/["\\\b\f\n\r\t]/g, (ch) => ESCAPES[ch] ?? ch)}"`;
}

function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

export function writeCompactJson(json: JsonValue): string {
  if (json === null) return "null";
  if (typeof json === "string") return quote(json);
  if (typeof json !== "object") return String(json);
  if (Array.isArray(json)) return `[${json.map(writeCompactJson).join(",")}]`;
  const keys = Object.keys(json).sort(compareBytes);
  return `{${keys.map((k) => `"${k}":${writeCompactJson(json[k])}`).join(",")}}`;
}
