/**
 * The apt/dpkg provider with a fake runner: what it reads from dpkg-query,
 * which commands it runs for each ensure, noop, and failures. (The same
 * provider runs the real tools in test/puppet/sandboxed/.)
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { debInSync, ensureDebPackage, wantedOf } from "../../../src/providers/packages/debian.js";
import { parseDpkgQueryLine, queryDeb } from "../../../src/providers/packages/dpkg-query.js";
import type { CommandOutput } from "../../../src/providers/tool-runner.js";

/** A runner answering dpkg-query with `status` and recording every command. */
function fake(status: string | undefined, answers: Record<string, CommandOutput> = {}) {
  const calls: string[] = [];
  const run = (argv: readonly string[]): CommandOutput => {
    const line = argv.join(" ");
    calls.push(line);
    if (argv[0] === "/usr/bin/dpkg-query")
      return status === undefined
        ? { status: 1, stdout: "", stderr: "dpkg-query: no packages found" }
        : { status: 0, stdout: `${status}\n`, stderr: "" };
    const key = Object.keys(answers).find((k) => line.includes(k));
    return key ? (answers[key] as CommandOutput) : { status: 0, stdout: "", stderr: "" };
  };
  return { run, calls: () => calls.filter((c) => !c.startsWith("/usr/bin/dpkg-query")) };
}

test("dpkg-query lines: installed, config files left, not installed, held, error", () => {
  assert.deepEqual(parseDpkgQueryLine("install ok installed foo 1.0-2")?.found, { version: "1.0-2" });
  assert.equal(parseDpkgQueryLine("deinstall ok config-files foo 1.0")?.found, "absent");
  assert.equal(parseDpkgQueryLine("unknown ok not-installed foo ")?.found, "purged");
  assert.equal(parseDpkgQueryLine("hold ok installed foo 1.0")?.held, true);
  assert.equal(parseDpkgQueryLine("install reinstreq half-installed foo 1.0")?.error, "reinstreq");
  assert.equal(parseDpkgQueryLine("garbage"), undefined);
  assert.equal(queryDeb(fake(undefined).run, "foo").found, "purged");
});

test("ensure values and what is in sync", () => {
  assert.equal(wantedOf("installed"), "present");
  assert.deepEqual(wantedOf("1.2-3"), { version: "1.2-3" });
  assert.equal(debInSync("present", { version: "1" }), true);
  assert.equal(debInSync("absent", "purged"), true);
  assert.equal(debInSync("purged", "absent"), false);
  assert.equal(debInSync("latest", { version: "1" }, "2"), false);
  assert.equal(debInSync({ version: "2" }, { version: "2" }), true);
});

test("apt: install, a version, removal and purge run apt-get (then dpkg --purge)", () => {
  let f = fake(undefined);
  const result = ensureDebPackage(
    { name: "foo", ensure: "present", tool: "apt" },
    { noop: false, run: f.run },
  );
  assert.equal(result.status, "changed");
  assert.deepEqual(result.changes[0], {
    property: "ensure",
    old: "purged",
    new: "present",
    message: "installed present",
    applied: true,
  });
  assert.deepEqual(f.calls(), ["/usr/bin/apt-get -q -y -o DPkg::Options::=--force-confold install foo"]);
  f = fake("install ok installed foo 1.0");
  ensureDebPackage(
    { name: "foo", ensure: "2.0", tool: "apt", installOptions: ["--no-install-recommends"] },
    { noop: false, run: f.run },
  );
  assert.deepEqual(f.calls(), [
    "/usr/bin/apt-get -q -y -o DPkg::Options::=--force-confold --allow-downgrades --no-install-recommends install foo=2.0",
  ]);
  f = fake("install ok installed foo 1.0");
  ensureDebPackage({ name: "foo", ensure: "purged", tool: "apt" }, { noop: false, run: f.run });
  assert.deepEqual(f.calls(), ["/usr/bin/apt-get -y -q remove --purge foo", "/usr/bin/dpkg --purge foo"]);
});

test("latest: apt-cache's candidate, nothing done when installed", () => {
  const policy = { status: 0, stdout: "foo:\n  Installed: 2.0\n  Candidate: 2.0\n", stderr: "" };
  const f = fake("install ok installed foo 2.0", { "apt-cache policy": policy });
  const result = ensureDebPackage(
    { name: "foo", ensure: "latest", tool: "apt" },
    { noop: false, run: f.run },
  );
  assert.equal(result.status, "unchanged");
  assert.equal(result.latest, "2.0");
});

test("noop changes nothing; failures say which command and why", () => {
  let f = fake("install ok installed foo 1.0");
  const noop = ensureDebPackage({ name: "foo", ensure: "absent", tool: "apt" }, { noop: true, run: f.run });
  assert.equal(noop.changes[0]?.applied, false);
  assert.deepEqual(f.calls(), []);
  f = fake(undefined, {
    "apt-get": { status: 100, stdout: "", stderr: "E: Unable to locate package foo\n" },
  });
  const failed = ensureDebPackage(
    { name: "foo", ensure: "present", tool: "apt" },
    { noop: false, run: f.run },
  );
  assert.equal(failed.status, "failed");
  assert.match(
    failed.error ?? "",
    /^Execution of '.*apt-get .* install foo' returned 100: E: Unable to locate package foo$/,
  );
  const dpkg = ensureDebPackage(
    { name: "foo", ensure: "present", tool: "dpkg" },
    { noop: false, run: fake(undefined).run },
  );
  assert.equal(dpkg.error, "You cannot install dpkg packages without a source");
  const broken = ensureDebPackage(
    { name: "foo", ensure: "present", tool: "apt" },
    { noop: false, run: fake("install reinstreq half-installed foo 1.0").run },
  );
  assert.equal(broken.error, "Package foo, version absent is in error state: reinstreq");
});
