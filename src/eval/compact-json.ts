/**
 * JSON written the way 3.21 writes a data container on one line
 * (`JsonWriteCompact`): object keys sorted byte-wise, keys written as they
 * are, strings with only `"`, `\`, and `\b \f \n \r \t` escaped.
 */
import { BoxedNumber, jsonNumberText } from "./json-numbers.js";
import type { JsonValue } from "./values.js";
import { compareBytes } from "../text/byte-order.js";
import { quoteJsonString } from "../text/json-string.js";

export function writeCompactJson(json: JsonValue): string {
  if (json === null) return "null";
  if (typeof json === "string") return quoteJsonString(json);
  if (typeof json === "number" || json instanceof BoxedNumber) return jsonNumberText(json);
  if (typeof json !== "object") return String(json);
  if (Array.isArray(json)) return `[${json.map(writeCompactJson).join(",")}]`;
  const keys = Object.keys(json).sort(compareBytes);
  return `{${keys.map((k) => `"${k}":${writeCompactJson(json[k])}`).join(",")}}`;
}
