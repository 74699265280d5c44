/**
 * Bad techniques: each problem rudderc (serde + its JSON schema + its
 * compiler checks) refuses is a diagnostic at the offending text, with a
 * stable code, and compiling stops with no output.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: CFEngine references, not templates
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { compileTechnique, loadMethodLibrary } from "../../../src/rudder/technique/index.js";

const FIXTURES = fileURLToPath(new URL("../../../../test/fixtures/rudder/rudderc/", import.meta.url));
const { methods } = loadMethodLibrary([join(FIXTURES, "methods")]);

const HEAD = 'id: t\nname: T\nversion: "1.0"\n';
const METHOD = (extra: string, params = "      name: htop\n") =>
  `${HEAD}items:\n  - id: m1\n    name: M\n    method: package_present\n${extra}    params:\n${params}`;

/** [what, yaml, expected "line:col code" of the first error]. */
const CASES: readonly (readonly [string, string, string])[] = [
  ["yaml syntax", "id: [\n", "2:1 yaml-syntax"],
  ["not a mapping", "- a\n", "1:1 wrong-type"],
  ["missing items", HEAD, "1:1 missing-field"],
  ["empty items", `${HEAD}items: []\n`, "4:8 invalid-value"],
  ["unknown top field", `${HEAD}colour: blue\nitems: []\n`, "4:1 unknown-field"],
  ["bad technique id", `id: my-t\nname: T\nversion: "1.0"\nitems: []\n`, "1:5 invalid-value"],
  ["version not a string", `id: t\nname: T\nversion: 1.0\nitems: []\n`, "3:10 wrong-type"],
  ["version not X.Y", `id: t\nname: T\nversion: "1"\nitems: []\n`, "3:10 invalid-value"],
  ["unknown format", `format: 2\n${HEAD}items: []\n`, "1:9 invalid-value"],
  ["unknown method", METHOD("").replace("package_present", "package_presnt"), "7:13 unknown-method"],
  ["missing method parameter", METHOD("", "      version: any\n"), "5:5 missing-parameter"],
  ["unexpected parameter", METHOD("", "      name: htop\n      colour: red\n"), "10:15 unexpected-parameter"],
  ["select constraint", METHOD("", "      name: htop\n      provider: brew\n"), "10:17 invalid-parameter"],
  ["regex constraint", METHOD("", "      name: htop\n      architecture: X86\n"), "10:21 invalid-parameter"],
  ["surrounding whitespace", METHOD("", '      name: " htop"\n'), "9:13 invalid-parameter"],
  ["bad condition", METHOD('    condition: "linux;rm"\n'), "8:16 invalid-condition"],
  ["condition not a string", METHOD("    condition: 3\n"), "8:16 wrong-type"],
  ["bad policy mode", METHOD("    policy_mode_override: strict\n"), "8:27 invalid-value"],
  ["method reporting mode", METHOD("    reporting:\n      mode: focus-worst\n"), "9:13 invalid-value"],
  ["method without params", `${HEAD}items:\n  - id: m1\n    method: package_present\n`, "5:5 missing-field"],
  [
    "block without name",
    `${HEAD}items:\n  - id: b1\n    items:\n      - id: m1\n        method: package_present\n        params: {name: htop}\n`,
    "5:5 missing-field",
  ],
  [
    "focus id outside the block",
    `${HEAD}items:\n  - id: b1\n    name: B\n    reporting: {mode: focus, id: nope}\n    items:\n      - id: m1\n        method: package_present\n        params: {name: htop}\n`,
    "7:16 unknown-focus-id",
  ],
  [
    "focus without id",
    `${HEAD}items:\n  - id: b1\n    name: B\n    reporting: {mode: focus}\n    items:\n      - id: m1\n        method: package_present\n        params: {name: htop}\n`,
    "7:16 missing-field",
  ],
  [
    "duplicate ids",
    `${HEAD}items:\n  - id: m1\n    method: package_present\n    params: {name: a}\n  - id: m1\n    method: package_present\n    params: {name: b}\n`,
    "8:5 duplicate-id",
  ],
  ["parameter name", `${HEAD}params:\n  - id: p1\n    name: my param\nitems: []\n`, "6:11 invalid-value"],
  [
    "duplicate parameter",
    `${HEAD}params:\n  - {id: p1, name: a}\n  - {id: p2, name: a}\nitems:\n  - id: m1\n    method: package_present\n    params: {name: htop}\n`,
    "6:5 duplicate-parameter",
  ],
  ["parameter type", `${HEAD}params:\n  - {id: p1, name: a, type: text}\nitems: []\n`, "5:29 invalid-value"],
  [
    "password hash",
    `${HEAD}params:\n  - {id: p1, name: a, type: password, constraints: {password_hashes: [rot13]}}\nitems: []\n`,
    "5:71 invalid-value",
  ],
  [
    "invalid regex",
    `${HEAD}params:\n  - {id: p1, name: a, constraints: {regex: {value: "("}}}\nitems: []\n`,
    "5:52 invalid-value",
  ],
  ["foreach row", METHOD("    foreach: [a]\n"), "8:15 wrong-type"],
  ["control character", METHOD("", '      name: "a\\u0007${x}"\n'), "1:1 control-character"],
];

for (const [what, yaml, expected] of CASES) {
  test(`bad technique: ${what}`, () => {
    const result = compileTechnique(yaml, "t.yml", { methods });
    assert.equal(result.ok, false);
    const first = result.diagnostics.find((d) => d.severity === "error");
    assert.ok(first, "an error");
    assert.equal(`${first.line}:${first.column} ${first.code}`, expected, first.message);
    assert.equal(first.file, "t.yml");
  });
}

test("a missing id is generated from its place, the same each time, with a warning", () => {
  const yaml = `${HEAD}items:\n  - method: package_present\n    params: {name: htop}\n`;
  const a = compileTechnique(yaml, "t.yml", { methods });
  const b = compileTechnique(yaml, "t.yml", { methods });
  assert.ok(a.ok && b.ok);
  assert.equal(a.technique.files.get("technique.cf"), b.technique.files.get("technique.cf"));
  assert.deepEqual(
    a.diagnostics.map((d) => `${d.line}:${d.column} ${d.severity} ${d.code}`),
    ["5:5 warning generated-id"],
  );
});

test("a method's name defaults to the method's own, and parameters it allows empty to ''", () => {
  const r = compileTechnique(
    `${HEAD}items:\n  - id: m1\n    method: package_present\n    params: {name: htop}\n`,
    "t.yml",
    { methods },
  );
  assert.ok(r.ok);
  const cf = r.technique.files.get("technique.cf") as string;
  assert.match(
    cf,
    /call_t_m1\("Package present", "htop", "m1", @\{args\}, "\$\{class_prefix\}", "htop", "", "", ""\)/,
  );
});
