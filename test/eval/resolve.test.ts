import assert from "node:assert/strict";
import { test } from "node:test";
import { EvalContext } from "../../src/eval/context.js";
import { resolveBundle } from "../../src/eval/resolve.js";
import { data, list, scalar } from "../../src/eval/values.js";
import { parseVarRef } from "../../src/eval/var-ref.js";
import { parseText } from "../../src/language/parser.js";

function resolveText(text: string, setup?: (ctx: EvalContext) => void): EvalContext {
  const { policy, diagnostics } = parseText(text, "/policy/dir/file.cf");
  assert.deepEqual(diagnostics, []);
  const ctx = new EvalContext();
  ctx.defineHardClass("linux");
  setup?.(ctx);
  for (const block of policy.blocks)
    if (block.kind === "bundle") resolveBundle(ctx, block, "/policy/dir/file.cf");
  return ctx;
}

const get = (ctx: EvalContext, name: string) => ctx.getVariable(parseVarRef(name));

test("common bundles: vars, then classes, then vars again", () => {
  const ctx = resolveText(`
bundle common c {
  vars:
    "a" string => "A";
    on::
      "late" string => "seen after classes";
    any::
      "inputs[x]" string => "$(this.promise_dirname)/x.cf";
      "inputs[y]" string => "y.cf", if => "linux";
      "inputs[z]" string => "z.cf", unless => "linux";
      "all" slist => getvalues("inputs");
      "n" int => "3";
      "d" data => '{"k": [1]}';
  classes:
    "on" expression => strcmp("$(a)", "A");
    "never" and => { "linux", "windows" };
    "either" or => { "linux", "windows" };
}`);
  assert.deepEqual(get(ctx, "c.a"), scalar("A"));
  assert.deepEqual(get(ctx, "c.late"), scalar("seen after classes"));
  assert.deepEqual(get(ctx, "c.all"), list(["/policy/dir/x.cf", "y.cf"]));
  assert.deepEqual(get(ctx, "c.n"), scalar("3", "int"));
  assert.deepEqual(get(ctx, "c.d"), data({ k: [1] }));
  assert.equal(ctx.isClassDefined("on"), true);
  assert.equal(ctx.isClassDefined("either"), true);
  assert.equal(ctx.isClassDefined("never"), false);
});

test("agent bundles: only vars; their classes are not pre-evaluated", () => {
  const ctx = resolveText(`
bundle agent a {
  vars: "v" string => "x";
  classes: "c" expression => "any";
}`);
  assert.deepEqual(get(ctx, "a.v"), scalar("x"));
  assert.equal(ctx.isClassDefined("c"), false);
});

test("promises iterate over lists in promiser and values", () => {
  const ctx = resolveText(`
bundle common it {
  vars:
    "dirs" slist => { "a", "b" };
    "path[$(dirs)]" string => "/root/$(dirs)";
  classes:
    "have_$(dirs)" expression => "any";
}`);
  assert.deepEqual(get(ctx, "it.path[a]"), scalar("/root/a"));
  assert.deepEqual(get(ctx, "it.path[b]"), scalar("/root/b"));
  assert.equal(ctx.isClassDefined("have_a"), true);
  assert.equal(ctx.isClassDefined("have_b"), true);
});

test("unresolvable values leave the variable undefined; a later round fills it", () => {
  const text = `
bundle common first { vars: "x" string => concat("$(second.y)", "!"); }
bundle common second { vars: "y" string => "why"; }`;
  const ctx = resolveText(text);
  assert.equal(get(ctx, "first.x"), undefined);
  const { policy } = parseText(text);
  for (const block of policy.blocks) if (block.kind === "bundle") resolveBundle(ctx, block, "f.cf");
  assert.deepEqual(get(ctx, "first.x"), scalar("why!"));
});

test("namespaces qualify soft classes and variables", () => {
  const ctx = resolveText(`
body file control { namespace => "ns1"; }
bundle common b {
  vars: "v" string => "in ns1";
  classes: "flag" expression => "linux";
}`);
  assert.deepEqual(get(ctx, "ns1:b.v"), scalar("in ns1"));
  assert.equal(get(ctx, "b.v"), undefined);
  assert.equal(ctx.isClassDefined("ns1:flag"), true);
  assert.equal(ctx.isClassDefined("flag"), false);
  assert.equal(ctx.isClassDefined("default:linux"), true);
});

test("a negated class is no hard class, but policy may define it (as in 3.21)", () => {
  const ctx = new EvalContext();
  ctx.negateClass("linux");
  ctx.defineHardClass("linux");
  assert.equal(ctx.isClassDefined("linux"), false);
  ctx.defineClass("linux");
  assert.equal(ctx.isClassDefined("linux"), true);
});
