/**
 * ERB templates rendered by tend and by Puppet 7.23 (recorded in
 * test/fixtures/puppet-erb/expected.json by record.rb): the same text, or
 * both failing.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { stdlibFunctions } from "../../../src/puppet/eval/functions/stdlib/index.js";
import { type CallContext, FunctionError } from "../../../src/puppet/eval/functions/registry.js";
import { PHash, type PValue } from "../../../src/puppet/eval/values.js";
import { renderErb, TemplateError, type TemplateScope } from "../../../src/puppet/erb/index.js";

const dir = join(process.cwd(), "test/fixtures/puppet-erb");

interface Case {
  id: string;
  file?: string;
  template?: string;
  vars: Record<string, unknown>;
}
type Expected = Record<string, { output?: string; error?: string; line?: number | null }>;

/** A JSON value as Puppet holds it: numbers are Integer, `{"$float": x}` a Float, null undef. */
function fromJson(v: unknown): PValue {
  if (v === null || v === undefined) return undefined;
  if (typeof v === "number") return Number.isInteger(v) ? BigInt(v) : v;
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (Array.isArray(v)) return v.map(fromJson);
  const o = v as Record<string, unknown>;
  if (Object.keys(o).length === 1 && typeof o.$float === "number") return o.$float;
  return PHash.from(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, fromJson(x)] as const));
}

export function scopeOf(vars: Record<string, unknown>): TemplateScope {
  const ctx: CallContext = {
    name: "",
    lookupVariable: (n) => fromJson(vars[n]),
    warn: () => {},
    callFunction: () => undefined,
  };
  return {
    lookupVariable: (n) => (Object.hasOwn(vars, n) ? fromJson(vars[n]) : undefined),
    hasVariable: (n) => Object.hasOwn(vars, n),
    callFunction: (name, args) => {
      const f = stdlibFunctions.get(name);
      if (!f) throw new FunctionError(`Unknown function: '${name}'`);
      return f({ ...ctx, name }, args, undefined);
    },
  };
}

/** Cases Ruby renders and tend refuses on purpose, with why. */
const DELIBERATE: Record<string, string> = {
  "inline/heredoc": "heredocs are not in the subset",
  "inline/backtick": "a template never runs shell commands at compile time",
  "inline/classes": "the template scope contract has no catalog classes",
};
/** Cases whose Ruby result is an accident of ERB's generated code, rendered sensibly instead. */
const DIFFERS: Record<string, string> = {
  "inline/comment-in-code":
    "Ruby's comment swallows the generated code after it (the template returns Integer 1)",
};

const cases = JSON.parse(readFileSync(join(dir, "cases.json"), "utf8")) as Case[];
const expected = JSON.parse(readFileSync(join(dir, "expected.json"), "utf8")) as Expected;

test("ERB templates render as Puppet 7.23 renders them", (t) => {
  const failures: string[] = [];
  let same = 0;
  for (const c of cases) {
    const exp = expected[c.id];
    assert.ok(exp, `no recorded result for ${c.id}`);
    const source = c.file ? readFileSync(join(dir, c.file), "utf8") : (c.template ?? "");
    let got: { output?: string; error?: string };
    try {
      got = { output: renderErb(source, c.file ?? "inline", scopeOf(c.vars)) };
    } catch (e) {
      if (!(e instanceof Error)) throw e;
      got = { error: e instanceof TemplateError ? `${e.message} (line ${e.line})` : e.message };
    }
    if (DIFFERS[c.id]) continue;
    if (DELIBERATE[c.id]) {
      assert.ok(got.error !== undefined, `${c.id} is beyond the subset: ${DELIBERATE[c.id]}`);
      continue;
    }
    if (exp.error !== undefined ? got.error !== undefined : got.output === exp.output) same++;
    else failures.push(`${c.id}:\n  puppet: ${JSON.stringify(exp)}\n  tend:   ${JSON.stringify(got)}`);
  }
  const compared = cases.length - Object.keys(DELIBERATE).length - Object.keys(DIFFERS).length;
  const sudo = cases.filter((c) => c.file).length;
  t.diagnostic(`${same}/${compared} identical (${sudo} renderings of the saz-sudo templates among them)`);
  assert.deepEqual(failures, [], `${same}/${compared} identical`);
});
