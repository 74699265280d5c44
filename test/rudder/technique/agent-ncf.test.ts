/**
 * A technique compiled by tend runs on tend's agent with ncf 8.3 and
 * reports as Rudder expects: `tend agent` (the built CLI) on the compiled
 * technique.cf made standalone (its prelude loads ncf through ncf's
 * list-compatible-inputs, defines the `g` variables ncf reads, and sets the
 * reporting context and policy mode a Rudder agent sets). Everything it
 * writes is in a temporary directory. Skipped when no ncf tree is available (TEND_NCF or
 * the ncf mirror); the cf-agent comparison is skipped without cf-agent.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import {
  compileTechnique,
  loadMethodLibrary,
  standalonePrelude,
} from "../../../src/rudder/technique/index.js";
import { runTend } from "../../cli/run-tend.js";
import { ncfTree } from "./ncf-tree.js";

const FIXTURE = fileURLToPath(
  new URL("../../../../test/fixtures/rudder/technique/tend_demo/technique.yml", import.meta.url),
);
const CF_AGENT = "/usr/bin/cf-agent";
const IDS = "6f1e3b52-0a0b-4c7e-9d41-2f6a1c1b000";

/** `event report-id-suffix key` for each Rudder report line of a run. */
function reports(output: string): string[] {
  return output
    .split("\n")
    .filter((l) => l.startsWith("R: @@tend_demo@@"))
    .map((l) => {
      const f = l.slice(3).split("@@");
      return `${f[2]} ${(f[5] ?? "").replace(IDS, "")} ${f[7]}`;
    });
}

function prepare(
  t: import("node:test").TestContext,
  policyMode: "enforce" | "audit" = "enforce",
): { dir: string; policy: string } | undefined {
  const { tree, reason } = ncfTree(t);
  if (!tree) {
    t.skip(reason);
    return undefined;
  }
  const library = loadMethodLibrary([tree]);
  const result = compileTechnique(readFileSync(FIXTURE, "utf8"), FIXTURE, { methods: library.methods });
  assert.ok(result.ok, JSON.stringify(result.diagnostics));
  const dir = mkdtempSync(join(tmpdir(), "tend-rudder-agent-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "files"));
  const prelude = standalonePrelude(result.technique.technique, {
    ncfTree: tree,
    params: new Map([["dir", join(dir, "files")]]),
    policyMode,
    rudderVar: join(dir, "var"),
  });
  const policy = join(dir, "technique.cf");
  writeFileSync(policy, prelude + (result.technique.files.get("technique.cf") as string));
  return { dir, policy };
}

/** As cf-agent 3.21 reports the same standalone file in audit mode. */
const AUDIT_RUN = [
  "audit_noncompliant 2 /FILES/hello",
  "audit_noncompliant 4 /FILES/hello",
  "audit_na 5 /FILES/hello",
  "audit_compliant 6 /FILES/hello",
  "audit_na 7 /bin/true",
];

const FIRST_RUN = [
  "result_repaired 2 /FILES/hello",
  "result_repaired 4 /FILES/hello",
  "result_na 5 /FILES/hello",
  "audit_noncompliant 6 /FILES/hello",
  "result_repaired 7 /bin/true",
];

test("a compiled technique runs on tend's agent with ncf and reports as Rudder expects", (t) => {
  const setup = prepare(t);
  if (!setup) return;
  const { dir, policy } = setup;
  const run = () => runTend(["agent", "-K", `--workdir=${join(dir, "tend")}`, "-f", policy], { cwd: dir });
  const first = run();
  assert.equal(first.code, 0, first.stderr + first.stdout.slice(0, 3000));
  const files = join(dir, "files");
  assert.deepEqual(
    reports(first.stdout).map((r) => r.replace(files, "/FILES")),
    FIRST_RUN,
  );
  assert.equal(readFileSync(join(files, "hello"), "utf8"), "hello world\n");
  const second = run();
  assert.deepEqual(
    reports(second.stdout).map((r) => r.replace(files, "/FILES")),
    [
      "result_success 2 /FILES/hello",
      "result_success 4 /FILES/hello",
      "result_na 5 /FILES/hello",
      "audit_noncompliant 6 /FILES/hello",
      "result_repaired 7 /bin/true",
    ],
  );
});

test("cf-agent 3.21 runs the same compiled technique with the same reports", (t) => {
  if (!existsSync(CF_AGENT)) return t.skip(`${CF_AGENT} is not installed`);
  const setup = prepare(t);
  if (!setup) return;
  const { dir, policy } = setup;
  const workdir = join(dir, "cfengine");
  mkdirSync(join(workdir, "bin"), { recursive: true });
  copyFileSync("/usr/bin/cf-promises", join(workdir, "bin", "cf-promises"));
  const run = spawnSync(CF_AGENT, ["-K", `--workdir=${workdir}`, "-f", policy], {
    cwd: dir,
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(run.status, 0, run.stderr);
  const files = join(dir, "files");
  assert.deepEqual(
    reports(run.stdout).map((r) => r.replace(files, "/FILES")),
    FIRST_RUN,
  );
});

test("in audit mode nothing changes and everything is reported as audited", (t) => {
  const setup = prepare(t, "audit");
  if (!setup) return;
  const { dir, policy } = setup;
  const run = runTend(["agent", "-K", `--workdir=${join(dir, "tend")}`, "-f", policy], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  const files = join(dir, "files");
  assert.deepEqual(
    reports(run.stdout).map((r) => r.replace(files, "/FILES")),
    AUDIT_RUN,
  );
  assert.equal(existsSync(join(files, "hello")), false);
});
