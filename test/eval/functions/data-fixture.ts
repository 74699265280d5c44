/**
 * Replays the cases recorded from cf-agent 3.21 in
 * test/fixtures/functions/data.json (see scripts/record-functions/record-data.ts):
 * each case's bundle is pre-evaluated by tend, then its call is evaluated in
 * that bundle and compared with what cf-agent gave.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EvalContext } from "../../../src/eval/context.js";
import { expandRval } from "../../../src/eval/expand.js";
import { resolveBundle } from "../../../src/eval/resolve.js";
import { type Value, isList } from "../../../src/eval/values.js";
import type { Bundle, Rval } from "../../../src/language/ast.js";
import { parseText } from "../../../src/language/parser.js";
import { rval } from "../helpers.js";
import type { TestContext } from "node:test";
import { scratchDirectory } from "../../scratch.js";

export interface RecordedCase {
  readonly id: string;
  readonly family: string;
  readonly expr: string;
  readonly setup: readonly string[];
  readonly bundles: readonly string[];
  readonly result: string;
  readonly value?: unknown;
  readonly agentError?: string;
}

interface Fixture {
  readonly sharedSetup: readonly string[];
  readonly files: Record<string, string>;
  readonly cases: readonly RecordedCase[];
}

const fixture = JSON.parse(
  readFileSync(new URL("../../../../test/fixtures/functions/data.json", import.meta.url), "utf8"),
) as Fixture;

const dir = scratchDirectory("tend-data-fn-");
for (const [name, content] of Object.entries(fixture.files)) writeFileSync(join(dir, name), content);

const fill = (s: string) => s.replaceAll("{DIR}", dir);

export function familyCases(family: string): readonly RecordedCase[] {
  return fixture.cases.filter((c) => c.family === family);
}

function bundlesOf(text: string): Bundle[] {
  const { policy, diagnostics } = parseText(text);
  if (diagnostics.some((d) => d.severity === "error")) throw new Error(diagnostics[0].message);
  return policy.blocks.filter((b): b is Bundle => b.kind === "bundle");
}

/** `meta` attributes as tags (after the `source=promise` of every promise), which resolve.ts does not record yet. */
function applyMetaTags(ctx: EvalContext, bundle: Bundle): void {
  for (const section of bundle.sections) {
    for (const promise of section.groups.flatMap((g) => g.promises)) {
      const meta = promise.attributes.find((a) => a.name.text === "meta");
      if (meta?.value.kind !== "list") continue;
      const tags = [
        "source=promise",
        ...meta.value.items.flatMap((i: Rval) => (i.kind === "string" ? [i.value] : [])),
      ];
      if (section.type.text === "vars") {
        ctx.setVariableTags(
          { ns: bundle.namespace, scope: bundle.name.text, name: promise.promiser.value, indices: [] },
          tags,
        );
      } else ctx.setClassTags(promise.promiser.value, tags);
    }
  }
}

/** Evaluates a case's call in tend, in a context prepared like cf-agent's. */
export function evaluateCase(c: RecordedCase): Value | undefined {
  const ctx = new EvalContext();
  const setup = [...fixture.sharedSetup, ...c.setup].map(fill).join("\n");
  const bundles = bundlesOf([...c.bundles, `bundle agent ${c.id} { vars: ${setup} }`].join("\n"));
  for (const bundle of bundles) {
    resolveBundle(ctx, bundle, join(dir, "policy.cf"));
    applyMetaTags(ctx, bundle);
  }
  ctx.pushFrame("default", c.id);
  return expandRval(ctx, rval(fill(c.expr)));
}

/** Classic arrays and variable tables come out of cf-agent in hash order. */
function unordered(c: RecordedCase): boolean {
  return /"arr\d?[["]|variablesmatching\(|bundlestate|mapdata\("none", "\$\(this.k\)", "arr"\)/.test(c.expr);
}

/**
 * The recording holds data as plain JSON, where `1.0` and `1` are one
 * number: a boxed number compares by value (cases that print data pin how
 * its numbers are written).
 */
function normalise(value: Value | undefined): unknown {
  if (!value) return undefined;
  if (isList(value)) return [...value.value];
  return value.type === "data" ? JSON.parse(JSON.stringify(value.value)) : value.value;
}

/**
 * Where tend knowingly differs from cf-agent, and why. These cases still
 * run (they must not throw) but their value is not compared: they are
 * reported as todo, not as passes.
 */
export const KNOWN_DIFFERENCES: ReadonlyMap<string, string> = new Map([
  ["sum('[1e2]')", "cf-agent exits on a JSON number with an exponent; tend reads it"],
  [
    `parseyaml('a: 0x10\nb: 010\nc: 1e3\nd: .inf\ne: "1"\nf: no\ng: null')`,
    "cf-agent exits on the YAML number 1e3; tend reads it",
  ],
  [`mergedata("cs[0]")`, "cf-agent printed no report for this case; the call stack is not recorded"],
]);

/** Asserts tend's result equals cf-agent's; rejected policies must fail in tend too. */
export function checkCase(c: RecordedCase, t: TestContext): void {
  const actual = evaluateCase(c);
  const label = `${c.id}: ${c.expr}`;
  const known = KNOWN_DIFFERENCES.get(c.expr);
  if (known !== undefined) {
    t.todo(known);
    return;
  }
  if (c.result === "rejected" || c.result === "policy none") {
    assert.equal(normalise(actual), undefined, label);
    return;
  }
  assert.ok(actual, `${label} failed in tend`);
  const kind = c.result.startsWith("data") ? "data" : /list$/.test(c.result) ? "list" : "scalar";
  const actualKind = actual.type === "data" ? "data" : isList(actual) ? "list" : "scalar";
  assert.equal(actualKind, kind, `${label}: kind`);
  const expected = JSON.parse(JSON.stringify(c.value).replaceAll("{DIR}", dir));
  let got = normalise(actual);
  if (unordered(c) && Array.isArray(got) && Array.isArray(expected)) {
    got = [...(got as string[])].sort();
    expected.sort();
  }
  assert.deepEqual(got, expected, label);
}
