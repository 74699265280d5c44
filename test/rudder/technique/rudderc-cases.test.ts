/**
 * rudderc 8.3's own compile tests (tests/cases/general, run by its
 * tests/compile.rs against the stub method library tests/lib/common), ported:
 * each technique YAML compiles to the very technique.cf and metadata.xml
 * rudderc recorded, and the policy parses and validates with tend's front end.
 */
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { compileTechnique, listResources, loadMethodLibrary } from "../../../src/rudder/technique/index.js";
import { checkGeneratedPolicy } from "../../../src/rudder/technique/verify.js";

const FIXTURES = fileURLToPath(new URL("../../../../test/fixtures/rudder/rudderc/", import.meta.url));
const CASES = join(FIXTURES, "cases");
const library = loadMethodLibrary([join(FIXTURES, "methods")]);

const cases = readdirSync(CASES).sort();

test("all thirteen of rudderc's general cases are here", () => {
  assert.equal(library.error, undefined);
  assert.equal(cases.length, 13);
});

for (const name of cases) {
  test(`rudderc case ${name}: technique.cf and metadata.xml as rudderc writes them`, () => {
    const dir = join(CASES, name);
    const yml = readdirSync(dir).find((f) => /^technique\.ya?ml$/.test(f)) as string;
    const result = compileTechnique(readFileSync(join(dir, yml), "utf8"), join(dir, yml), {
      methods: library.methods,
      resources: listResources(join(dir, "resources")),
    });
    assert.ok(result.ok, JSON.stringify(result.diagnostics));
    const files = result.technique.files;
    assert.equal(files.get("technique.cf"), readFileSync(join(dir, "technique.cf"), "utf8"));
    assert.equal(files.get("metadata.xml"), readFileSync(join(dir, "metadata.xml"), "utf8"));
    assert.deepEqual(checkGeneratedPolicy(files.get("technique.cf") as string, `${name}/technique.cf`), []);
  });
}
