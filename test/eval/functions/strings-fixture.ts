/**
 * The cases recorded from cf-agent 3.21 by
 * scripts/record-functions/record-strings.mjs, and a context holding the
 * same prelude variables and classes, built by tend itself.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { EvalContext } from "../../../src/eval/context.js";
import { expandRval } from "../../../src/eval/expand.js";
import { type JsonValue, type Value, data, isList, list, scalar } from "../../../src/eval/values.js";
import { parseVarRef } from "../../../src/eval/var-ref.js";
import { makeContext, rval } from "../helpers.js";

export interface RecordedCase {
  readonly family: "strings" | "regex";
  readonly kind: "string" | "slist" | "data";
  readonly call: string;
  readonly value?: JsonValue;
  readonly fails?: boolean;
  /** cf-agent aborted on the literal arguments (cf-promises-level rejection). */
  readonly aborts?: boolean;
  readonly unordered?: boolean;
}

interface Fixture {
  readonly prelude: { name: string; type: string; value: string }[];
  readonly classes: string[];
  readonly cases: RecordedCase[];
}

const FIXTURE = fileURLToPath(new URL("../../../../test/fixtures/functions/strings.json", import.meta.url));

export function loadRecorded(): Fixture {
  return JSON.parse(readFileSync(FIXTURE, "utf8")) as Fixture;
}

/** A context with the fixture's prelude variables and classes. */
export function recordedContext(fixture: Fixture): EvalContext {
  const ctx = makeContext();
  for (const name of fixture.classes) ctx.defineClass(name);
  for (const { name, type, value } of fixture.prelude) {
    const got = expandRval(ctx, rval(value));
    if (!got) throw new Error(`prelude ${name} did not evaluate`);
    ctx.setVariable(parseVarRef(name), coerce(type, got));
  }
  return ctx;
}

function coerce(type: string, value: Value): Value {
  if (type === "slist" && isList(value)) return list(value.value);
  if (type === "data")
    return value.type === "data" ? value : data(isList(value) ? [...value.value] : value.value);
  return value.type === "data" ? value : isList(value) ? value : scalar(value.value);
}

/** The recorded result in tend's terms, for comparison with what a call returns. */
export function comparable(result: Value | undefined, c: RecordedCase): JsonValue | undefined {
  if (result === undefined) return undefined;
  if (c.kind === "string") return result.type === "data" || isList(result) ? null : result.value;
  const json = result.type === "data" ? result.value : isList(result) ? [...result.value] : null;
  return c.unordered && Array.isArray(json) ? [...json].sort() : json;
}

export function expected(c: RecordedCase): JsonValue | undefined {
  if (c.fails) return undefined;
  return c.unordered && Array.isArray(c.value) ? [...c.value].sort() : c.value;
}
