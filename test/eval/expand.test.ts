// biome-ignore-all lint/suspicious/noTemplateCurlyInString: CFEngine references, not templates
import assert from "node:assert/strict";
import { test } from "node:test";
import { expandRval, expandString, hasUnresolvedReference } from "../../src/eval/expand.js";
import { data, list, scalar } from "../../src/eval/values.js";
import { makeContext, rval } from "./helpers.js";

const ctx = makeContext({
  x: "ex",
  k: "key",
  name: "x",
  "arr[key]": "array-value",
  "main.qualified": "q",
  "other.y": "why",
  "ns1:b.z": "zed",
  "sys.inputdir": "/in",
  lst: ["one", "two"],
  d: data({ a: { b: "deep" }, n: 3, arr: [1, 2] }),
});

test("string expansion cases", () => {
  const table: [string, string][] = [
    ["$(x)", "ex"],
    ["${x}", "ex"],
    ["<$(x)|${x}>", "<ex|ex>"],
    ["$(main.x)", "ex"],
    ["$(default:main.x)", "ex"],
    ["$(other.y)", "why"],
    ["$(ns1:b.z)", "zed"],
    ["$(sys.inputdir)/lib", "/in/lib"],
    ["$(arr[key])", "array-value"],
    ["$(arr[$(k)])", "array-value"],
    ["$($(name))", "ex"],
    ["$(d[a][b])", "deep"],
    ["$(d[n])", "3"],
    ["$(d[arr][1])", "2"],
    ["$(missing)", "$(missing)"],
    ["${missing}", "${missing}"],
    ["a $(missing[$(k)]) b", "a $(missing[key]) b"],
    ["$(lst)", "$(lst)"],
    ["@(lst)", "@(lst)"],
    ["$(x", "$(x"],
    ["no refs", "no refs"],
  ];
  for (const [text, expected] of table) assert.equal(expandString(ctx, text), expected, text);
});

test("unresolved references are detected", () => {
  assert.equal(hasUnresolvedReference("a $(b) c"), true);
  assert.equal(hasUnresolvedReference("@{l}"), true);
  assert.equal(hasUnresolvedReference("$ (b)"), false);
  assert.equal(hasUnresolvedReference("plain"), false);
});

test("rvals: lists splice @(list), whole @(x) gives the list", () => {
  assert.deepEqual(expandRval(ctx, rval('{ "a", @(lst), "$(x)" }')), list(["a", "one", "two", "ex"]));
  assert.deepEqual(expandRval(ctx, rval('{ "@(lst)", "b" }')), list(["one", "two", "b"]));
  assert.deepEqual(expandRval(ctx, rval('{ "@(nolist)" }')), list(["@(nolist)"]));
  assert.deepEqual(expandRval(ctx, rval('"@(lst)"')), list(["one", "two"]));
  assert.deepEqual(expandRval(ctx, rval('"$(x)/y"')), scalar("ex/y"));
  assert.deepEqual(expandRval(ctx, rval("@(d)")), data({ a: { b: "deep" }, n: 3, arr: [1, 2] }));
});

test("function calls in rvals", () => {
  assert.deepEqual(expandRval(ctx, rval('concat("$(x)", "-", "z")')), scalar("ex-z"));
  assert.deepEqual(expandRval(ctx, rval('join(",", lst)')), scalar("one,two"));
  assert.equal(expandRval(ctx, rval('concat("$(missing)")')), undefined);
  assert.equal(expandRval(ctx, rval('no_such_function("a")')), undefined);
  assert.deepEqual(expandRval(ctx, rval('{ "a", getindices("d") }')), list(["a", "a", "n", "arr"]));
});

test("iteration bindings take precedence for list references", () => {
  const bindings = new Map([["default:main.lst", "two"]]);
  assert.equal(expandString(ctx, "item-$(lst)", { bindings }), "item-two");
});
