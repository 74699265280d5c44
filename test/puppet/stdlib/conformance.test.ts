/**
 * stdlib 9.7.0's functions as tend implements them, against what Puppet
 * 7.23 returned for the same calls (test/fixtures/puppet-stdlib, recorded
 * by record.rb): the same value and warnings, or both failing.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { coreFunctions } from "../../../src/puppet/eval/functions/core/index.js";
import { type CallContext, FunctionError } from "../../../src/puppet/eval/functions/registry.js";
import { stdlibFunctions } from "../../../src/puppet/eval/functions/stdlib/index.js";
import { type PType, parameterize, typeByName } from "../../../src/puppet/eval/types.js";
import {
  DEFAULT,
  PHash,
  PObject,
  PRegexp,
  PSensitive,
  type PValue,
  isType,
} from "../../../src/puppet/eval/values.js";

const dir = join(process.cwd(), "test/fixtures/puppet-stdlib");

type Tagged = unknown;
interface Case {
  id: string;
  fn: string;
  args: Tagged[];
}
interface Expected {
  result?: Tagged;
  error?: string;
  warnings?: string[];
}

function decode(v: Tagged): PValue {
  if (v === null) return undefined;
  if (typeof v === "number") return BigInt(v);
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (Array.isArray(v)) return v.map(decode);
  const [[tag, x]] = Object.entries(v as Record<string, unknown>) as [[string, unknown]];
  switch (tag) {
    case "$float":
      return x as number;
    case "$hash":
      return PHash.from((x as [Tagged, Tagged][]).map(([a, b]) => [decode(a), decode(b)] as const));
    case "$regexp":
      return new PRegexp(x as string, new RegExp(x as string));
    case "$default":
      return DEFAULT;
    case "$sensitive":
      return new PSensitive(decode(x));
    case "$type": {
      const m = /^(\w+)\[(\w+)\]$/.exec(x as string);
      const t = m
        ? (parameterize(typeByName(m[1] as string) as PType, [typeByName(m[2] as string) as PType]) as PType)
        : typeByName(x as string);
      if (!t) throw new Error(`test needs the type ${String(x)}`);
      return t;
    }
    default:
      throw new Error(`unknown tag ${tag}`);
  }
}

function encode(v: PValue): Tagged {
  if (v === undefined) return null;
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "number") return { $float: v };
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (Array.isArray(v)) return v.map(encode);
  if (v instanceof PHash) return { $hash: [...v].map(([a, b]) => [encode(a), encode(b)]) };
  if (v instanceof PRegexp) return { $regexp: v.source };
  if (v === DEFAULT) return { $default: true };
  if (v instanceof PSensitive) return { $sensitive: encode(v.value) };
  if (isType(v)) return { $type: v.toString() };
  if (v instanceof PObject) return { $ruby: v.toString() };
  return { $ruby: String(v) };
}

const facts = decodeFacts(JSON.parse(readFileSync(join(dir, "facts.json"), "utf8")));
function decodeFacts(v: unknown): PValue {
  if (v === null) return undefined;
  if (typeof v === "number") return Number.isInteger(v) ? BigInt(v) : v;
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (Array.isArray(v)) return v.map(decodeFacts);
  return PHash.from(
    Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, decodeFacts(x)] as const),
  );
}

function context(name: string, warnings: string[]): CallContext {
  const seen = new Set<string>();
  const ctx: CallContext = {
    name,
    lookupVariable: (n) => (n === "facts" ? facts : (facts as PHash).get(n.replace(/^::/, ""))),
    warn: (m) => warnings.push(m),
    warnOnce: (key, m) => {
      if (seen.has(key)) return;
      seen.add(key);
      warnings.push(m);
    },
    callFunction: (n, args, block) => {
      if (n === "fail") throw new FunctionError(args.map(String).join(" "));
      const f = stdlibFunctions.get(n) ?? coreFunctions.get(n);
      if (!f) throw new FunctionError(`Unknown function: '${n}'`);
      return f({ ...ctx, name: n }, args, block);
    },
  };
  return ctx;
}

const cases = JSON.parse(readFileSync(join(dir, "cases.json"), "utf8")) as Case[];
const expected = JSON.parse(readFileSync(join(dir, "expected.json"), "utf8")) as Record<string, Expected>;

/** Calls whose Puppet result is not reproducible (random) or not implemented on purpose, with why. */
const SKIPPED: Record<string, string> = {};
/** Calls whose warnings come from Puppet's internals (the 3.x autoloader, strict variables), not from stdlib. */
const OWN_WARNINGS: Record<string, string> = {
  "387-has_ip_address": "Puppet warns about the 3.x autoloader and the undefined legacy fact",
  "388-has_ip_network": "Puppet warns about the 3.x autoloader and the undefined legacy fact",
};

test("stdlib functions give what Puppet 7.23 with stdlib 9.7.0 gives", (t) => {
  const failures: string[] = [];
  let same = 0;
  let messages = 0;
  let bothFailed = 0;
  for (const c of cases) {
    if (SKIPPED[c.id]) continue;
    const exp = expected[c.id] as Expected;
    const f = stdlibFunctions.get(c.fn);
    const warnings: string[] = [];
    let got: Expected;
    try {
      if (!f) throw new FunctionError(`Unknown function: '${c.fn}'`);
      got = { result: encode(f(context(c.fn, warnings), c.args.map(decode), undefined)) };
    } catch (e) {
      if (!(e instanceof Error)) throw e;
      got = { error: e.message };
    }
    if (warnings.length > 0) got.warnings = warnings;
    if (OWN_WARNINGS[c.id]) {
      delete got.warnings;
      delete exp.warnings;
    }
    if (exp.error !== undefined && got.error !== undefined) {
      bothFailed++;
      if (exp.error.replace(/^[\w:]+: /, "") === got.error) messages++;
      else if (process.env.STDLIB_MESSAGES)
        console.log(`${c.id}\n  puppet: ${exp.error}\n  tend:   ${got.error}`);
      same++;
      continue;
    }
    try {
      assert.deepEqual(got, exp);
      same++;
    } catch {
      failures.push(
        `${c.id}: ${c.fn}(${JSON.stringify(c.args)})\n  puppet: ${JSON.stringify(exp)}\n  tend:   ${JSON.stringify(got)}`,
      );
    }
  }
  const total = cases.length - Object.keys(SKIPPED).length;
  const fns = new Set(cases.map((c) => c.fn));
  t.diagnostic(
    `${same}/${total} calls of ${fns.size} functions identical; ${messages}/${bothFailed} failures with Puppet's message`,
  );
  assert.deepEqual(
    failures,
    [],
    `${same}/${total} identical (${messages}/${bothFailed} errors with Puppet's message)`,
  );
});
