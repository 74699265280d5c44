import assert from "node:assert/strict";
import { test } from "node:test";
import { isDeepStrictEqual } from "node:util";
import { type Outcome, replayAll } from "./oracle.js";

/**
 * Where tend deliberately words a failure differently (both fail): a Ruby
 * NoMethodError, libyaml's and Ruby JSON's parser messages, and the pair
 * Ruby's sort happened to compare first.
 */
function bothFailAlike(o: Outcome): boolean {
  const want = (o.expected as { error?: string }).error;
  const got = (o.actual as { error?: string }).error;
  if (want === undefined || got === undefined) return false;
  if (want.startsWith("undefined method")) return true;
  if (want.startsWith("comparison of")) return got.startsWith("comparison of");
  // tend adds where in the data file an eyaml value that cannot be decrypted is.
  if (got.replace(/ \(file: [^()]*, line: \d+, column: \d+\)$/, "") === want) return true;
  const parse = /^Unable to parse \([^)]*\)/.exec(want);
  return parse !== null && got.startsWith(parse[0]);
}

test("lookups answer as Puppet 7.23 answered them (recorded in test/fixtures/puppet-hiera)", () => {
  const outcomes = replayAll();
  const identical = outcomes.filter((o) => isDeepStrictEqual(o.expected, o.actual));
  const alike = outcomes.filter((o) => !isDeepStrictEqual(o.expected, o.actual) && bothFailAlike(o));
  const differ = outcomes.filter((o) => !isDeepStrictEqual(o.expected, o.actual) && !bothFailAlike(o));
  if (process.env.HIERA_REPORT)
    console.log(
      `${identical.length} identical, ${alike.length} both failing (worded differently), of ${outcomes.length}`,
    );
  const report = differ.map(
    (o) => `${o.setup}: ${o.code}\n  want ${JSON.stringify(o.expected)}\n  got  ${JSON.stringify(o.actual)}`,
  );
  assert.deepEqual(report.slice(0, 20), [], `${differ.length} of ${outcomes.length} lookups differ`);
  assert.ok(identical.length >= 1270, `only ${identical.length} identical`);
});
