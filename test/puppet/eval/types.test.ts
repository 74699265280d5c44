import assert from "node:assert/strict";
import { test } from "node:test";
import {
  DATA,
  describeMismatch,
  formatValue,
  inferSet,
  inferType,
  newInstance,
  type PType,
  parameterize,
  stringFormat,
  typeByName,
} from "../../../src/puppet/eval/types.js";
import { PHash } from "../../../src/puppet/eval/values.js";

const T = (name: string, ...args: unknown[]): PType => {
  const base = typeByName(name);
  assert.ok(base, name);
  return args.length ? (parameterize(base, args as never) as PType) : base;
};

test("built-in names and parameterisation render as Puppet does", () => {
  assert.equal(String(T("Integer", 1n, 10n)), "Integer[1, 10]");
  assert.equal(String(T("Enum", "b", "a")), "Enum['a', 'b']");
  assert.equal(String(T("Resource", "concat::fragment", "x")), "Concat::Fragment['x']");
  assert.equal(String(T("Class", "Ntp")), "Class[ntp]");
  assert.equal(String(T("Optional", T("String", 1n))), "Optional[String[1]]");
  assert.throws(() => T("Integer", "a"), /Integer-Type \[\] requires all arguments to be integers/);
});

test("instances and assignability", () => {
  assert.ok(T("Integer", 1n, 10n).isInstance(5n));
  assert.ok(!T("Integer", 1n, 10n).isInstance(11n));
  assert.ok(T("Integer", 1n, 10n).isAssignable(T("Integer", 2n, 3n)));
  assert.ok(DATA().isInstance([1n, PHash.fromRecord({ a: [undefined] })]));
  assert.ok(T("String", 1n, 2n).isAssignable(T("Enum", "a", "bb")));
  assert.ok(!T("String", 1n, 1n).isAssignable(T("Enum", "a", "bb")));
});

test("inference, formatting and mismatch texts", () => {
  assert.equal(String(inferType([1n, "a"])), "Array[ScalarData, 2, 2]");
  assert.equal(String(inferSet(PHash.fromRecord({ a: 1n }))), "Struct[{'a' => Integer[1, 1]}]");
  assert.equal(
    describeMismatch("parameter 'x'", T("Integer"), "a"),
    "parameter 'x' expects an Integer value, got String",
  );
  assert.equal(
    describeMismatch("parameter 'x'", T("Optional", T("String")), 1n),
    "parameter 'x' expects a value of type Undef or String, got Integer",
  );
  assert.equal(
    describeMismatch("parameter 'x'", T("Enum", "a", "b"), "c"),
    "parameter 'x' expects a match for Enum['a', 'b'], got 'c'",
  );
  const v = [1n, "a", PHash.fromRecord({ b: 2n })];
  assert.equal(formatValue(v), "[1, a, {b => 2}]");
  assert.equal(stringFormat(v), "[1, 'a', {'b' => 2}]");
  assert.equal(newInstance(T("Integer"), ["0x10"]), 16n);
  assert.equal(stringFormat(255n, "%x"), "ff");
});
