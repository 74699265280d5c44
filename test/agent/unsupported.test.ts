/**
 * Nothing unsupported passes silently: a promise of a 3.21 type tend does
 * not implement, or one using an attribute value tend does not implement,
 * is not kept, with an error line and the reason in the --json report;
 * `tend check` warns about both places and still exits 0.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Ajv } from "ajv";
import { runAgent } from "../../src/agent/run.js";
import { BUNDLE_TYPES, PROMISE_TYPES } from "../../src/language/syntax/index.js";
import { builtinPromiseTypes } from "../../src/promises/registry.js";
import { runTend } from "../cli/run-tend.js";
import { scratchDirectory } from "../scratch.js";

const schema = JSON.parse(readFileSync("schema/run-report.schema.json", "utf8")) as object;

interface Report {
  promises: { type: string; promiser: string; outcome: string; unsupported?: string }[];
  classes: string[];
}

const CLASSES_BODY = `body classes outcome(p)
{
  promise_kept => { "$(p)_kept" };
  promise_repaired => { "$(p)_repaired" };
  repair_failed => { "$(p)_failed" };
}
`;

function write(dir: string, text: string): string {
  const policy = join(dir, "p.cf");
  writeFileSync(policy, text, { mode: 0o600 });
  return policy;
}

test("a files promise whose action body logs to udp_syslog is not kept, and says why", () => {
  const dir = scratchDirectory("tend-unsupported-");
  const target = join(dir, "made");
  const policy = write(
    dir,
    `bundle agent main
{
  files:
      "${target}" create => "true", action => syslog, classes => outcome("f");
}
body action syslog { log_repaired => "udp_syslog"; log_string => "made"; }
${CLASSES_BODY}`,
  );
  const env = { CFENGINE_TEST_OVERRIDE_WORKDIR: join(dir, "wd") };
  const run = runTend(["agent", "-K", "--json", "-f", policy], { env });
  const report = JSON.parse(run.stdout) as Report;
  const validate = new Ajv({ allErrors: true }).compile(schema);
  assert.ok(validate(report), JSON.stringify(validate.errors));
  const files = report.promises.filter((p) => p.type === "files");
  assert.equal(files.length, 1);
  assert.equal(files[0].outcome, "failed");
  assert.match(
    files[0].unsupported ?? "",
    /body action attribute 'log_repaired' => "udp_syslog" is not implemented/,
  );
  assert.ok(report.classes.includes("f_failed"));
  assert.match(
    run.stderr,
    /error: tend cannot keep files promise '.*made': body action attribute 'log_repaired'/,
  );
  // Not acted on: what it would do is not what the policy asks for in full.
  assert.equal(existsSync(target), false);
  const check = runTend(["check", policy], { env });
  assert.equal(check.code, 0);
  assert.match(
    check.stderr,
    /p\.cf:6:22: warning: body action attribute 'log_repaired' => "udp_syslog" is not implemented: .*\[not-implemented\]/,
  );
});

test("a 3.21 promise type tend does not implement is not kept, with the reason in the report", (t) => {
  const registry = builtinPromiseTypes();
  const missing = BUNDLE_TYPES.agent.promiseTypes.filter(
    (type) => PROMISE_TYPES[type]?.status === "normal" && registry.get(type) === undefined,
  );
  if (missing.length === 0) {
    t.skip("every promise type of 3.21's agent bundles is implemented");
    return;
  }
  const type = missing[0];
  const dir = scratchDirectory("tend-unsupported-");
  const policy = write(
    dir,
    `bundle agent main
{
  ${type}:
      "thing" classes => outcome("t");
  reports:
    t_failed::
      "not kept";
}
${CLASSES_BODY}`,
  );
  const lines: string[] = [];
  const result = runAgent(
    { file: policy, workdir: join(dir, "wd"), ignoreLocks: true, record: true },
    { log: (r) => lines.push(`${r.level}: ${r.message}`), report: (text) => lines.push(`R: ${text}`) },
  );
  assert.equal(result.exitCode, 0);
  const record = result.records.find((r) => r.type === type);
  assert.equal(record?.outcome, "failed");
  assert.equal(record?.unsupported, `promise type '${type}' is not implemented by tend`);
  assert.deepEqual(lines, [
    `error: tend cannot keep ${type} promise 'thing': promise type '${type}' is not implemented by tend`,
    "R: not kept",
  ]);
  const check = runTend(["check", policy]);
  assert.equal(check.code, 0);
  assert.match(
    check.stderr,
    new RegExp(
      `p\\.cf:3:3: warning: promise type '${type}' is not implemented by tend: .*\\[not-implemented\\]`,
    ),
  );
});

test("a supported policy gets no not-implemented warning", () => {
  const dir = scratchDirectory("tend-unsupported-");
  const policy = write(
    dir,
    `bundle agent main { files: "${join(dir, "x")}" create => "true", action => log; }
body action log { log_repaired => "stdout"; log_string => "made"; }
`,
  );
  const check = runTend(["check", policy]);
  assert.equal(check.code, 0);
  assert.doesNotMatch(check.stderr, /not-implemented/);
});
