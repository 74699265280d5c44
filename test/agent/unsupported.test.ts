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
import { checkPolicy } from "../../src/check/check.js";
import { builtinPromiseTypes, PromiseTypeRegistry } from "../../src/promises/registry.js";
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

test("a 3.21 promise type tend does not implement is not kept, with the reason in the report", () => {
  // Whatever tend implements by now: the run without one registered type.
  const type = "processes";
  const registry = new PromiseTypeRegistry();
  for (const builtin of builtinPromiseTypes().all()) if (builtin.name !== type) registry.register(builtin);
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
    { file: policy, workdir: join(dir, "wd"), ignoreLocks: true, record: true, promiseTypes: registry },
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
  const check = checkPolicy({
    entry: policy,
    workDir: join(dir, "wd"),
    implemented: (t) => registry.get(t) !== undefined,
  });
  assert.ok(check.valid);
  assert.deepEqual(
    check.diagnostics.map((d) => `${d.severity} ${d.code}: ${d.message}`),
    [
      `warning not-implemented: promise type '${type}' is not implemented by tend: tend agent will not keep its promises`,
    ],
  );
});

test("every promise type of 3.21's agent bundles is registered, or warned about by check", () => {
  const registry = builtinPromiseTypes();
  const missing = BUNDLE_TYPES.agent.promiseTypes.filter(
    (type) => PROMISE_TYPES[type]?.status === "normal" && registry.get(type) === undefined,
  );
  const dir = scratchDirectory("tend-unsupported-");
  const policy = write(dir, `bundle agent main\n{\n${missing.map((t) => `  ${t}:\n    "x";\n`).join("")}}\n`);
  const check = runTend(["check", policy]);
  for (const type of missing)
    assert.match(check.stderr, new RegExp(`promise type '${type}' is not implemented`));
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

test("a body agent control setting tend ignores is said by the agent and warned about by check", () => {
  const dir = scratchDirectory("tend-unsupported-");
  const policy = write(
    dir,
    `body agent control { childlibpath => "/opt/lib"; }
bundle agent main { reports: "ran"; }
`,
  );
  const env = { CFENGINE_TEST_OVERRIDE_WORKDIR: join(dir, "wd") };
  const run = runTend(["agent", "-K", "-f", policy], { env });
  assert.equal(run.code, 0);
  assert.equal(
    run.stdout,
    "   error: body agent control attribute 'childlibpath' is not implemented: tend does not set LD_LIBRARY_PATH for the programs it runs; tend agent ignores it\nR: ran\n",
  );
  const check = runTend(["check", policy], { env });
  assert.equal(check.code, 0);
  assert.match(
    check.stderr,
    /p\.cf:1:22: warning: body agent control attribute 'childlibpath' .*\[not-implemented\]/,
  );
});
