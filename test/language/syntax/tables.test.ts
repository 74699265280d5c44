import { spawnSync } from "node:child_process";
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  BODY_TYPES,
  BUNDLE_TYPES,
  describeSyntax,
  FUNCTIONS,
  getBodyAttribute,
  getBodyType,
  getBundleEvaluation,
  getBundleType,
  getFunction,
  getPromiseAttribute,
  getPromiseType,
  isBuiltinPromiseType,
  isBundleType,
  isControlBodyType,
  listFunctions,
  PROMISE_TYPES,
  promiseTypeOrder,
} from "../../../src/language/syntax/index.js";

const live = <T extends { readonly status: string }>(record: Readonly<Record<string, T>>) =>
  Object.values(record).filter((item) => item.status !== "removed");

test("counts match 3.21", () => {
  assert.equal(listFunctions().length, 186);
  assert.equal(Object.keys(FUNCTIONS).length, 186);
  assert.equal(Object.values(BUNDLE_TYPES).filter((b) => b.parsedOnly !== true).length, 6);
  assert.equal(live(BODY_TYPES).length, 41);
  assert.equal(live(PROMISE_TYPES).length, 30);
});

test("vars attributes", () => {
  const int = getPromiseAttribute("agent", "vars", "int");
  assert.deepEqual(int, {
    name: "int",
    type: "int",
    range: "-99999999999,99999999999",
    status: "normal",
    visibility: "promiseType",
  });
  const policy = getPromiseAttribute("common", "vars", "policy");
  assert.deepEqual(policy?.options, ["free", "overridable", "constant", "ifdefined"]);
  assert.equal(getPromiseAttribute("agent", "vars", "if")?.visibility, "global");
});

test("body attributes name their body type", () => {
  const perms = getPromiseAttribute("agent", "files", "perms");
  assert.equal(perms?.type, "body");
  assert.equal(perms?.bodyType, "perms");
  assert.equal(perms?.range, undefined);
  assert.equal(getBodyAttribute("perms", "inherit_from")?.bodyType, "perms");
  assert.equal(getBodyAttribute("copy_from", "inherit_from")?.bodyType, "copy_from");
  assert.equal(getPromiseAttribute("agent", "methods", "usebundle")?.type, "bundle");
  assert.equal(getPromiseAttribute("agent", "methods", "usebundle")?.bodyType, undefined);
});

test("olist options and deprecated attributes", () => {
  const types = getBodyAttribute("file_select", "file_types");
  assert.equal(types?.type, "olist");
  assert.ok(types?.options?.includes("symlink"));
  assert.equal(getBodyAttribute("acl", "acl_directory_inherit")?.status, "deprecated");
  assert.equal(getBodyAttribute("server", "skipverify")?.status, "deprecated");
  assert.equal(getBodyAttribute("action", "value_kept")?.status, "removed");
  assert.equal(getBodyAttribute("agent", "auditing")?.status, "removed");
});

test("lookups do not see the object prototype", () => {
  assert.equal(getPromiseAttribute("agent", "vars", "constructor"), undefined);
  assert.equal(getBodyAttribute("perms", "__proto__"), undefined);
  assert.equal(getFunction("toString"), undefined);
  assert.equal(getBundleType("constructor"), undefined);
  assert.equal(getBundleEvaluation("constructor"), undefined);
  assert.equal(PROMISE_TYPES.vars?.attributes.hasOwnProperty, undefined);
});

test("promise types allowed per bundle type", () => {
  assert.equal(getPromiseType("server", "files"), undefined);
  assert.equal(getPromiseType("server", "access")?.name, "access");
  assert.equal(getPromiseType("nosuch", "vars"), undefined);
  assert.equal(getPromiseType("agent", "mytype"), undefined);
  assert.equal(getPromiseType("agent", "outputs")?.status, "removed");
  assert.equal(getPromiseType("common", "outputs"), undefined);
  // select_region applies to edit_line's own promise types, not to vars there.
  assert.equal(getPromiseAttribute("edit_line", "insert_lines", "select_region")?.visibility, "bundle");
  assert.equal(getPromiseAttribute("edit_line", "vars", "select_region"), undefined);
  assert.equal(getPromiseAttribute("edit_xml", "set_text", "select_xpath")?.type, "string");
});

test("parsed-only bundle types take the common promise types", () => {
  assert.equal(getBundleType("hub")?.parsedOnly, true);
  assert.ok(isBundleType("knowledge"));
  assert.ok(!isBundleType("edit_json"));
  assert.equal(getPromiseType("executor", "vars")?.name, "vars");
  assert.equal(getPromiseType("executor", "files"), undefined);
  assert.equal(getPromiseType("knowledge", "topics")?.status, "removed");
  assert.equal(getBundleEvaluation("hub"), undefined);
});

test("built-in promise types", () => {
  for (const name of ["vars", "files", "access", "measurements", "build_xpath", "outputs", "topics"]) {
    assert.ok(isBuiltinPromiseType(name), name);
  }
  assert.ok(!isBuiltinPromiseType("git"));
  assert.ok(!isBuiltinPromiseType("*"));
  assert.equal(Object.keys(PROMISE_TYPES).length, 35);
});

test("control body types", () => {
  const control = Object.values(BODY_TYPES)
    .filter((b) => b.control === true)
    .map((b) => b.name);
  assert.deepEqual(control.sort(), [
    "agent",
    "common",
    "executor",
    "file",
    "hub",
    "knowledge",
    "monitor",
    "reporter",
    "runagent",
    "server",
  ]);
  assert.ok(isControlBodyType("file"));
  assert.ok(!isControlBodyType("perms"));
  assert.equal(getBodyType("knowledge")?.status, "removed");
  assert.equal(getBodyAttribute("file", "namespace")?.type, "string");
  assert.equal(getBodyAttribute("agent", "meta"), undefined);
  // No promise attribute refers to a control body type.
  for (const type of Object.values(PROMISE_TYPES)) {
    for (const attribute of Object.values(type.attributes)) {
      if (attribute.bodyType !== undefined) assert.ok(!isControlBodyType(attribute.bodyType), attribute.name);
    }
  }
});

test("every body attribute names a known body type", () => {
  const blocks = [...Object.values(PROMISE_TYPES), ...Object.values(BODY_TYPES)];
  for (const block of blocks) {
    for (const attribute of Object.values(block.attributes)) {
      if (attribute.type !== "body") continue;
      assert.ok(getBodyType(attribute.bodyType ?? ""), `${block.name}.${attribute.name}`);
    }
  }
});

test("functions", () => {
  const concat = getFunction("concat");
  assert.equal(concat?.variadic, true);
  assert.equal(concat?.returnType, "string");
  assert.equal(concat?.category, "data");
  assert.equal(getFunction("readjson")?.parameters[0]?.type, "string");
  assert.equal(getFunction("splitstring")?.status, "deprecated");
  assert.equal(getFunction("maplist")?.delayedEvaluation, true);
  assert.equal(getFunction("execresult")?.unsafe, true);
  assert.equal(getFunction("execresult")?.cached, true);
  assert.equal(getFunction("canonify")?.unsafe, undefined);
  assert.equal(getFunction("mergedata")?.collecting, true);
  const hash = getFunction("hash")?.parameters[1];
  assert.equal(hash?.type, "option");
  assert.deepEqual(hash?.options, ["md5", "sha1", "sha256", "sha384", "sha512"]);
  const names = listFunctions().map((f) => f.name);
  assert.deepEqual(names, [...names].sort());
});

test("normal orders", () => {
  assert.deepEqual(promiseTypeOrder("edit_line"), [
    "vars",
    "classes",
    "delete_lines",
    "field_edits",
    "insert_lines",
    "replace_patterns",
    "reports",
  ]);
  assert.deepEqual(promiseTypeOrder("agent")?.slice(0, 6), [
    "meta",
    "vars",
    "defaults",
    "classes",
    "users",
    "files",
  ]);
  assert.deepEqual(promiseTypeOrder("common"), promiseTypeOrder("agent"));
  assert.deepEqual(promiseTypeOrder("server"), ["meta", "vars", "classes", "roles", "access"]);
  assert.deepEqual(promiseTypeOrder("common", "cf-serverd"), ["meta", "vars", "classes", "reports"]);
  assert.equal(promiseTypeOrder("monitor"), undefined);
  assert.equal(getBundleEvaluation("monitor")?.others, "written-order");
  assert.equal(getBundleEvaluation("agent")?.passes, 3);
  // Every promise type an order names is allowed in that bundle type (common
  // bundles share the agent order, which names agent-only types).
  for (const bundleType of ["agent", "edit_line", "edit_xml", "server"]) {
    for (const type of promiseTypeOrder(bundleType) ?? []) {
      assert.ok(getPromiseType(bundleType, type), `${bundleType} ${type}`);
    }
  }
});

/** Runs 3.21's cf-promises; `undefined` when it is not installed. */
function runCfPromises(): string | undefined {
  const result = spawnSync("cf-promises", ["--syntax-description", "json"], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error !== undefined) return undefined;
  assert.equal(result.status, 0, result.stderr);
  return result.stdout;
}

test("every fact cf-promises states agrees with the tables", (t) => {
  const output = runCfPromises();
  if (output === undefined) {
    t.skip("cf-promises not installed");
    return;
  }
  const actual = JSON.parse(output) as ReturnType<typeof describeSyntax>;
  const ours = describeSyntax();
  for (const section of ["bundleTypes", "promiseTypes", "bodyTypes", "functions"] as const) {
    assert.deepEqual(Object.keys(ours[section]).sort(), Object.keys(actual[section]).sort(), section);
    for (const name of Object.keys(actual[section])) {
      assert.deepEqual(ours[section][name], actual[section][name], `${section}.${name}`);
    }
  }
  assert.equal(`${JSON.stringify(ours, null, 2)}\n`, output.endsWith("\n") ? output : `${output}\n`);
});
