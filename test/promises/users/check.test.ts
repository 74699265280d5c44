/**
 * `tend check` on users promises, against cf-promises 3.21: the same
 * policies accepted and refused (bad options, types, ranges, unknown
 * attributes such as `groups_secondary_exclusive`, which 3.21 does not
 * have, users in a common bundle), and a password body's `data` read as
 * a plain string, not as JSON.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { checkPolicy } from "../../../src/check/check.js";
import { scratchDirectory } from "../../scratch.js";

const haveCfPromises = spawnSync("cf-promises", ["--version"]).status === 0;

const BODIES = `
body password good { format => "hash"; data => "not json at all"; }
body password bad_format { format => "md5"; data => "x"; }
`;

const CASES: readonly [string, string, boolean][] = [
  [
    "every attribute",
    `users: "u" policy => "present", uid => "1234", description => "U", group_primary => "users",
    groups_secondary => { "adm" }, home_dir => "/home/u", home_bundle => h("u"), home_bundle_inherit => "true",
    shell => "/bin/sh", password => good;`,
    true,
  ],
  ["no policy (refused at run time only)", `users: "u" uid => "1";`, true],
  ["policy not an option", `users: "u" policy => "bogus";`, false],
  ["uid not an integer", `users: "u" policy => "present", uid => "abc";`, false],
  ["home_dir not absolute", `users: "u" policy => "present", home_dir => "relative/x";`, false],
  ["shell not absolute", `users: "u" policy => "present", shell => "sh";`, false],
  ["groups_secondary a scalar", `users: "u" policy => "present", groups_secondary => "adm";`, false],
  [
    "home_bundle_inherit not a boolean",
    `users: "u" policy => "present", home_bundle_inherit => "maybe";`,
    false,
  ],
  ["password format not an option", `users: "u" policy => "present", password => bad_format;`, false],
  [
    "groups_secondary_exclusive",
    `users: "u" policy => "present", groups_secondary_exclusive => "true";`,
    false,
  ],
  ["unknown attribute", `users: "u" policy => "present", nosuch => "x";`, false],
];

function policyFile(dir: string, name: string, main: string, bundleType = "agent"): string {
  const file = join(dir, `${name.replace(/\W+/g, "-")}.cf`);
  const bodies = main.includes("bad_format") ? BODIES : BODIES.replace(/.*bad_format.*\n/, "");
  writeFileSync(file, `bundle ${bundleType} main {\n${main}\n}\nbundle agent h(x) { }\n${bodies}`);
  return file;
}

function cfPromisesAccepts(file: string, dir: string): boolean {
  return (
    spawnSync("cf-promises", ["-f", file], { env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: dir } })
      .status === 0
  );
}

for (const [name, main, valid] of CASES) {
  test(`tend check on users: ${name}`, () => {
    const dir = scratchDirectory("tend-users-check-");
    const file = policyFile(dir, name, main);
    const result = checkPolicy({ entry: file, workDir: dir });
    assert.equal(result.valid, valid, result.diagnostics.map((d) => d.message).join("\n"));
    if (haveCfPromises) assert.equal(cfPromisesAccepts(file, dir), valid, "cf-promises agrees");
  });
}

test("tend check on users: a password body's data is no JSON (no warning)", () => {
  const dir = scratchDirectory("tend-users-check-");
  const file = policyFile(dir, "json", `users: "u" policy => "present", password => good;`);
  assert.deepEqual(
    checkPolicy({ entry: file, workDir: dir }).diagnostics.map((d) => d.message),
    [],
  );
});

test("tend check on users: not in a common bundle", () => {
  const dir = scratchDirectory("tend-users-check-");
  const file = policyFile(dir, "common", `users: "u" policy => "present";`, "common");
  assert.equal(checkPolicy({ entry: file, workDir: dir }).valid, false);
  if (haveCfPromises) assert.equal(cfPromisesAccepts(file, dir), false);
});
