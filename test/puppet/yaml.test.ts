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
import { chooseStyle, dumpYaml, ISO_TIME, isPlainAscii, rubyNumber } from "../../src/puppet/yaml.js";

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

test("the shortcuts to a style choose what Psych's analysis chooses", () => {
  // Printable ASCII with what makes a difference: indicators, colons, hashes, quotes, digits, spaces.
  const alphabet = "abcXYZ019 :#'\"-?,[]{}&*!|>%@`.~/_=";
  let seed = 13;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  let plain = 0;
  for (let i = 0; i < 50_000; i++) {
    let text = "";
    const length = 1 + random(14);
    for (let j = 0; j < length; j++) text += alphabet[random(alphabet.length)];
    if (isPlainAscii(text)) {
      plain += 1;
      assert.equal(chooseStyle(text), "plain", JSON.stringify(text));
    }
  }
  assert.ok(plain > 1000, `only ${plain} texts took the shortcut`);
  for (const time of ["2026-11-27T00:40:16.733011005+00:00", "2026-01-02T03:04:05.000000000-05:30"]) {
    assert.ok(ISO_TIME.test(time));
    assert.equal(chooseStyle(time), "single");
  }
  assert.equal(isPlainAscii("defined content as '{sha256}41b3fbbe'"), true);
  assert.equal(isPlainAscii("key: value"), false);
  for (const word of ["a", "Total", "user", "t1", "off_", "7.23.0", "10.0.1.2"]) {
    assert.equal(isPlainAscii(word), true, word);
    assert.equal(chooseStyle(word), "plain", word);
  }
  for (const word of ["y", "No", "true", "null", "1.5", "08.1.2", "0.1.2"])
    assert.equal(isPlainAscii(word), false, word);
  assert.equal(isPlainAscii("trailing "), false);
});

test("UUIDs take the shortcut when Psych's analysis finds them plain", () => {
  // Digits and hex letters in every position, an 8 or 9 early and late: a
  // UUID starting with 0 and an 8 or 9 reads as a (bad) octal number.
  const hex = "0123456789abcdef";
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    // The low bits of this generator repeat every few draws: the high ones.
    return (seed >> 16) % n;
  };
  const uuid = () =>
    [8, 4, 4, 4, 12].map((n) => Array.from({ length: n }, () => hex[random(16)]).join("")).join("-");
  const samples = [
    "00000000-0000-0000-0000-000000000000",
    "08000000-0000-0000-0000-000000000000",
    "12345678-1234-1234-1234-123456789012",
    "1e310004-4751-4bf7-83e4-89854d31ca83",
    ...Array.from({ length: 2000 }, uuid),
  ];
  let shortcut = 0;
  for (const text of samples) {
    if (!isPlainAscii(text)) continue;
    shortcut += 1;
    assert.equal(chooseStyle(text), "plain", text);
  }
  assert.ok(shortcut > 1500, `only ${shortcut} UUIDs took the shortcut`);
  assert.equal(isPlainAscii("08000000-0000-0000-0000-000000000000"), false);
  assert.equal(chooseStyle("08000000-0000-0000-0000-000000000000"), "single");
});
