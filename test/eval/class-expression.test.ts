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
    lhs: { op: "name", name: "$(x)_ok" },
    rhs: { op: "name", name: "a" },
  });
});

test("canonify replaces every byte that is not a word character", () => {
  assert.equal(canonify("debian-12.1"), "debian_12_1");
  assert.equal(canonify("a b/c:d"), "a_b_c_d");
  assert.equal(canonify("é"), "__");
  assert.equal(canonifyClassName("ns:a-b"), "ns:a_b");
});
