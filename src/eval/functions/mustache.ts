/**
 * `string_mustache(template, data)`: the template rendered by the Mustache
 * renderer of src/mustache (as cf-agent 3.21 renders it), with the data
 * given or, without one, the state `datastate()` returns. A template that
 * cannot be rendered makes the call fail, after the renderer's messages.
 */
import { renderMustache } from "../mustache/index.js";
import { dataState } from "../data-state.js";
import { jsonNumberText } from "../json-numbers.js";
import { type Value, scalar, valueToJson } from "../values.js";
import { collection, text } from "./args.js";
import { emitFunctionMessage } from "./messages.js";
import type { FunctionContext } from "./types.js";

export function stringMustache(args: readonly Value[], fc: FunctionContext): Value | undefined {
  const template = text(args[0]);
  if (template === undefined) return undefined;
  const source = args.length > 1 ? collection(fc, args[1]) : undefined;
  if (args.length > 1 && !source) {
    emitFunctionMessage(fc.ctx, "verbose", fc.call.name, "string_mustache: could not load the data argument");
    return undefined;
  }
  const json = source ? valueToJson(source) : dataState(fc.ctx);
  // The data is a variable's (or the state's): its reals are written as 3.21 holds them.
  const out = renderMustache(
    template,
    json,
    (level, message) => emitFunctionMessage(fc.ctx, level, fc.call.name, message),
    jsonNumberText,
  );
  return out === undefined ? undefined : scalar(out);
}
