/**
 * maplist, maparray and mapdata, as 3.21 evaluates them: the collection is
 * read once; the template argument (`$(this)`, or `$(this.k)`, `$(this.k[1])`
 * and `$(this.v)`) is evaluated again for every item with those variables
 * set — a nested call such as `regex_replace("$(this)", ...)` runs per item
 * — then expanded once more. A result still holding one of them fails the
 * whole call. mapdata's "json_pipe" feeds the container to a command
 * instead and reads back JSON values.
 */
import { spawnSync } from "node:child_process";
import { canonify } from "../class-expression.js";
import { expandRval, expandString } from "../expand.js";
import {
  type JsonValue,
  type Value,
  data,
  isList,
  isScalar,
  list,
  primitiveToString,
  isJsonContainer,
} from "../values.js";
import { text } from "./args.js";
import { collectContainer, variableLookup } from "./containers.js";
import { splitCommand } from "./exec.js";
import { quoteJsonString } from "../../text/json-string.js";
import { parseJsonText, renderPrettyJson } from "./json-text.js";
import { emitFunctionMessage } from "./messages.js";
import type { BuiltinFunction, FunctionContext } from "./types.js";
import { isUnresolvedArgument } from "./unresolved.js";

type ThisValues = Readonly<Record<string, string | undefined>>;

/**
 * Evaluates the template argument with `this.*` set as given, then expands
 * the text again; undefined when it cannot be evaluated.
 */
function evaluateTemplate(fc: FunctionContext, index: number, values: ThisValues): string | undefined {
  const own = fc.ctx.currentFrame().thisVars;
  const saved = new Map<string, Value | undefined>();
  for (const [name, value] of Object.entries(values)) {
    saved.set(name, own.get(name));
    if (value === undefined) own.delete(name);
    else own.set(name, { type: "string", value });
  }
  try {
    const raw = fc.call.args[index];
    const value = raw === undefined ? undefined : expandRval(fc.ctx, raw, fc.options);
    if (value === undefined) return undefined;
    const first = isScalar(value) ? value.value : isList(value) ? value.value[0] : undefined;
    return first === undefined ? undefined : expandString(fc.ctx, first, fc.options);
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) own.delete(name);
      else own.set(name, value);
    }
  }
}

function holdsAny(text: string, names: readonly string[]): boolean {
  return names.some((name) => text.includes(`$(${name})`) || text.includes(`\${${name}}`));
}

type Container = JsonValue[] | { [key: string]: JsonValue };

/** The collection argument, which must be resolved and name a container. */
function collection(fc: FunctionContext, arg: Value | undefined): Container | undefined {
  if (!arg || isUnresolvedArgument(arg)) return undefined;
  const json = collectContainer(fc, arg);
  return isJsonContainer(json) ? json : undefined;
}

function mapList(args: readonly Value[], fc: FunctionContext): Value | undefined {
  const json = collection(fc, args[1]);
  if (json === undefined) return undefined;
  const out: string[] = [];
  for (const member of Array.isArray(json) ? json : Object.values(json)) {
    if (member === null || isJsonContainer(member)) continue;
    const mapped = evaluateTemplate(fc, 0, { this: primitiveToString(member) ?? "" });
    if (mapped === undefined || holdsAny(mapped, ["this"])) return undefined;
    out.push(mapped);
  }
  return list(out);
}

type MapMode = "none" | "canonify" | "json";

/** The items maparray and mapdata produce, or undefined when the template fails. */
function mapEntries(
  fc: FunctionContext,
  json: Container,
  template: number,
  mode: MapMode,
): string[] | undefined {
  const escaped = (s: string) => (mode === "json" ? quoteJsonString(s).slice(1, -1) : s);
  const finish = (s: string) => (mode === "canonify" ? canonify(s) : s);
  const entries = Array.isArray(json) ? json.map((v, i) => [String(i), v] as const) : Object.entries(json);
  const out: string[] = [];
  for (const [key, value] of entries) {
    if (!isJsonContainer(value)) {
      const mapped = evaluateTemplate(fc, template, {
        k: escaped(key),
        v: escaped(primitiveToString(value) ?? ""),
      });
      if (mapped === undefined || holdsAny(mapped, ["this.k", "this.v"])) return undefined;
      out.push(finish(mapped));
      continue;
    }
    const inner = Array.isArray(value) ? value.map((v) => [undefined, v] as const) : Object.entries(value);
    for (const [subkey, member] of inner) {
      if (member === null || isJsonContainer(member)) continue;
      const values = { k: escaped(key), "k[1]": subkey === undefined ? undefined : escaped(subkey) };
      const mapped = evaluateTemplate(fc, template, {
        ...values,
        v: escaped(primitiveToString(member) ?? ""),
      });
      const leftovers = subkey === undefined ? ["this.k", "this.v"] : ["this.k", "this.k[1]", "this.v"];
      if (mapped === undefined || holdsAny(mapped, leftovers)) return undefined;
      // Items from a nested container are added once each.
      if (!out.includes(finish(mapped))) out.push(finish(mapped));
    }
  }
  return out;
}

function mapArray(args: readonly Value[], fc: FunctionContext): Value | undefined {
  const json = collection(fc, args[1]);
  const mapped = json === undefined ? undefined : mapEntries(fc, json, 0, "none");
  return mapped && list(mapped);
}

function mapData(args: readonly Value[], fc: FunctionContext): Value | undefined {
  const mode = text(args[0]);
  const json = collection(fc, args[2]);
  if (json === undefined) return undefined;
  if (mode === "json_pipe") return jsonPipe(fc, json);
  if (mode !== "none" && mode !== "canonify" && mode !== "json") return undefined;
  const mapped = mapEntries(fc, json, 1, mode);
  if (!mapped) return undefined;
  if (mode !== "json") return data(mapped);
  const parsed: JsonValue[] = [];
  for (const item of mapped) {
    const value = parseJsonText(item, variableLookup(fc));
    if (value !== undefined) parsed.push(value);
    else
      emitFunctionMessage(
        fc.ctx,
        "verbose",
        "mapdata",
        `Function 'mapdata' could not parse dynamic JSON '${item}', skipping it`,
      );
  }
  return data(parsed);
}

/** "json_pipe": the container as JSON on the command's input; each JSON value it prints. */
function jsonPipe(fc: FunctionContext, json: JsonValue): Value | undefined {
  const command = evaluateTemplate(fc, 1, {});
  const [program, ...argv] = command === undefined ? [] : splitCommand(command);
  if (program === undefined) return undefined;
  const run = spawnSync(program, argv, { input: renderPrettyJson(json), encoding: "utf8" });
  if (run.error) {
    emitFunctionMessage(fc.ctx, "info", "mapdata", `An error occurred while communicating with '${command}'`);
    emitFunctionMessage(
      fc.ctx,
      "error",
      "mapdata",
      "Function mapdata failed to get output from 'json_pipe' execution",
    );
    return undefined;
  }
  const out: JsonValue[] = [];
  let pending = "";
  for (const line of run.stdout.split("\n").filter((l, i, all) => i < all.length - 1 || l !== "")) {
    pending = pending === "" ? line : `${pending}\n${line}`;
    const value = parseJsonText(pending);
    if (value !== undefined && isJsonContainer(value)) {
      out.push(value);
      pending = "";
    }
  }
  return data(out);
}

export const mappingFunctions: readonly BuiltinFunction[] = [
  { name: "maplist", minArgs: 2, maxArgs: 2, acceptsUnresolved: true, delayedArg: 0, evaluate: mapList },
  { name: "maparray", minArgs: 2, maxArgs: 2, acceptsUnresolved: true, delayedArg: 0, evaluate: mapArray },
  { name: "mapdata", minArgs: 3, maxArgs: 3, acceptsUnresolved: true, delayedArg: 1, evaluate: mapData },
];
