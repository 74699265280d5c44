/**
 * loadPsych reads plain Hiera YAML itself and leaves anything else to the
 * yaml package: both ways must give the same value (or both refuse) for
 * every YAML file of the fixtures, every recorded Psych scalar as a
 * mapping value, a sequence item and a key, and texts near the edge of
 * what the fast way takes.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { PValue } from "../../../src/puppet/eval/values.js";
import { loadPsych, loadWithYamlPackage } from "../../../src/puppet/hiera/psych.js";
import { encodeValue, fixtureDir } from "./oracle.js";

const FIXTURES = fileURLToPath(new URL("../../../../test/fixtures/", import.meta.url));

function yamlFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...yamlFiles(path));
    else if (/\.ya?ml$/.test(entry.name)) found.push(path);
  }
  return found;
}

function outcome(load: (text: string) => PValue, text: string): string {
  try {
    return JSON.stringify(encodeValue(load(text)));
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
}

function differences(texts: readonly string[]): string[] {
  const differ: string[] = [];
  for (const text of texts) {
    const fast = outcome(loadPsych, text);
    const slow = outcome(loadWithYamlPackage, text);
    if (fast !== slow) differ.push(`${JSON.stringify(text)}: ${fast} vs ${slow}`);
  }
  return differ;
}

test("every YAML file of the fixtures: the same value both ways", () => {
  const texts = yamlFiles(FIXTURES).map((f) => readFileSync(f, "utf8"));
  assert.ok(texts.length > 50);
  assert.deepEqual(differences(texts), []);
});

test("every recorded Psych scalar, as a value, an item and a key: the same both ways", () => {
  const answers = JSON.parse(readFileSync(join(fixtureDir, "psych/scalars.json"), "utf8")) as {
    text: string;
  }[];
  const texts: string[] = [];
  for (const { text } of answers)
    texts.push(`k: ${text}\n`, `- ${text}\n`, `${text}: v\n`, `a:\n  - ${text}\n`);
  assert.deepEqual(differences(texts), []);
});

test("texts at the edge of the fast way: the same both ways", () => {
  const texts = [
    "",
    "---\n",
    "--- \n",
    "# only a comment\n",
    "---\nversion: 5\ndefaults:\n  datadir: 'data'\n  data_hash: yaml_data\nhierarchy:\n  - name: 'OS'\n    path: \"%{facts.os.family}.yaml\"\n  - name: common\n    path: common.yaml\n",
    "a:\n- 1\n- 2\nb: 3\n",
    "a:\n  - x\n  -\n  - y\n",
    "a:\n  b:\n    c: d\n  e: f\ng: h\n",
    "a: b # comment\nc: 'd' # comment\ne: \"f\" # c\n",
    "a: b#c\n",
    "a: 'it''s'\n",
    'a: "tab\\there"\n',
    "a: 'x' y\n",
    "a: b\n  c\n",
    "a: b\n c: d\n",
    "a:\n  b: c\n d: e\n",
    "- - a\n- b\n",
    "- a: 1\n  b: 2\n- c: 3\n",
    "-   a: 1\n    b: 2\n",
    "a: &x 1\nb: *x\n",
    "a: [1, 2]\nb: {c: d}\n",
    "a: |\n  text\n",
    "a: >\n  text\n",
    "<<: {a: 1}\nb: 2\n",
    "a: !!str 1\n",
    "a: 1\na: 2\n",
    "'q': 1\n",
    '"q": 1\n',
    "a: b: c\n",
    "a:b\n",
    "a: 2001-01-01\n",
    "2001-01-01: a\n",
    "a: :sym\n",
    "a:\tb\n",
    "a: b\r\nc: d\r\n",
    "a: b\rc: d\n",
    "\ufeffa: b\n",
    "a: b\n---\nc: d\n",
    "a: b\n...\n",
    "%YAML 1.1\n---\na: b\n",
    "? a\n: b\n",
    "a: -\n",
    "a: - b\n",
    "a: -1\n",
    "a: ~\nb: null\nc: yes\nd: off\ne: 0755\nf: 1_000\ng: 1:20\nh: 1.5\ni: .inf\n",
    "  a: 1\n  b: 2\n",
    "a: 1\n   # comment\nb: 2\n",
    "a:\n\n  - 1\n\n  - 2\n",
    "a: 'unclosed\n",
    'a: "unclosed\n',
    "a: 'multi\n  line'\n",
    "[a, b]\n",
    "plain scalar\n",
    "a: x,y\nb: ,x\nc: @x\nd: `x\n",
    "a: 'x' # c\n  b: 1\n",
    "--- {}\n",
    "---{}\n",
    "{}\n",
    "--- []\n",
    "a: []\nb: {}\nc: [ 'x', \"y\", z ]\nd: ['net/ntp']\n",
    "a: [x,]\n",
    "a: ['a,b', c]\n",
    "a: ['it''s']\n",
    'a: ["q\\""]\n',
    "a: [1, 0755, yes, ~]\n",
    "a: [-6, x]\n",
    "a: [a b]\n",
    "a: [] # c\n",
    "a: {b: 1}\n",
    "- []\n- {}\n- [x]\n",
  ];
  assert.deepEqual(differences(texts), []);
});
