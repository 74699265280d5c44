import assert from "node:assert/strict";
import { test } from "node:test";
import { coreFunctions } from "../../../src/puppet/eval/functions/core/index.js";
import type {
  CallContext,
  CatalogResourceView,
  CompileView,
} from "../../../src/puppet/eval/functions/registry.js";
import { stdlibFunctions } from "../../../src/puppet/eval/functions/stdlib/index.js";
import { type PCallable, PHash, type PValue } from "../../../src/puppet/eval/values.js";

function lambda(n: number, f: (...a: PValue[]) => PValue): PCallable {
  return { kind: "callable", minArgs: n, maxArgs: n, call: (args) => f(...args) };
}

function res(type: string, title: string, params: Record<string, PValue> = {}): CatalogResourceView {
  return { type, title, parameters: new Map(Object.entries(params)) };
}

function ctxWith(
  resources: CatalogResourceView[],
  created: PValue[][],
  warnings: string[] = [],
): CallContext {
  const compile: CompileView = {
    findResource: (t, title) => resources.find((r) => r.type === t.toLowerCase() && r.title === title),
    resourcesOfType: (t) => resources.filter((r) => r.type === t.toLowerCase()),
    hasFunction: (n) => stdlibFunctions.has(n) || coreFunctions.has(n),
    modulePath: (n) => (n === "stdlib" ? "/modules/stdlib" : undefined),
  };
  const ctx: CallContext = {
    name: "test",
    lookupVariable: () => undefined,
    warn: (m) => warnings.push(m),
    compile,
    callFunction: (n, args, block) => {
      if (n === "create_resources") {
        created.push([...args]);
        return undefined;
      }
      const f = stdlibFunctions.get(n) ?? coreFunctions.get(n);
      if (!f) throw new Error(`no ${n}`);
      return f(ctx, args, block);
    },
  };
  return ctx;
}

function call(name: string, args: PValue[], block?: PCallable, ctx = ctxWith([], [])): PValue {
  const f = stdlibFunctions.get(name);
  assert.ok(f, name);
  return f(ctx, args, block);
}

test("stdlib::merge with a block, stdlib::sort_by", () => {
  const two = call(
    "stdlib::merge",
    [["a", "b"]],
    lambda(2, (_acc, v) => PHash.fromRecord({ [String(v)]: 1n })),
  );
  assert.deepEqual([...(two as PHash).keys()], ["a", "b"]);
  const three = call(
    "stdlib::merge",
    [PHash.fromRecord({ x: 1n, y: 2n })],
    lambda(3, (_acc, k, v) => ((v as bigint) > 1n ? PHash.fromRecord({ [String(k)]: v }) : undefined)),
  );
  assert.deepEqual([...(three as PHash)], [["y", 2n]]);
  assert.deepEqual(
    call(
      "stdlib::sort_by",
      [["bb", "a", "ccc"]],
      lambda(1, (s) => BigInt(String(s).length)),
    ),
    ["a", "bb", "ccc"],
  );
  assert.equal(
    call(
      "stdlib::sort_by",
      ["cab"],
      lambda(1, (c) => c),
    ),
    "abc",
  );
});

test("ensure_resource creates only what is not declared with those parameters", () => {
  const created: PValue[][] = [];
  const ctx = ctxWith([res("package", "vim", { ensure: "present" })], created);
  call(
    "ensure_resource",
    ["package", ["vim", "git"], PHash.fromRecord({ ensure: "present" })],
    undefined,
    ctx,
  );
  assert.equal(created.length, 1);
  const [type, instances] = created[0] as PValue[];
  assert.equal(type, "Package");
  assert.deepEqual([...(instances as PHash).keys()], ["git"]);
});

test("ensure_packages: present when declared present elsewhere, else installed", () => {
  const created: PValue[][] = [];
  const ctx = ctxWith([], created);
  call("stdlib::ensure_packages", [["curl"]], undefined, ctx);
  const [, instances] = created[0] as PValue[];
  const params = (instances as PHash).get("curl") as PHash;
  assert.equal(params.get("ensure"), "installed");
});

test("defined_with_params, getparam, has_function, get_module_path", () => {
  const ctx = ctxWith([res("file", "/x", { mode: "0644" })], []);
  assert.equal(
    call("defined_with_params", ["File[/x]", PHash.fromRecord({ mode: "0644" })], undefined, ctx),
    true,
  );
  assert.equal(
    call("defined_with_params", ["File[/x]", PHash.fromRecord({ mode: "0600" })], undefined, ctx),
    false,
  );
  assert.equal(call("defined_with_params", ["File[/y]"], undefined, ctx), false);
  assert.equal(call("getparam", ["File[/x]", "mode"], undefined, ctx), "0644");
  assert.equal(call("getparam", ["File[/x]", "owner"], undefined, ctx), "");
  assert.equal(call("stdlib::has_function", ["stdlib::merge"], undefined, ctx), true);
  assert.equal(call("stdlib::has_function", ["nope"], undefined, ctx), false);
  assert.equal(call("get_module_path", ["stdlib"], undefined, ctx), "/modules/stdlib");
});

test("without the compiler's view, catalog functions say what they need", () => {
  const bare: CallContext = {
    name: "x",
    lookupVariable: () => undefined,
    warn: () => {},
    callFunction: () => undefined,
  };
  assert.throws(() => call("getparam", ["File[/x]", "mode"], undefined, bare), /needs the compiler/);
});

test("deprecated names warn once per name when the caller dedupes", () => {
  const warnings: string[] = [];
  const seen = new Set<string>();
  const ctx: CallContext = {
    ...ctxWith([], [], warnings),
    file: "/m/init.pp",
    line: 3,
    warnOnce: (key, m) => {
      if (!seen.has(key)) warnings.push(m);
      seen.add(key);
    },
  };
  call("merge", [PHash.fromRecord({ a: 1n })], undefined, ctx);
  call("merge", [PHash.fromRecord({ a: 1n })], undefined, ctx);
  assert.deepEqual(warnings, [
    "This function is deprecated, please use stdlib::merge instead. at /m/init.pp:3",
  ]);
});
