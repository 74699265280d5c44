/**
 * tend's YAML writer against Psych: Puppet 7.23's own report and summary
 * files (a run with a failure, a multi-line message, quoted and folded
 * strings) read and written again must come out byte for byte.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { dumpYaml, rubyNumber } from "../../src/puppet/yaml.js";

const dir = fileURLToPath(new URL("../../../test/fixtures/puppet-yaml/", import.meta.url));

for (const [file, tag] of [
  ["last_run_report.yaml", "!ruby/object:Puppet::Transaction::Report"],
  ["last_run_summary.yaml", undefined],
] as const) {
  test(`Puppet's ${file} is written again byte for byte`, () => {
    const text = readFileSync(join(dir, file), "utf8");
    assert.equal(dumpYaml(parse(text, { logLevel: "error" }), tag), text);
  });
}

test("scalars are quoted as Psych quotes them", () => {
  const doc = dumpYaml({
    a: "0644",
    b: "/path",
    c: "yes",
    d: "",
    e: "a: b",
    f: null,
    g: [],
    h: "y",
    i: "plain text",
  });
  assert.equal(
    doc,
    "---\na: '0644'\nb: \"/path\"\nc: 'yes'\nd: ''\ne: 'a: b'\nf:\ng: []\nh: \"y\"\ni: plain text\n",
  );
});

test("numbers are written as Ruby writes them", () => {
  assert.equal(rubyNumber(3.5994e-5), "3.5994e-05");
  assert.equal(rubyNumber(0.000770302), "0.000770302");
  assert.equal(rubyNumber(2), "2");
  assert.equal(rubyNumber(1e20), "1.0e+20");
});
