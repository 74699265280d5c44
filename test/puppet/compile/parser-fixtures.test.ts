/**
 * Must-show 1b of issue 16: Puppet 7.23.0's parser and lexer fixtures
 * (spec/fixtures/unit/pops/parser/lexer/*.pp; there is no separate `lexer`
 * directory at that tag) get the same accept/reject verdicts from tend as
 * from Puppet. They are part of the Puppet language corpus
 * (test/fixtures/puppet-lang/inputs/puppet-repo/, recorded with Puppet's
 * parse and validation); this test names them and checks every one.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { judge, judgeValidation, loadRecorded } from "../lang/corpus.js";

test("Puppet's parser/lexer spec fixtures: tend accepts and rejects each as Puppet 7.23 does", (t) => {
  const recorded = loadRecorded();
  const inputs = Object.keys(recorded).filter((k) =>
    k.startsWith("puppet-repo/spec/fixtures/unit/pops/parser/"),
  );
  assert.equal(inputs.length, 43, "the 43 .pp fixtures of spec/fixtures/unit/pops/parser at 7.23.0");
  let rejected = 0;
  for (const input of inputs) {
    const r = recorded[input];
    assert.ok(r, input);
    if (r.syntax_error !== undefined || r.validation !== undefined) rejected++;
    assert.equal(judge(input, r).status, "pass", `${input}: parse`);
    assert.notEqual(judgeValidation(input, r).status, "fail", `${input}: validation`);
  }
  t.diagnostic(
    `${inputs.length} fixtures: ${inputs.length - rejected} accepted, ${rejected} rejected, as Puppet does`,
  );
});
