/**
 * Records how cf-agent 3.21 renders the Mustache cases of
 * test/fixtures/mustache/cases.json: each case's template and data go to a
 * temporary directory and a files promise renders them
 * (`template_method => "mustache"`, `template_data => readjson(...)`).
 * The rendered file (null when none was written) and cf-agent's error and
 * warning lines go to test/fixtures/mustache/cf-agent.json.
 *
 *   node scripts/record-mustache/record.mjs        (CFA=/path/to/wrapper to override /tmp/cfa)
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const CFA = process.env.CFA ?? "/tmp/cfa";
const fixtures = new URL("../../test/fixtures/mustache/", import.meta.url);
const cases = JSON.parse(readFileSync(new URL("cases.json", fixtures), "utf8"));

function record(c) {
  const dir = mkdtempSync(join(tmpdir(), "record-mustache-"));
  writeFileSync(join(dir, "t.mustache"), c.template);
  writeFileSync(join(dir, "data.json"), JSON.stringify(c.data));
  writeFileSync(
    join(dir, "policy.cf"),
    `body common control { bundlesequence => { "main" }; }
bundle agent main {
files:
  "${dir}/out"
    edit_template => "${dir}/t.mustache",
    template_method => "mustache",
    template_data => readjson("${dir}/data.json", "100M");
}
`,
  );
  const run = spawnSync(CFA, ["-Kf", join(dir, "policy.cf")], {
    encoding: "utf8",
    env: { ...process.env, CFA_WD: join(dir, "wd") },
  });
  const out = join(dir, "out");
  const output = existsSync(out) ? readFileSync(out, "utf8") : null;
  const log = `${run.stdout}${run.stderr}`
    .split("\n")
    .filter((l) => /^\s*(error|warning):/.test(l))
    .map((l) => l.split(dir).join("DIR"));
  rmSync(dir, { recursive: true, force: true });
  return { name: c.name, output, log };
}

const results = cases.map(record);
writeFileSync(new URL("cf-agent.json", fixtures), `${JSON.stringify(results, null, 1)}\n`);
console.log(`${results.length} cases recorded`);
