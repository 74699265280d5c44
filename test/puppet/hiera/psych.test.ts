/**
 * Plain scalars typed as Ruby 3.1's Psych 4 types them under safe_load
 * (test/fixtures/puppet-hiera/psych: scalars.txt, answers recorded by rec.rb
 * as `k: TEXT`). Parser error wording (libyaml's) is not compared: only
 * that both refuse.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { PHash } from "../../../src/puppet/eval/values.js";
import { loadPsych, PsychError } from "../../../src/puppet/hiera/psych.js";
import { encodeValue, fixtureDir } from "./oracle.js";

interface Answer {
  text: string;
  value?: unknown;
  error?: string;
}

const answers = JSON.parse(readFileSync(join(fixtureDir, "psych/scalars.json"), "utf8")) as Answer[];

test("plain scalars: Psych's types (ints, floats, base 60, booleans, null, symbols, dates refused)", () => {
  const differ: string[] = [];
  for (const a of answers) {
    let got: Answer;
    try {
      const doc = loadPsych(`k: ${a.text}\n`);
      got = { text: a.text, value: encodeValue((doc as PHash).get("k")) };
    } catch (e) {
      if (!(e instanceof PsychError)) throw e;
      got = { text: a.text, error: e.message };
    }
    const same =
      a.error !== undefined
        ? got.error !== undefined && (!a.error.startsWith("Tried") || got.error === a.error)
        : JSON.stringify(got.value) === JSON.stringify(a.value);
    if (!same) differ.push(`${JSON.stringify(a.text)}: want ${JSON.stringify(a)} got ${JSON.stringify(got)}`);
  }
  assert.deepEqual(differ, []);
});

test("an empty document is false; << merges; aliases resolve", () => {
  assert.equal(loadPsych(""), false);
  const h = loadPsych("a: &x {k: 1, j: 2}\nb:\n  <<: *x\n  j: 3\n") as PHash;
  const b = h.get("b") as PHash;
  assert.deepEqual([...b.keys()], ["k", "j"]);
  assert.equal(b.get("j"), 3n);
  assert.ok(h.get("a") instanceof PHash);
});
