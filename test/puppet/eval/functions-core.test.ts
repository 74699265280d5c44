import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { coreFunctions } from "../../../src/puppet/eval/functions/core/index.js";
import type { CallContext } from "../../../src/puppet/eval/functions/registry.js";
import type { PCallable, PValue } from "../../../src/puppet/eval/values.js";

const ctx: CallContext = {
  name: "test",
  lookupVariable: () => undefined,
  warn: () => {},
  callFunction: (name, args, block) => call(name, args, block),
};

function call(name: string, args: readonly PValue[], block?: PCallable): PValue {
  const f = coreFunctions.get(name);
  if (!f) throw new Error(`no function ${name}`);
  return f({ ...ctx, name }, args, block);
}

function lambda(min: number, max: number, f: (...a: PValue[]) => PValue): PCallable {
  return { kind: "callable", minArgs: min, maxArgs: max, call: (args) => f(...args) };
}

describe("core functions (unit)", () => {
  it("split follows Ruby's String#split", () => {
    assert.deepEqual(call("split", ["a,b,,c,,", ","]), ["a", "b", "", "c"]);
    assert.deepEqual(call("split", ["abc", ""]), ["a", "b", "c"]);
  });
  it("argument errors have Puppet's wording", () => {
    assert.throws(() => call("split", ["a"]), { message: "'split' expects 2 arguments, got 1" });
    assert.throws(() => call("abs", [[1n]]), {
      message: "'abs' parameter 'val' expects a value of type Numeric or String, got Tuple",
    });
  });
  it("map gives index and element to a 2-parameter block", () => {
    assert.deepEqual(
      call(
        "map",
        [["a", "b"]],
        lambda(2, 2, (i, x) => `${String(i)}${String(x)}`),
      ),
      ["0a", "1b"],
    );
  });
  it("versioncmp", () => {
    assert.equal(call("versioncmp", ["1.10", "1.9"]), 1n);
    assert.equal(call("versioncmp", ["1.0", "1.0.0", true]), 0n);
  });
});
