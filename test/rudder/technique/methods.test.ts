/**
 * The method library read from ncf annotations: rudderc's stub library and
 * its own record of how two stubs read (methods-parsed/*.yml), then the real
 * ncf tree when the mirror or TEND_NCF gives one.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import {
  type MethodLibraryJson,
  loadMethodLibrary,
  methodLibraryToJson,
  parseMethodFile,
} from "../../../src/rudder/technique/index.js";
import { checkConstraints } from "../../../src/rudder/technique/method-constraints.js";
import { defaultConstraints } from "../../../src/rudder/technique/methods.js";
import { ncfTree } from "./ncf-tree.js";

const FIXTURES = fileURLToPath(new URL("../../../../test/fixtures/rudder/rudderc/", import.meta.url));

interface RecordedParameter {
  name: string;
  description: string;
  constraints: {
    allow_empty_string: boolean;
    allow_whitespace_string: boolean;
    max_length: number;
    min_length: number;
    regex?: { value: string };
    select?: { value: string }[] | null;
  };
  type: string;
}

for (const name of ["package_install", "package_present"]) {
  test(`${name}.cf reads as rudderc recorded it`, () => {
    const recorded = parse(readFileSync(join(FIXTURES, "methods-parsed", `${name}.yml`), "utf8"));
    const parsed = parseMethodFile(readFileSync(join(FIXTURES, "methods", `${name}.cf`), "utf8"));
    assert.ok(parsed.ok);
    const m = parsed.method;
    assert.equal(m.name, recorded.name);
    assert.equal(m.description, recorded.description);
    assert.equal(m.documentation, recorded.documentation);
    assert.equal(m.classPrefix, recorded.class_prefix);
    assert.equal(m.classParameter, recorded.class_parameter);
    assert.equal(m.classParameterId, recorded.class_parameter_id);
    assert.equal(m.bundleName, recorded.bundle_name);
    assert.deepEqual(m.bundleArgs, recorded.bundle_args);
    assert.deepEqual(m.agentSupport, recorded.agent_support);
    assert.equal(m.deprecated, recorded.deprecated);
    const params = recorded.parameter as RecordedParameter[];
    assert.deepEqual(
      m.parameters.map((p) => ({
        name: p.name,
        description: p.description,
        type: p.escaping,
        allowEmpty: p.constraints.allowEmpty,
        allowWhitespace: p.constraints.allowWhitespace,
        max: p.constraints.maxLength,
        min: p.constraints.minLength,
        regex: p.constraints.regex,
        select: p.constraints.select,
      })),
      params.map((p) => ({
        name: p.name,
        description: p.description,
        type: p.type,
        allowEmpty: p.constraints.allow_empty_string,
        allowWhitespace: p.constraints.allow_whitespace_string,
        max: p.constraints.max_length,
        min: p.constraints.min_length,
        regex: p.constraints.regex?.value,
        select: p.constraints.select?.map((s) => s.value) ?? undefined,
      })),
    );
  });
}

test("a file without a name, description or known class parameter is not a method", () => {
  const bundle = "bundle agent m(a)\n{\n}\n";
  assert.deepEqual(parseMethodFile(`# @description d\n# @class_parameter a\n${bundle}`), {
    ok: false,
    reason: "Empty method name",
  });
  assert.deepEqual(parseMethodFile(`# @name N\n# @class_parameter a\n${bundle}`), {
    ok: false,
    reason: "Empty method description",
  });
  assert.deepEqual(parseMethodFile(`# @name N\n# @description d\n# @class_parameter b\n${bundle}`), {
    ok: false,
    reason: "Unknown class parameter",
  });
});

test("a method without @agent_support runs on CFEngine", () => {
  const r = parseMethodFile(
    "# @name N\n# @description d\n# @parameter a the a\n# @class_parameter a\nbundle agent m(a) {}\n",
  );
  assert.ok(r.ok);
  assert.deepEqual(r.method.agentSupport, ["cfengine-community"]);
  assert.equal(r.method.classParameterId, 1);
});

test("constraints are checked in rudder-commons' order, with its messages", () => {
  const c = defaultConstraints();
  assert.equal(checkConstraints(c, ""), "value must not be empty");
  assert.equal(checkConstraints(c, " x"), "value must not have leading or trailing whitespaces");
  assert.equal(checkConstraints(c, "42"), undefined);
  assert.equal(checkConstraints({ ...c, allowWhitespace: true }, "  x  "), undefined);
  assert.equal(
    checkConstraints({ ...c, allowEmpty: true }, " "),
    "value must not have leading or trailing whitespaces",
  );
  assert.match(checkConstraints({ ...c, maxLength: 3, minLength: 2 }, "4") ?? "", /lower than min length/);
  assert.match(checkConstraints({ ...c, maxLength: 3, minLength: 2 }, "4242") ?? "", /exceeds max length/);
  assert.match(
    checkConstraints({ ...c, select: ["true", "false"] }, "fal") ?? "",
    /not included in allowed set/,
  );
  assert.match(checkConstraints({ ...c, regex: "^[a-z]+$" }, "ae2er") ?? "", /does not match regex/);
  assert.match(checkConstraints({ ...c, notRegex: "^a+$" }, "aa") ?? "", /forbidden regex/);
  assert.equal(checkConstraints({ ...c, validFormat: "json" }, '{"a": 42}'), undefined);
  assert.match(checkConstraints({ ...c, validFormat: "json" }, '{"a": 42,}') ?? "", /not valid JSON/);
  assert.match(checkConstraints({ ...c, validFormat: "yaml" }, "a: :: 34") ?? "", /not valid YAML/);
});

test("ncf 8.3's generic methods all read as methods", (t) => {
  const { tree, reason } = ncfTree(t);
  if (!tree) return t.skip(reason);
  const library = loadMethodLibrary([tree]);
  assert.equal(library.error, undefined);
  assert.deepEqual(library.skipped, []);
  assert.ok(library.methods.size > 150, `${library.methods.size} methods`);
  const filePresent = library.methods.get("file_present");
  assert.equal(filePresent?.name, "File present");
  assert.equal(filePresent?.classParameter, "path");
  assert.deepEqual(
    filePresent?.parameters.map((p) => p.name),
    ["path"],
  );
  assert.ok(library.methods.get("command_execution")?.agentSupport.includes("cfengine-community"));
});

test("a missing library is an error, not an exception", () => {
  assert.match(loadMethodLibrary(["/nonexistent/ncf"]).error ?? "", /could not open method library/);
});

const NCF_JSON = join(FIXTURES, "..", "ncf-methods", "methods.json");

test("the ncf method facts fixture reads back as a library", () => {
  const library = loadMethodLibrary([NCF_JSON]);
  assert.equal(library.error, undefined);
  assert.equal(library.methods.size, 30);
  const content = library.methods.get("file_content");
  assert.deepEqual(
    content?.parameters.map((p) => p.name),
    ["path", "lines", "enforce"],
  );
  assert.equal(content?.classParameterId, 1);
  assert.deepEqual(content?.parameters[2]?.constraints.select, ["true", "false"]);
});

test("the ncf method facts fixture matches ncf 8.3's annotations", (t) => {
  const { tree, reason } = ncfTree(t);
  if (!tree) return t.skip(reason);
  const recorded = JSON.parse(readFileSync(NCF_JSON, "utf8")) as MethodLibraryJson;
  const names = recorded.methods.map((m) => m.bundleName);
  const fresh = methodLibraryToJson(loadMethodLibrary([tree]).methods, recorded.source, names);
  assert.deepEqual(fresh, recorded);
});

test("a JSON library that is not one is an error", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "tend-rudder-methods-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, "m.json"), '{"methods": 3}');
  assert.match(
    loadMethodLibrary([join(dir, "m.json")]).error ?? "",
    /expected an object with a 'methods' list/,
  );
});
