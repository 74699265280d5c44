/**
 * `template_method => "mustache"` (template in the file `edit_template`)
 * and `"inline_mustache"` (in `edit_template_string`): the template is
 * rendered with `template_data` (by default the state `datastate()`
 * returns) and the file replaced by the result when it differs, with the
 * backup `edit_defaults` asks for. A missing file is created first.
 */
import { readFileSync } from "node:fs";
import type { Outcome } from "../outcome.js";
import { dataState } from "../../eval/data-state.js";
import { decodeBytes, encodeBytes } from "../../eval/regex/bytes.js";
import { parseJsonContainer } from "../../eval/functions/json-text.js";
import type { JsonValue } from "../../eval/values.js";
import { jsonNumberText } from "../../eval/json-numbers.js";
import { type MustacheLogLevel, renderMustache } from "../../eval/mustache/index.js";
import { parsedNumberText } from "../../eval/mustache/json-model.js";
import type { ActivePromise } from "../contract.js";
import { makingChanges } from "./common.js";
import { repositoryOf, saveEditedFile } from "./save.js";
import type { EditDefaults, EditRequest } from "./session.js";
import { asText } from "../values.js";

/**
 * `template_data`: a container, or JSON text (a data attribute given as a
 * string is parsed); undefined when absent or not a container.
 */
export function templateData(promise: ActivePromise): JsonValue | undefined {
  const value = promise.value("template_data");
  if (value?.type === "data") return value.value;
  const text = asText(value);
  return text === undefined ? undefined : parseJsonContainer(text);
}

/** Where the template comes from: a file, or the text itself (undefined when not set). */
export type TemplateSource = { readonly file: string } | { readonly text: string | undefined };

function currentBytes(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

function readTemplate(request: EditRequest, source: TemplateSource): string | undefined {
  const { env, promise } = request.step;
  if (!("file" in source)) {
    if (source.text === undefined)
      env.log.error(`'edit_template_string' not set for promiser: '${promise.promiser}'`);
    return source.text;
  }
  try {
    return decodeBytes(readFileSync(source.file));
  } catch {
    env.log.error(`Template file '${source.file}' could not be opened for reading`);
    return undefined;
  }
}

/** Renders the template into the file; returns the outcome. */
export function renderMustacheTemplate(
  request: EditRequest,
  defaults: EditDefaults,
  source: TemplateSource,
): Outcome {
  const { env, promise, path } = request.step;
  const template = readTemplate(request, source);
  if (template === undefined) return "failed";
  const data = templateData(promise) ?? dataState(env.ctx);
  const name = "file" in source ? source.file : "inline";
  // 3.21 copies a variable's data (numbers as stored: `1.0000`) but renders
  // a function's result (`readjson(...)`) as parsed.
  const fromCall = promise.raw("template_data")?.kind === "call";
  const log = (level: MustacheLogLevel, message: string) => env.log[level](message);
  const rendered = renderMustache(template, data, log, fromCall ? parsedNumberText : jsonNumberText);
  if (rendered === undefined) {
    const shown = "file" in source ? source.file : source.text;
    env.log.error(`Error rendering mustache template '${shown}'`);
    return "failed";
  }
  const bytes = encodeBytes(rendered);
  const current = currentBytes(path);
  if (current?.equals(bytes)) return "kept";
  let outcome: Outcome = "kept";
  const what = `update rendering of '${path}' from mustache template '${name}'`;
  if (!makingChanges(promise, env, what, (o) => (outcome = o))) return outcome;
  if (!request.exists) {
    if (!request.create()) {
      env.log.error(`Failed to create file '${path}' for rendering mustache template '${name}'`);
      return "failed";
    }
  }
  const saved = saveEditedFile(env, path, bytes, {
    backup: defaults.backup,
    rotate: defaults.rotate,
    repository: repositoryOf(promise, env),
  });
  if (!saved) {
    env.log.error(`Failed to update rendering of '${path}' from mustache template '${name}'`);
    return "failed";
  }
  env.log.info(`Updated rendering of '${path}' from mustache template '${name}'`);
  return "repaired";
}
