import assert from "node:assert/strict";
import { test } from "node:test";
import {
  isValidAttribute,
  knownResourceTypes,
  METAPARAMETERS,
  namevarsFromTitle,
  resourceTypeInfo,
} from "../../../src/puppet/eval/resource-types.js";

test("built-in and module types are known, case-insensitively", () => {
  for (const t of ["file", "exec", "package", "service", "user", "group", "notify", "cron", "host"])
    assert.ok(resourceTypeInfo(t), t);
  for (const t of ["concat_file", "concat_fragment", "file_line", "anchor", "Tidy", "SCHEDULE"])
    assert.ok(resourceTypeInfo(t), t);
  assert.equal(resourceTypeInfo("nosuch"), undefined);
  assert.equal(resourceTypeInfo("constructor"), undefined);
  assert.ok(knownResourceTypes().includes("filebucket"));
});

test("parameters, properties and metaparameters", () => {
  const file = resourceTypeInfo("file");
  assert.ok(file);
  assert.ok(file.parameters.has("content") && file.properties.has("content"));
  assert.ok(file.parameters.has("source") && !file.properties.has("source"));
  assert.ok(isValidAttribute(file, "name"));
  assert.ok(isValidAttribute(file, "before"));
  assert.ok(!isValidAttribute(file, "contents"));
  assert.equal(METAPARAMETERS.size, 11);
  assert.deepEqual(resourceTypeInfo("exec")?.namevars, ["command"]);
  assert.deepEqual(resourceTypeInfo("package")?.namevars, ["name", "provider", "command"]);
});

test("title patterns", () => {
  const file = resourceTypeInfo("file");
  assert.ok(file);
  assert.deepEqual(namevarsFromTitle(file, "/tmp/x//"), { path: "/tmp/x" });
  assert.deepEqual(namevarsFromTitle(file, "/"), { path: "/" });
  const notify = resourceTypeInfo("notify");
  assert.ok(notify);
  assert.deepEqual(namevarsFromTitle(notify, "hi/"), { name: "hi/" });
});
