import assert from "node:assert/strict";
import { test } from "node:test";
import {
  canonify,
  canonifyClassName,
  checkClassExpression,
  parseClassExpression,
} from "../../src/eval/class-expression.js";

const defined = new Set(["a", "b", "linux", "debian_12", "ns:x", "arr_k_1"]);
const check = (text: string) => checkClassExpression(text, (n) => defined.has(n));

test("class expression truth table", () => {
  const table: [string, boolean | undefined][] = [
    ["a", true],
    ["c", false],
    ["!a", false],
    ["!c", true],
    ["a.b", true],
    ["a&b", true],
    ["a.c", false],
    ["a|c", true],
    ["a||c", true],
    ["c|d", false],
    ["c|a.b", true],
    ["a|b.c", true],
    ["c|b.c", false],
    ["!a.b", false],
    ["!c.b", true],
    ["!(a.c)", true],
    ["(a|c).b", true],
    ["(c|d).b", false],
    ["linux.!windows", true],
    ["ns:x", true],
    ["ns:y", false],
    ["true", true],
    ["false", false],
    ["!false", true],
    ["a . b", true],
    [" ( a | c ) ", true],
  ];
  for (const [text, expected] of table) assert.equal(check(text), expected, text);
});

test("malformed class expressions are errors, not false", () => {
  for (const text of ["", "a b", "!!a", "(a", "a)", "a|", ".a", "a..b", "a-b"]) {
    assert.equal(check(text), undefined, text);
    assert.equal(parseClassExpression(text).ok, false, text);
  }
});

test("variable references stay inside names", () => {
  const parsed = parseClassExpression("$(x)_ok.a");
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.expression, {
    op: "and",
    args: [
      { op: "name", name: "$(x)_ok" },
      { op: "name", name: "a" },
    ],
  });
});

test("thousands of nested parentheses parse and evaluate, as in 3.21", () => {
  const depth = 100_000;
  const nested = `${"(".repeat(depth)}any${")".repeat(depth)}`;
  assert.equal(
    checkClassExpression(nested, (name) => name === "any"),
    true,
  );
  const alternating = `${"(a|(b.".repeat(depth)}c${"))".repeat(depth)}`;
  assert.equal(
    checkClassExpression(alternating, (name) => name === "c"),
    false,
  );
  assert.equal(
    checkClassExpression(alternating, (name) => name === "b" || name === "c"),
    true,
  );
  assert.equal(
    checkClassExpression(`!(${nested})`, () => true),
    false,
  );
  const unclosed = parseClassExpression("(".repeat(depth) + "any");
  assert.ok(!unclosed.ok);
  assert.equal(unclosed.message, "missing ')' in class expression");
  assert.equal(
    checkClassExpression(`${"!".repeat(depth)}any`, () => true),
    undefined,
  );
});

test("canonify replaces every byte that is not a word character", () => {
  assert.equal(canonify("debian-12.1"), "debian_12_1");
  assert.equal(canonify("a b/c:d"), "a_b_c_d");
  assert.equal(canonify("é"), "__");
  assert.equal(canonifyClassName("ns:a-b"), "ns:a_b");
});
