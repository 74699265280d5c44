/**
 * Chef's Ruby-format files (metadata.rb, roles/*.rb, environments/*.rb)
 * read as documents of the same shape as their JSON forms: each method of
 * the file's DSL is a small handler that writes the JSON value and records
 * where it was written, so the JSON files' validation (and its diagnostics
 * at the value's `file:line:col`) applies unchanged. Nothing is evaluated:
 * ruby-literal.ts refuses Ruby code with a diagnostic at its place.
 */
import { readFileSync } from "node:fs";
import { lineColumn } from "../catalog/json-locate.js";
import { JsonDocument } from "./json-file.js";
import type { RecipesDiagnosticCode } from "./model.js";
import { RecipesError } from "./model.js";
import {
  collectOffsets,
  parseRubyLiterals,
  type RubyCall,
  type RubyNode,
  rubyValue,
} from "./ruby-literal.js";

/** Where a handler writes: the JSON value and the offsets of its parts by path. */
export interface DslTarget {
  readonly value: Record<string, unknown>;
  /** Sets `value[key]` (or `value[key][sub]`) to the node's JSON, recording offsets. */
  set(node: RubyNode, key: string, sub?: string): void;
  /** Sets a plain value written at `offset`. */
  setPlain(value: unknown, offset: number, key: string, sub?: string): void;
  /** Appends the nodes' JSON as one array to the array at `key`. */
  push(nodes: readonly RubyNode[], offset: number, key: string): void;
  /** Stops the read with a diagnostic at `offset`. */
  fail(offset: number, message: string): never;
}

/** One DSL method: reads the call's arguments, writes the target. */
export type DslHandler = (call: RubyCall, target: DslTarget) => void;

/** Reads `file` with the DSL `methods`; problems are RecipesErrors with `code` at their place. */
export function readRubyDocument(
  file: string,
  code: RecipesDiagnosticCode,
  methods: Readonly<Record<string, DslHandler>>,
  after?: (target: DslTarget) => void,
): JsonDocument {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new RecipesError([
      { code, severity: "error", message: `cannot read: ${reason}`, file, line: 1, column: 1 },
    ]);
  }
  return parseRubyDocument(file, text, code, methods, after);
}

/** As readRubyDocument, from text. */
export function parseRubyDocument(
  file: string,
  text: string,
  code: RecipesDiagnosticCode,
  methods: Readonly<Record<string, DslHandler>>,
  after?: (target: DslTarget) => void,
): JsonDocument {
  const fail = (offset: number, message: string): never => {
    const { line, column } = lineColumn(text, offset);
    throw new RecipesError([{ code, severity: "error", message, file, line, column }]);
  };
  const parsed = parseRubyLiterals(text);
  if (!parsed.ok) return fail(parsed.problem.offset, parsed.problem.message);
  const target = makeTarget(fail);
  for (const call of parsed.calls) {
    if (call.ifRespondTo && !Object.hasOwn(methods, call.ifRespondTo.method)) continue;
    const handler = Object.hasOwn(methods, call.name) ? methods[call.name] : undefined;
    if (!handler) {
      const known = Object.keys(methods).join(", ");
      fail(call.offset, `unknown method '${call.name}': expected one of ${known}`);
    }
    handler?.(call, target);
  }
  after?.(target);
  return new JsonDocument(file, text, target.value, target.offsets);
}

function makeTarget(
  fail: (offset: number, message: string) => never,
): DslTarget & { offsets: Map<string, number> } {
  const value: Record<string, unknown> = {};
  const offsets = new Map<string, number>();
  const json = (node: RubyNode): unknown => {
    const r = rubyValue(node);
    return r.ok ? r.value : fail(r.problem.offset, r.problem.message);
  };
  const place = (key: string, sub: string | undefined, v: unknown): string => {
    if (sub === undefined) {
      value[key] = v;
      return key;
    }
    value[key] ??= {};
    const owner = value[key] as Record<string, unknown>;
    owner[sub] = v;
    return `${key}.${sub}`;
  };
  return {
    value,
    offsets,
    fail,
    set(node, key, sub) {
      const path = place(key, sub, json(node));
      collectOffsets(node, path, offsets);
    },
    setPlain(v, offset, key, sub) {
      offsets.set(place(key, sub, v), offset);
    },
    push(nodes, offset, key) {
      value[key] ??= [];
      const list = value[key] as unknown[];
      const path = `${key}.${list.length}`;
      offsets.set(path, offset);
      nodes.forEach((n, i) => {
        collectOffsets(n, `${path}.${i}`, offsets);
      });
      list.push(nodes.map(json));
    },
  };
}

/** The call's arguments, checked to be between `min` and `max` in number. */
export function argsOf(call: RubyCall, target: DslTarget, min: number, max = min): readonly RubyNode[] {
  const n = call.args.length;
  if (n < min || n > max) {
    const want =
      min === max ? `${min}` : max === Number.POSITIVE_INFINITY ? `at least ${min}` : `${min} to ${max}`;
    target.fail(call.offset, `'${call.name}' takes ${want} argument${want === "1" ? "" : "s"}, given ${n}`);
  }
  return call.args;
}

/** The node's string (a symbol is read as its name), else a diagnostic at it. */
export function stringOf(node: RubyNode, target: DslTarget, what: string): string {
  if (node.type === "scalar" && typeof node.value === "string") return node.value;
  return target.fail(node.offset, `${what} must be a string`);
}

/** A handler for a method taking one value written at `key` (`name 'x'`). */
export function single(key: string, kind: "string" | "boolean" | "any" = "string"): DslHandler {
  return (call, target) => {
    const [node] = argsOf(call, target, 1) as [RubyNode];
    if (kind === "string") stringOf(node, target, `'${call.name}'`);
    if (kind === "boolean" && !(node.type === "scalar" && typeof node.value === "boolean"))
      target.fail(node.offset, `'${call.name}' must be true or false`);
    target.set(node, key);
  };
}
