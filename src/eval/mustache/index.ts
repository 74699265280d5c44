/**
 * Mustache templates as cf-agent 3.21 renders them (for `string_mustache()`
 * and files promises with `template_method => "mustache"`).
 */
import type { BoxedNumber } from "../json-numbers.js";
import type { JsonValue } from "../values.js";
import { toMustacheNode } from "./json-model.js";
import { type MustacheLog, renderTemplate } from "./render.js";

export type { MustacheLog, MustacheLogLevel } from "./render.js";

/**
 * Renders `template` with `data`; undefined (after logging why through
 * `log`) when it cannot. `numberText` writes numbers in JSON output (see
 * toMustacheNode): as parsed by default.
 */
export function renderMustache(
  template: string,
  data: JsonValue,
  log: MustacheLog = () => {},
  numberText?: (n: number | BoxedNumber) => string,
): string | undefined {
  return renderTemplate(template, toMustacheNode(data, numberText), log);
}
