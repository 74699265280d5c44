/**
 * tend's core functions against Puppet 7.23's recorded results: every call
 * of test/fixtures/puppet-functions/cases.pp, evaluated by Puppet (results.json,
 * see the README there) and here. Arguments are literals (parsed by tend's
 * parser), lambdas come from the small table below. Known differences are
 * listed with their reason in known-differences.json; every other case must match.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { coreFunctions } from "../../../src/puppet/eval/functions/core/index.js";
import { BreakIteration } from "../../../src/puppet/eval/functions/core/iterable.js";
import { rubyFloat } from "../../../src/puppet/eval/functions/core/spec.js";
import type { CallContext } from "../../../src/puppet/eval/functions/registry.js";
import { type PType, newInstance, parameterize, typeByName } from "../../../src/puppet/eval/types.js";
import {
  DEFAULT,
  PBinary,
  type PCallable,
  PHash,
  PIterator,
  PObject,
  PRegexp,
  PSensitive,
  type PValue,
  equals,
  isType,
} from "../../../src/puppet/eval/values.js";
import type * as A from "../../../src/puppet/lang/ast.js";
import { parsePuppet } from "../../../src/puppet/lang/parser.js";
import { rubyRegExp } from "../../../src/puppet/types/ruby-regexp.js";

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, "../../../../test/fixtures/puppet-functions");

type Encoded = unknown;
interface Recorded {
  call: string;
  value?: Encoded;
  error?: string;
  warnings?: string[];
}
interface Results {
  facts: Record<string, unknown>;
  variables: Record<string, unknown>;
  results: Recorded[];
}

const results = JSON.parse(readFileSync(join(fixtures, "results.json"), "utf8")) as Results;
const known = JSON.parse(readFileSync(join(fixtures, "known-differences.json"), "utf8")) as Record<
  string,
  string
>;

function fromJson(v: unknown): PValue {
  if (v === null) return undefined;
  if (typeof v === "number") return Number.isInteger(v) ? BigInt(v) : v;
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (Array.isArray(v)) return v.map(fromJson);
  return PHash.from(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, fromJson(x)] as const));
}

const variables = new Map<string, PValue>([
  ["facts", fromJson(results.facts)],
  ...Object.entries(results.variables).map(([k, v]) => [k, fromJson(v)] as [string, PValue]),
]);

function call(name: string, args: readonly PValue[], block?: PCallable): PValue {
  // `new` is the compiler's; the type system's newInstance is what it calls.
  if (name === "new") return newInstance(args[0] as PType, args.slice(1));
  const f = coreFunctions.get(name);
  if (!f) throw new Error(`tend has no function '${name}'`);
  return f(context(name), args, block);
}

function context(name: string): CallContext {
  return {
    name,
    lookupVariable: (v) => variables.get(v.replace(/^::/, "")),
    warn: () => {},
    callFunction: call,
  };
}

// --- the lambdas the cases use, by their exact text -------------------------
const num = (v: PValue): number => Number(v);
function plus(a: PValue, b: PValue): PValue {
  if (Array.isArray(a)) return Array.isArray(b) ? [...a, ...b] : [...a, b];
  if (typeof a === "bigint" && typeof b === "bigint") return a + b;
  return num(a) + num(b);
}
function times(a: PValue, b: bigint): PValue {
  return typeof a === "bigint" ? a * b : num(a) * Number(b);
}
const lam = (min: number, max: number, f: (...a: PValue[]) => PValue): PCallable => ({
  kind: "callable",
  minArgs: min,
  maxArgs: max,
  call: (args) => f(...args),
});
const LAMBDAS: Record<string, PCallable> = {
  "|$x| { $x * 2 }": lam(1, 1, (x) => times(x, 2n)),
  "|$x| { $x > 1 }": lam(1, 1, (x) => num(x) > 1),
  "|$x| { $x > 5 }": lam(1, 1, (x) => num(x) > 5),
  "|$i, $x| { $i > 1 }": lam(2, 2, (i) => num(i) > 1),
  "|$k, $v| { $v > 1 }": lam(2, 2, (_k, v) => num(v) > 1),
  "|$x| { $x[1] > 1 }": lam(1, 1, (x) => num((x as PValue[])[1]) > 1),
  "|$x| { $x[1] }": lam(1, 1, (x) => (x as PValue[])[1]),
  "|$x| { $x[0] }": lam(1, 1, (x) => (x as PValue[])[0]),
  "|$i, $x| { [$i, $x] }": lam(2, 2, (i, x) => [i, x]),
  "|$k, $v| { [$k, $v] }": lam(2, 2, (k, v) => [k, v]),
  "|$a, $b| { [$a, $b] }": lam(2, 2, (a, b) => [a, b]),
  "|$path, $v| { [$path, $v] }": lam(2, 2, (p, v) => [p, v]),
  "|$a, $b, $c| { [$a, $b, $c] }": lam(3, 3, (a, b, c) => [a, b, c]),
  "|$k, $v| { $v }": lam(2, 2, (_k, v) => v),
  "|$x| { $x }": lam(1, 1, (x) => x),
  "|$x| { $x % 2 }": lam(1, 1, (x) => (x as bigint) % 2n),
  "|$i, $x| { $i % 2 }": lam(2, 2, (i) => (i as bigint) % 2n),
  "|$m, $x| { $m + $x }": lam(2, 2, plus),
  "|$a, $b| { compare($b, $a) }": lam(2, 2, (a, b) => call("compare", [b, a])),
  "|$x| { $x == 'b' }": lam(1, 1, (x) => equals(x, "b")),
  "|$x| { $x == 'c' }": lam(1, 1, (x) => equals(x, "c")),
  "|$x| { upcase($x) }": lam(1, 1, (x) => call("upcase", [x])),
  "|$x| { if $x == 3 { break() } $x }": lam(1, 1, (x) => {
    if (equals(x, 3n)) throw new BreakIteration();
    return x;
  }),
  "|$x| { if $x == 2 { break() } $x }": lam(1, 1, (x) => {
    if (equals(x, 2n)) throw new BreakIteration();
    return x;
  }),
  "|$x, $y = 10| { [$x, $y] }": lam(1, 2, (x, y) => [x, y ?? 10n]),
  "|*$r| { $r }": lam(0, Number.POSITIVE_INFINITY, (...r) => r),
  "|| { 'fallback' }": lam(0, 0, () => "fallback"),
  "|$x| { $x == 2 }": lam(1, 1, (x) => equals(x, 2n)),
  "|$x| { 'same' }": lam(1, 1, () => "same"),
  "|$e| { 'err' }": lam(1, 1, () => "err"),
  "|$e| { 'handled' }": lam(1, 1, () => "handled"),
  "|$a, $b| { compare($a, $b) }": lam(2, 2, (a, b) => call("compare", [a, b])),
  "|$k, $v| { true }": lam(2, 2, () => true),
  "|$m, $x| { $m }": lam(2, 2, (m) => m),
  "|$a, $b = 9| { [$a, $b] }": lam(1, 2, (a, b) => [a, b ?? 9n]),
};

// --- a literal evaluator for the arguments ----------------------------------
class Unsupported extends Error {}

function evaluate(e: A.Expression, text: string): PValue {
  switch (e.kind) {
    case "LiteralString":
      return e.value;
    case "LiteralInteger":
      return BigInt(e.value);
    case "LiteralFloat":
      return e.value;
    case "LiteralBoolean":
      return e.value;
    case "LiteralUndef":
      return undefined;
    case "LiteralDefault":
      return DEFAULT;
    case "LiteralRegex":
      return new PRegexp(e.pattern, rubyRegExp(e.pattern));
    case "LiteralList":
      return e.values.map((x) => evaluate(x, text));
    case "LiteralHash":
      return PHash.from(e.entries.map((en) => [evaluate(en.key, text), evaluate(en.value, text)] as const));
    case "QualifiedName":
      return e.value;
    case "ConcatenatedString":
      return e.segments.map((s) => String(evaluate(s, text))).join("");
    case "Arithmetic": {
      const l = evaluate(e.left, text);
      const r = evaluate(e.right, text);
      if (typeof l === "bigint" && typeof r === "bigint" && e.operator !== "/")
        return e.operator === "+" ? l + r : e.operator === "-" ? l - r : l * r;
      const [x, y] = [num(l), num(r)];
      return e.operator === "+" ? x + y : e.operator === "-" ? x - y : e.operator === "*" ? x * y : x / y;
    }
    case "UnaryMinus": {
      const v = evaluate(e.expr, text);
      return typeof v === "bigint" ? -v : -num(v);
    }
    case "QualifiedReference": {
      const t = typeByName(e.cased);
      if (!t) throw new Unsupported(`type ${e.cased}`);
      return t;
    }
    case "Access": {
      const left = evaluate(e.left, text);
      if (!isType(left)) throw new Unsupported("access");
      return parameterize(
        left,
        e.keys.map((k) => evaluate(k, text)),
      ) as PValue;
    }
    case "CallNamedFunction":
      return evaluateCall(e, text);
    default:
      throw new Unsupported(e.kind);
  }
}

function evaluateCall(e: A.CallNamedFunction, text: string): PValue {
  const name = (e.functor as A.QualifiedName | A.QualifiedReference).value;
  const args = e.args.map((a) => evaluate(a, text));
  if (name === "sensitive") return new PSensitive(args[0]);
  if (name === "binary") return new PBinary(Buffer.from(String(args[0]), "base64"));
  if (e.functor.kind === "QualifiedReference") {
    // `Timespan('1-00:00:00')`: the type's `new`.
    const t = typeByName(e.functor.cased);
    if (!t) throw new Unsupported(`type ${e.functor.cased}`);
    return newInstance(t, args);
  }
  let block: PCallable | undefined;
  if (e.lambda) {
    const src = text.slice(e.lambda.offset, e.lambda.offset + e.lambda.length);
    block = LAMBDAS[src];
    if (!block) throw new Error(`no lambda for ${src}`);
  }
  return call(name, args, block);
}

function run(code: string): { value?: Encoded; error?: string } {
  const parsed = parsePuppet(code);
  if (!parsed.ok) throw new Error(`${code}: ${parsed.error.message}`);
  let body = parsed.program.body;
  if (body.kind === "Block") body = body.statements[0] as A.Expression;
  try {
    return { value: encode(evaluate(body, code)) };
  } catch (error) {
    if (error instanceof Unsupported) return { error: `unsupported here: ${error.message}` };
    return { error: (error as Error).message };
  }
}

// --- the encoding record.rb uses ----------------------------------------------
function encode(v: PValue): Encoded {
  if (v === undefined) return null;
  if (v === DEFAULT) return { default: true };
  if (typeof v === "bigint") return { int: String(v) };
  if (typeof v === "number") return { float: rubyFloat(v) };
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (Array.isArray(v)) return v.map(encode);
  if (v instanceof PHash) return { hash: [...v].map(([k, x]) => [encode(k), encode(x)]) };
  if (v instanceof PRegexp) return { regexp: v.source };
  if (v instanceof PSensitive) return { sensitive: encode(v.value) };
  if (v instanceof PBinary) return { binary: Buffer.from(v.bytes).toString("base64") };
  if (v instanceof PIterator) return { iterator: [...v.produce()].map(encode) };
  if (isType(v)) return { type: v.toString() };
  if (v instanceof PObject) return { str: v.toString() };
  return { unknown: String(v) };
}

function comparable(r: { value?: Encoded; error?: string }): string {
  if (r.error !== undefined) return `error: ${r.error}`;
  return JSON.stringify(r.value, (_k, x) =>
    x && typeof x === "object" && "object" in x ? { str: x.str } : x,
  );
}

describe("core functions against Puppet 7.23", () => {
  const outcomes = results.results.map((rec) => {
    const expected = comparable(rec);
    const actual = comparable(run(rec.call));
    return { call: rec.call, expected, actual, same: expected === actual };
  });
  const matching = outcomes.filter((o) => o.same).length;

  it(`matches the recorded results (${matching} of ${outcomes.length})`, () => {
    const unexpected = outcomes.filter((o) => !o.same && !(o.call in known));
    const report = unexpected
      .map((o) => `${o.call}\n  puppet: ${o.expected}\n  tend:   ${o.actual}`)
      .join("\n");
    const out = process.env.TEND_FUNCTIONS_DIFF;
    if (out) writeFileSync(out, `${report}\n`);
    assert.equal(unexpected.length, 0, `${unexpected.length} calls differ:\n${report}`);
  });

  it("lists only differences that still exist", () => {
    // Those waiting for the type system start matching when it lands.
    const fixed = outcomes
      .filter((o) => o.same && o.call in known && !known[o.call]?.startsWith("type system:"))
      .map((o) => o.call);
    assert.deepEqual(fixed, []);
  });
});
