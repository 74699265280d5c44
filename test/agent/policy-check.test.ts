/**
 * The policy check before a run, as cf-agent 3.21 tags a validated policy
 * (checked against cf-agent: the marker goes to masterfiles for the default
 * policy, to the state directory for one named on the command line; the
 * release ID only on a policy hub).
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runAgent } from "../../src/agent/run.js";
import { Logger } from "../../src/system/logger.js";
import { checkMessages } from "../../src/agent/policy-check.js";
import { checkPolicy } from "../../src/check/check.js";
import { scratchDirectory } from "../scratch.js";

function workdir(): string {
  const dir = scratchDirectory("tend-policy-check-");
  mkdirSync(join(dir, "inputs"));
  writeFileSync(join(dir, "inputs", "promises.cf"), 'bundle agent main { reports: "hi"; }\n');
  return dir;
}

function run(dir: string, file = join(dir, "inputs", "promises.cf")): string[] {
  const lines: string[] = [];
  runAgent(
    { file, workdir: dir, ignoreLocks: true, logLevel: "verbose" },
    { log: (r) => lines.push(r.message), report: () => {} },
  );
  return lines;
}

test("the default policy is tagged in masterfiles once validated, and not checked again until it changes", () => {
  const dir = workdir();
  assert.ok(run(dir).includes("Input file is changed since last validation, validating it"));
  const marker = JSON.parse(readFileSync(join(dir, "masterfiles", "cf_promises_validated"), "utf8"));
  assert.ok(Math.abs(marker.timestamp - Date.now() / 1000) < 60);
  assert.equal(existsSync(join(dir, "masterfiles", "cf_promises_release_id")), false);
  assert.ok(run(dir).includes("Policy is already validated"));
});

test("as 3.21, only directories' times below the inputs count as changes, and a marker from the future does", () => {
  const dir = workdir();
  mkdirSync(join(dir, "inputs", "lib"));
  writeFileSync(join(dir, "inputs", "lib", "x.cf"), "bundle agent x { }\n");
  run(dir);
  const later = Date.now() / 1000 + 30;
  // A file edited in place below the policy file: cf-agent 3.21 runs the policy unchecked.
  utimesSync(join(dir, "inputs", "lib", "x.cf"), later, later);
  assert.ok(run(dir).includes("Policy is already validated"));
  utimesSync(join(dir, "inputs", "lib"), later, later);
  const changed = run(dir);
  assert.ok(changed.includes(` >> Detected change in ${join(dir, "inputs", "lib")}`));
  assert.ok(changed.includes("Quick search detected file changes"));
  assert.ok(changed.includes("Input file is changed since last validation, validating it"));
  utimesSync(join(dir, "inputs", "lib"), later - 60, later - 60);
  utimesSync(join(dir, "inputs", "promises.cf"), later, later);
  assert.ok(
    run(dir).includes(
      `Input file '${join(dir, "inputs", "promises.cf")}' has changed since the last policy read attempt (file is newer than previous)`,
    ),
  );
  utimesSync(join(dir, "inputs", "promises.cf"), later - 60, later - 60);
  const marker = join(dir, "masterfiles", "cf_promises_validated");
  writeFileSync(marker, JSON.stringify({ timestamp: Math.floor(later) + 1000 }));
  const future = run(dir);
  const clock = future.findIndex((l) => l.startsWith("Clock seems to have jumped back in time, mtime of "));
  assert.ok(clock >= 0);
  // As 3.21: the marker renewed at once (logged), then the check and the tag after it.
  assert.equal(future[clock + 1], `Saved policy validated marker file '${marker}'`);
  assert.equal(future[clock + 2], "Input file is changed since last validation, validating it");
  assert.ok(run(dir).includes("Policy is already validated"));
});

/**
 * 00_basics/validation/validation_tagging_directory.cf: 3.21 reads the
 * marker with its lenient JSON parser, so a trailing comma still gives the
 * time 1234 and the policy is checked and tagged anew; a marker that is no
 * JSON at all counts as its own time (checked against cf-agent 3.21).
 */
test("a marker with a trailing comma gives its timestamp; one that is no JSON, its own time", () => {
  const dir = workdir();
  run(dir);
  const marker = join(dir, "masterfiles", "cf_promises_validated");
  writeFileSync(marker, '\n{\n "timestamp": 1234,\n}\n');
  assert.ok(run(dir).includes("Input file is changed since last validation, validating it"));
  const renewed = JSON.parse(readFileSync(marker, "utf8"));
  assert.ok(Math.abs(renewed.timestamp - Date.now() / 1000) < 60);
  writeFileSync(marker, "garbage\n");
  const lines = run(dir);
  assert.ok(lines.includes(`Could not parse policy_validated JSON file '${marker}', using dummy data`));
  assert.ok(lines.includes("Policy is already validated"));
  assert.equal(readFileSync(marker, "utf8"), "garbage\n");
});

test("a policy hub also gets the release ID; a policy given elsewhere is tagged in the state directory", () => {
  const dir = workdir();
  mkdirSync(join(dir, "state"), { recursive: true });
  writeFileSync(join(dir, "state", "am_policy_hub"), "");
  mkdirSync(join(dir, "masterfiles"));
  run(dir);
  const release = JSON.parse(readFileSync(join(dir, "masterfiles", "cf_promises_release_id"), "utf8"));
  assert.match(release.releaseId, /^[0-9a-f]{40}$/);
  const other = join(dir, "other.cf");
  writeFileSync(other, 'bundle agent main { reports: "x"; }\n');
  assert.ok(run(dir, other).includes("Input file is outside default repository, validating it"));
  assert.ok(existsSync(join(dir, "state", "cf_promises_validated")));
});

/** Counts of each label the policy's execresult() commands appended to `log`, as `label count` lines. */
function ranCounts(log: string): string {
  const counts = new Map<string, number>();
  for (const label of readFileSync(log, "utf8").split("\n").filter(Boolean))
    counts.set(label, (counts.get(label) ?? 0) + 1);
  return [...counts].map(([label, n]) => `${label} ${n}`).join(", ");
}

/** Recorded from cf-agent 3.21 and cf-promises 3.21 on the same policy. */
test("a check evaluates the policy as cf-promises does: function commands run as often as under cf-agent", () => {
  const dir = workdir();
  const log = join(dir, "ran.log");
  const policy = join(dir, "side-effects.cf");
  const ran = (label: string) => `execresult("/bin/sh -c 'echo ${label} >> ${log}'", "noshell")`;
  writeFileSync(
    policy,
    `body common control { bundlesequence => { "main" }; }
bundle common g { vars: "c" string => ${ran("common")}; }
bundle agent main { vars: "a" string => ${ran("main")}; }
bundle agent notcalled { vars: "a" string => ${ran("notcalled")}; }
`,
  );
  run(dir, policy);
  // cf-promises: common 4, main 2, notcalled 2; then the agent's own run, once each.
  assert.equal(ranCounts(log), "common 5, main 3, notcalled 3");
  // The default policy, once validated, is not checked: the agent's own evaluation only.
  writeFileSync(join(dir, "inputs", "promises.cf"), readFileSync(policy, "utf8"));
  run(dir);
  writeFileSync(log, "");
  run(dir);
  assert.equal(ranCounts(log), "common 1, main 1, notcalled 1");
});

test("tend check runs them as cf-promises does, keeping no results", () => {
  const dir = workdir();
  const log = join(dir, "ran.log");
  const policy = join(dir, "side-effects.cf");
  writeFileSync(
    policy,
    `bundle common g { vars: "c" string => execresult("/bin/sh -c 'echo common >> ${log}'", "noshell"); }\n`,
  );
  const result = checkPolicy({ entry: policy, workDir: dir });
  assert.ok(result.valid);
  assert.equal(ranCounts(log), "common 4");
});

test("under --simulate the check runs no command (cf-agent's cf-promises would)", () => {
  const dir = workdir();
  const log = join(dir, "ran.log");
  const policy = join(dir, "side-effects.cf");
  writeFileSync(
    policy,
    `bundle agent main { vars: "x" string => execresult("/bin/sh -c 'echo ran >> ${log}'", "noshell"); }\n`,
  );
  runAgent(
    { file: policy, workdir: dir, ignoreLocks: true, simulate: "diff" },
    { log: () => {}, report: () => {} },
  );
  assert.equal(existsSync(log), false);
});

test("the check's function errors are logged, worded as cf-promises words them, before the agent's own", () => {
  const dir = workdir();
  const policy = join(dir, "missing-file.cf");
  const missing = join(dir, "no-such-file");
  writeFileSync(policy, `bundle agent main { vars: "x" string => readfile("${missing}", 100); }\n`);
  const lines = run(dir, policy).filter((line) => line.includes("Could not examine file"));
  const fromCheck = `Could not examine file '${missing}'`;
  const fromAgent = `CfReadFile: Could not examine file '${missing}' (stat: No such file or directory)`;
  assert.ok(lines.length >= 2, lines.join("\n"));
  assert.equal(lines[0], fromCheck);
  assert.equal(lines.at(-1), fromAgent);
  const logged: string[] = [];
  const messages = checkMessages(new Logger((record) => logged.push(record.message)));
  assert.ok(checkPolicy({ entry: policy, workDir: dir, messages }).valid);
  assert.ok(logged.length > 0 && logged.every((line) => line === fromCheck), logged.join("\n"));
});
