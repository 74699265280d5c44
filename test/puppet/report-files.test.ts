/**
 * The files `tend puppet apply` leaves, against Puppet 7.23's own
 * (test/fixtures/puppet-yaml/): the report, its stored copy, the summary
 * and state.yaml where Puppet's settings put them, with Puppet's keys in
 * Puppet's order at every level, mode 0640; `--json`.
 */
import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { main } from "../../src/cli/app.js";
import type { CliIo } from "../../src/cli/io.js";
import type { RunReport } from "../../src/catalog/report.js";
import { writeReportYaml } from "../../src/puppet/report-files.js";
import { TextChunks } from "../../src/system/text-chunks.js";
import { scratchDirectory } from "../scratch.js";
import { scenariosDir, writeScratchConf } from "./harness.js";

const golden = fileURLToPath(new URL("../../../test/fixtures/puppet-yaml/", import.meta.url));
type Doc = Record<string, unknown>;

const readYaml = (path: string): Doc => parse(readFileSync(path, "utf8"), { logLevel: "error" }) as Doc;
const keys = (value: unknown): string[] => Object.keys(value as Doc);
const first = (value: unknown): unknown => Object.values(value as Doc)[0];

async function apply(args: string[], cwd: string): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: CliIo = {
    stdout: (t) => {
      out += t;
    },
    stderr: (t) => {
      err += t;
    },
    stdoutIsTTY: false,
    stderrIsTTY: false,
    env: { NO_COLOR: "1" },
    cwd,
  };
  return { code: await main(["puppet", "apply", ...args], io), out, err };
}

function scratchRun(): { scratch: string; confdir: string; catalog: string } {
  const scratch = scratchDirectory("tend-puppet-report-");
  const confdir = writeScratchConf(scratch);
  const catalog = join(scenariosDir, "notify/catalog.json");
  return { scratch, confdir, catalog };
}

test("the report, summary and state are where Puppet writes them, with Puppet's keys", async () => {
  const { scratch, confdir, catalog } = scratchRun();
  const run = await apply(["--catalog", catalog, "--confdir", confdir, "--certname", "testnode"], scratch);
  assert.equal(run.code, 0, run.err);
  const report = readYaml(join(scratch, "var/state/last_run_report.yaml"));
  const puppet = readYaml(join(golden, "last_run_report.yaml"));
  assert.deepEqual(keys(report), keys(puppet));
  assert.deepEqual(keys((report.logs as unknown[])[0]), keys((puppet.logs as unknown[])[0]));
  assert.deepEqual(keys(report.metrics), keys(puppet.metrics));
  assert.deepEqual(keys((report.metrics as Doc).resources), keys((puppet.metrics as Doc).resources));
  const status = first(report.resource_statuses) as Doc;
  const puppetStatus = first(puppet.resource_statuses) as Doc;
  assert.deepEqual(keys(status), keys(puppetStatus));
  assert.deepEqual(keys((status.events as unknown[])[0]), keys((puppetStatus.events as unknown[])[0]));
  assert.equal(report.host, "testnode");
  assert.equal(report.status, "changed");
  assert.match(
    readFileSync(join(scratch, "var/state/last_run_report.yaml"), "utf8"),
    /^--- !ruby\/object:Puppet::Transaction::Report\n/,
  );

  const summary = readYaml(join(scratch, "var/public/last_run_summary.yaml"));
  const puppetSummary = readYaml(join(golden, "last_run_summary.yaml"));
  assert.deepEqual(keys(summary), keys(puppetSummary));
  for (const group of ["version", "application", "resources", "changes", "events"])
    assert.deepEqual(keys(summary[group]), keys(puppetSummary[group]), group);
  assert.deepEqual((summary.resources as Doc).total, 11, "4 notifies and Puppet's 7 implicit resources");

  const stored = readdirSync(join(scratch, "var/reports/testnode"));
  assert.equal(stored.length, 1);
  assert.match(stored[0] ?? "", /^\d{12}\.yaml$/);
  assert.ok(readYaml(join(scratch, "var/state/state.yaml"))["Notify[hello]"]);
  for (const file of [
    "var/state/last_run_report.yaml",
    "var/public/last_run_summary.yaml",
    "var/state/state.yaml",
  ])
    assert.equal(statSync(join(scratch, file)).mode & 0o777, 0o640, file);
});

test("--json prints the run report on stdout, the log on stderr", async () => {
  const { scratch, confdir, catalog } = scratchRun();
  const run = await apply(
    ["--catalog", catalog, "--confdir", confdir, "--json", "--detailed-exitcodes"],
    scratch,
  );
  assert.equal(run.code, 2);
  const report = JSON.parse(run.out) as Doc;
  assert.equal(report.status, "changed");
  assert.match(run.err, /^Notice: Hi there$/m);
});

test("--noop changes nothing and exits 0 with --detailed-exitcodes, as Puppet", async () => {
  const { scratch, confdir, catalog } = scratchRun();
  const run = await apply(
    ["--catalog", catalog, "--confdir", confdir, "--noop", "--detailed-exitcodes"],
    scratch,
  );
  assert.equal(run.code, 0);
  assert.match(run.out, /message: current_value 'absent', should be 'Hi there' \(noop\)/);
  const report = readYaml(join(scratch, "var/state/last_run_report.yaml"));
  assert.equal(report.noop, true);
  assert.equal(report.noop_pending, true);
});

test("a bad catalog is a diagnostic with file:line:col and exit 1, and no report", async () => {
  const { scratch, confdir } = scratchRun();
  const bad = join(scratch, "bad.json");
  const { writeFileSync, existsSync } = await import("node:fs");
  writeFileSync(bad, '{\n  "resources": [\n    {"type": "Notify", "title": }\n  ]\n}\n');
  const run = await apply(["--catalog", bad, "--confdir", confdir], scratch);
  assert.equal(run.code, 1);
  assert.match(run.err, new RegExp(`^Error: ${bad.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:3:\\d+: `));
  assert.doesNotMatch(run.err, /\n\s+at /);
  assert.equal(existsSync(join(scratch, "var/state/last_run_report.yaml")), false);
});

test("--promise-module runs a catalog resource of that type through the module", async () => {
  const { scratch, confdir } = scratchRun();
  const { writeFileSync } = await import("node:fs");
  const module = fileURLToPath(new URL("../../../test/fixtures/modules/file-content.sh", import.meta.url));
  const target = join(scratch, "motd");
  const catalog = {
    name: "testnode",
    environment: "production",
    version: "1",
    resources: [
      { type: "Stage", title: "main", tags: ["stage"], exported: false, parameters: {} },
      { type: "Class", title: "Main", tags: ["class"], exported: false, parameters: {} },
      {
        type: "File_content",
        title: target,
        tags: ["file_content", "class"],
        exported: false,
        parameters: { content: "hello" },
      },
    ],
    edges: [
      { source: "Stage[main]", target: "Class[Main]" },
      { source: "Class[Main]", target: `File_content[${target}]` },
    ],
    classes: ["main"],
  };
  const file = join(scratch, "catalog.json");
  writeFileSync(file, JSON.stringify(catalog));
  const args = ["--catalog", file, "--confdir", confdir, "--detailed-exitcodes"];
  const unknown = await apply(args, scratch);
  assert.equal(unknown.code, 1, "without the module the type is unknown");
  assert.match(unknown.err, /Unknown resource type: 'file_content'/);
  const run = await apply([...args, "--promise-module", `file_content=${module}`], scratch);
  assert.equal(run.code, 2, run.err);
  assert.equal(readFileSync(target, "utf8").split("\n")[0], "hello");
  assert.equal((await apply([...args, "--promise-module", `file_content=${module}`], scratch)).code, 0);
});

test("the report writer gives Puppet's own report back byte for byte, a piece at a time", () => {
  const text = readFileSync(join(golden, "last_run_report.yaml"), "utf8");
  const doc = parse(text, { logLevel: "error" }) as Doc;
  const metrics = doc.metrics as Record<string, { values: [string, string, number][] }>;
  const values = (name: string) => Object.fromEntries(metrics[name]?.values.map(([k, , v]) => [k, v]) ?? []);
  const report = {
    ...doc,
    configuration_version: String(doc.configuration_version),
    metrics: {
      resources: values("resources"),
      time: values("time"),
      changes: values("changes"),
      events: values("events"),
    },
  } as unknown as RunReport;
  const pieces: string[] = [];
  writeReportYaml(report, (piece) => pieces.push(piece));
  assert.ok(pieces.length > 100, "written in pieces");
  assert.equal(pieces.join(""), text);
  const chunks = new TextChunks();
  writeReportYaml(report, chunks.write);
  assert.equal(Buffer.concat(chunks.chunks()).toString("utf8"), text);
});
