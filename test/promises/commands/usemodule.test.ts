/**
 * usemodule() messages: what a module prints outside the protocol, and why
 * a module does not run. The expected lines are those cf-agent 3.21 printed
 * for the same policy and modules. 3.21 calls a class expression's function
 * twice in a pass (and again in later passes while it fails), so its lines
 * repeat; the comparison is of the distinct lines.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const tendBin = fileURLToPath(new URL("../../../../bin/tend.js", import.meta.url));
const isRoot = process.getuid?.() === 0;

const POLICY = `bundle agent main
{
  classes:
      "ran" expression => usemodule("talker", "first second");
      "missing" expression => usemodule("no_such_module", "");
      "not_executable" expression => usemodule("not_executable", "");
      "foreign" expression => usemodule("foreign", "");
  reports:
    ran:: "ran";
    not_executable:: "not_executable";
    missing:: "missing";
    foreign:: "foreign";
}
`;

const TALKER = `#!/bin/sh
echo "=args=$*"
echo plain text
echo
echo "   "
echo to stderr >&2
exit 3
`;

/** Distinct lines cf-agent 3.21 printed (with -I) for POLICY, its work directory written $WORKDIR. */
const CF_AGENT_LINES = [
  `    info: M '"$WORKDIR/modules/talker" first second': plain text`,
  `    info: M '"$WORKDIR/modules/talker" first second': to stderr`,
  `   error: Plug-in module '"$WORKDIR/modules/no_such_module"' not found`,
  `    info: M '"$WORKDIR/modules/not_executable" ':    error: Couldn't run '$WORKDIR/modules/not_executable'. (execv: Permission denied)`,
  `   error: Module '"$WORKDIR/modules/foreign"' was not owned by uid 0 who is executing agent`,
];
const CF_AGENT_REPORTS = ["R: ran", "R: not_executable"];

test("usemodule: module text, unrunnable and foreign modules, as cf-agent shows them", {
  skip: !isRoot && "needs root (a module owned by another user)",
}, () => {
  const workdir = mkdtempSync(join(tmpdir(), "tend-usemodule-"));
  try {
    const modules = join(workdir, "modules");
    mkdirSync(modules);
    for (const [name, mode] of [
      ["talker", 0o755],
      ["not_executable", 0o644],
      ["foreign", 0o755],
    ] as const) {
      writeFileSync(join(modules, name), TALKER);
      chmodSync(join(modules, name), mode);
    }
    chownSync(join(modules, "foreign"), 65534, 65534);
    writeFileSync(join(workdir, "policy.cf"), POLICY);
    const result = spawnSync(process.execPath, [tendBin, "agent", "-KI", "-f", join(workdir, "policy.cf")], {
      env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: workdir },
      encoding: "utf8",
      timeout: 60_000,
    });
    const lines = (text: string) => [
      ...new Set(text.replaceAll(workdir, "$WORKDIR").split("\n").filter(Boolean)),
    ];
    // Log and report lines both on stdout, as cf-agent writes them.
    assert.deepEqual(lines(result.stdout).sort(), [...CF_AGENT_LINES, ...CF_AGENT_REPORTS].sort());
    assert.equal(result.stderr, "");
  } finally {
    rmSync(workdir, { recursive: true, force: true });
  }
});
