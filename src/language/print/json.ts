/**
 * Policy as JSON in the shape of `cf-promises -p json` (3.21 prints the same
 * for `json-full`): `{ bodies, bundles }`, every object's keys in
 * alphabetical order as 3.21 writes them.
 *
 * What 3.21 does and this module repeats:
 * - Sections of one promise type are merged into the first, with the line of
 *   the last; within a section, promises under the same context as the
 *   context before them join it. The context before the first guard is `any`.
 * - A quoted class guard `"expr"::` becomes context `any`, and each of its
 *   promises gets a leading `ifvarclass` attribute (line 0) holding the
 *   expression as a symbol.
 * - Bodies always start with an (possibly empty) `any` context; an attribute
 *   set twice under the same context keeps its first place and its last
 *   value; consecutive attributes under the same context form one context.
 * - String values (but not promisers or promisees) have `"` and `'` preceded
 *   by a backslash. Symbols stand as `{type:"symbol"}` alone; inside lists and
 *   calls, symbols and variable references are strings.
 * - `data =>` with a string holding a JSON object or array is that JSON;
 *   `@(name)` becomes `mergedata("name")`, any other scalar `parsejson(...)`.
 * - Promisees are plain strings or arrays of strings; a function call as
 *   promisee is left out.
 * - `promise` blocks and sections of custom promise types are left out.
 */
import type {
  Attribute,
  AttributeGroup,
  Body,
  Bundle,
  ClassGuard,
  Promise as PromiseNode,
  PromiseSection,
  Rval,
  Span,
} from "../ast.js";
import type { ParsedFile } from "../policy-set.js";
import { JsonReal, parseDataJson } from "./data-json.js";

/** The promise types 3.21 knows; sections of any other type are custom. */
const BUILT_IN_PROMISE_TYPES: ReadonlySet<string> = new Set(
  (
    "access build_xpath classes commands databases defaults delete_attribute delete_lines delete_text " +
    "delete_tree field_edits files guest_environments insert_lines insert_text insert_tree measurements " +
    "meta methods packages processes replace_patterns reports roles services set_attribute set_text " +
    "storage users vars"
  ).split(" "),
);

type Json = unknown;
type LineOf = (span: Span) => number;

/** The JSON of a set of files, bundles and bodies in file order. Never fails. */
export function policyToJson(files: readonly ParsedFile[]): { bodies: Json[]; bundles: Json[] } {
  const bodies: Json[] = [];
  const bundles: Json[] = [];
  for (const { source, policy } of files) {
    const lineOf: LineOf = (span) => source.positionAt(span[0]).line;
    for (const block of policy.blocks) {
      if (block.kind === "bundle") bundles.push(bundleToJson(block, source.path, lineOf));
      else if (block.kind === "body") bodies.push(bodyToJson(block, source.path, lineOf));
    }
  }
  return { bodies, bundles };
}

/** One bundle as `cf-promises -p json` shows it (also what `callstack_callers()` holds). */
export function bundleToJson(bundle: Bundle, path: string, lineOf: LineOf): Json {
  return {
    arguments: (bundle.params ?? []).map((p) => p.text),
    bundleType: bundle.type.text,
    line: lineOf(bundle.span),
    name: bundle.name.text,
    namespace: bundle.namespace,
    promiseTypes: promiseTypesToJson(bundle.sections, lineOf),
    sourcePath: path,
  };
}

interface PromiseTypeJson {
  contexts: { name: string; promises: Json[] }[];
  line: number;
  name: string;
}

function promiseTypesToJson(sections: readonly PromiseSection[], lineOf: LineOf): PromiseTypeJson[] {
  const types = new Map<string, PromiseTypeJson>();
  for (const section of sections) {
    const name = section.type.text;
    if (!BUILT_IN_PROMISE_TYPES.has(name)) continue;
    const type = types.get(name) ?? { contexts: [], line: 0, name };
    types.set(name, type);
    type.line = lineOf(section.type.span);
    for (const group of section.groups) {
      const context = contextName(group.guard);
      let last = type.contexts[type.contexts.length - 1];
      if (last?.name !== context) {
        last = { name: context, promises: [] };
        type.contexts.push(last);
      }
      for (const promise of group.promises) last.promises.push(promiseToJson(promise, group.guard, lineOf));
    }
  }
  return [...types.values()];
}

function contextName(guard: ClassGuard | null): string {
  return guard === null || guard.quoted ? "any" : guard.expression;
}

function promiseToJson(promise: PromiseNode, guard: ClassGuard | null, lineOf: LineOf): Json {
  const attributes = promise.attributes.map((a) => attributeToJson(a, lineOf));
  if (guard?.quoted) {
    attributes.unshift({ line: 0, lval: "ifvarclass", rval: { type: "symbol", value: guard.expression } });
  }
  const json: Record<string, Json> = { attributes, line: lineOf(promise.promiser.span) };
  const promisee = promiseeToJson(promise.promisee);
  if (promisee !== undefined) json.promisee = promisee;
  json.promiser = promise.promiser.value;
  return json;
}

function promiseeToJson(value: Rval | null): Json {
  if (value === null || value.kind === "call") return undefined;
  if (value.kind === "list") return value.items.filter((item) => item.kind !== "call").map(plainText);
  return plainText(value);
}

/** The text of a scalar as 3.21 holds it, without escaping. */
function plainText(value: Rval): string {
  switch (value.kind) {
    case "string":
      return value.value;
    case "symbol":
      return value.name;
    case "nakedvar":
      return value.text;
    default:
      return "";
  }
}

/** `data` of vars and classes is a data container; in a body (password) it is a string. */
function attributeToJson(attribute: Attribute, lineOf: LineOf, inBody = false): Json {
  const lval = attribute.name.text;
  const rval = lval === "data" && !inBody ? dataToJson(attribute.value) : rvalToJson(attribute.value, true);
  return { line: lineOf(attribute.name.span), lval, rval };
}

const LIST_REFERENCE_RE = /^@(?:\(([^()]*)\)|\{([^{}]*)\})$/;

function dataToJson(value: Rval): Json {
  if (value.kind === "list" || value.kind === "call") return rvalToJson(value, true);
  const text = plainText(value);
  if (value.kind === "string") {
    const parsed = parseDataJson(text, { markReals: true });
    if (parsed !== undefined) return sortKeys(parsed);
  }
  const list = LIST_REFERENCE_RE.exec(text);
  if (list) return callJson("mergedata", [stringJson(list[1] ?? list[2])]);
  return callJson("parsejson", [stringJson(text)]);
}

/** An rval; `top` is false inside lists and calls, where symbols are strings. */
function rvalToJson(value: Rval, top: boolean): Json {
  switch (value.kind) {
    case "string":
      return stringJson(value.value);
    case "symbol":
      return top ? { type: "symbol", value: value.name } : stringJson(value.name);
    case "nakedvar":
      return stringJson(value.text);
    case "list":
      return { type: "list", value: value.items.map((item) => rvalToJson(item, false)) };
    case "call":
      return callJson(
        value.name,
        value.args.map((arg) => rvalToJson(arg, false)),
      );
  }
}

function callJson(name: string, args: Json[]): Json {
  return { arguments: args, name, type: "functionCall" };
}

/** 3.21 puts a backslash before each quote of a string value. */
function stringJson(value: string): Json {
  return { type: "string", value: value.replace(/["']/g, "\\$&") };
}

function sortKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object" || value instanceof JsonReal) return value;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([k, v]) => [k, sortKeys(v)]));
}

function bodyToJson(body: Body, path: string, lineOf: LineOf): Json {
  return {
    arguments: (body.params ?? []).map((p) => p.text),
    bodyType: body.type.text,
    contexts: bodyContextsToJson(body.groups, lineOf),
    line: lineOf(body.span),
    name: body.name.text,
    namespace: body.namespace,
    sourcePath: path,
  };
}

interface BodyAttribute {
  context: string;
  lval: string;
  json: Json;
}

function bodyContextsToJson(groups: readonly AttributeGroup[], lineOf: LineOf): Json[] {
  // 3.21 keeps a body as one list where a repeated (context, lval) replaces
  // the earlier value in place, then prints runs of equal contexts.
  const flat: BodyAttribute[] = [];
  for (const group of groups) {
    const context = group.guard === null ? "any" : group.guard.expression;
    for (const attribute of group.attributes) {
      const entry = { context, lval: attribute.name.text, json: attributeToJson(attribute, lineOf, true) };
      const index = flat.findIndex((e) => e.context === context && e.lval === entry.lval);
      if (index === -1) flat.push(entry);
      else flat[index] = entry;
    }
  }
  const contexts: { attributes: Json[]; name: string }[] = [{ attributes: [], name: "any" }];
  for (const entry of flat) {
    let last = contexts[contexts.length - 1];
    if (last.name !== entry.context) {
      last = { attributes: [], name: entry.context };
      contexts.push(last);
    }
    last.attributes.push(entry.json);
  }
  return contexts;
}
