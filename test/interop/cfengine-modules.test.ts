/**
 * Interop with the public promise modules of cfengine/modules: the json,
 * symlinks and git promise types (Python library) and the cp example (bash
 * library) run unchanged under tend, with the same outcomes, classes, files
 * and messages as under cf-agent 3.21 (recorded in `NAME.expected`).
 *
 * Their code is not part of this repository. Point TEND_CFENGINE_MODULES at
 * a checkout of https://github.com/cfengine/modules to run these tests;
 * without it they are skipped. Each policy runs twice in one fresh work
 * directory (modules in `modules/promises/`, test data in `data/`): the
 * first run repairs, the second finds everything kept.
 *
 * - TEND_RECORD=1 records the expectations from cf-agent (through /tmp/cfa).
 * - TEND_INTEROP_CF_AGENT=1 also runs cf-agent now and compares with it.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const policyDir = join(repoRoot, "test", "interop", "cfengine-modules");
const checkout = process.env.TEND_CFENGINE_MODULES;
const CFA = "/tmp/cfa";

/** The module files each policy needs, from the checkout. */
const MODULE_FILES: Readonly<Record<string, readonly string[]>> = {
  json: ["promise-types/json/json_promise_type.py", "libraries/python/cfengine_module_library.py"],
  symlinks: ["promise-types/symlinks/symlinks.py", "libraries/python/cfengine_module_library.py"],
  git: ["promise-types/git/git.py", "libraries/python/cfengine_module_library.py"],
  cp: ["examples/cp/cp.sh", "libraries/bash/cfengine.sh"],
};

const skipReason =
  checkout === undefined
    ? "TEND_CFENGINE_MODULES is not set (a checkout of github.com/cfengine/modules, not kept in this repository)"
    : !existsSync(join(checkout, "libraries"))
      ? `TEND_CFENGINE_MODULES=${checkout} is not a checkout of cfengine/modules`
      : !existsSync("/usr/bin/python3")
        ? "/usr/bin/python3 is missing"
        : undefined;

function git(cwd: string, ...args: string[]): void {
  execFileSync("git", ["-c", "user.name=tend", "-c", "user.email=tend@example.com", ...args], {
    cwd,
    stdio: "ignore",
  });
}

/** Test data: files and links for symlinks, a source for cp, a repository for git. */
function makeData(data: string): void {
  mkdirSync(join(data, "target-dir"), { recursive: true });
  writeFileSync(join(data, "target-file"), "target\n");
  writeFileSync(join(data, "other-file"), "other\n");
  symlinkSync(join(data, "other-file"), join(data, "link-wrong"));
  writeFileSync(join(data, "plain-file"), "plain\n");
  writeFileSync(join(data, "source"), "copied content\n");
  const work = join(data, "origin-work");
  mkdirSync(work);
  git(work, "init", "-q", "-b", "main");
  writeFileSync(join(work, "file.txt"), "version one\n");
  git(work, "add", "file.txt");
  git(work, "commit", "-q", "-m", "one");
  git(work, "tag", "v1");
  writeFileSync(join(work, "file.txt"), "version two\n");
  git(work, "commit", "-q", "-am", "two");
  git(data, "clone", "-q", "--bare", work, join(data, "origin.git"));
}

/** Between the two runs, the git repository gets a new commit to update to. */
function changeData(data: string): void {
  const work = join(data, "origin-work");
  writeFileSync(join(work, "file.txt"), "version three\n");
  git(work, "commit", "-q", "-am", "three");
  git(work, "push", "-q", join(data, "origin.git"), "main");
}

function makeWorkdir(name: string, source: string): string {
  const workdir = mkdtempSync(join(tmpdir(), `tend-interop-${name}-`));
  const modules = join(workdir, "modules", "promises");
  mkdirSync(modules, { recursive: true });
  for (const file of MODULE_FILES[name])
    copyFileSync(join(source, file), join(modules, file.split("/").at(-1)!));
  makeData(join(workdir, "data"));
  return workdir;
}

type Agent = "tend" | "cf-agent";

/** One run's output: stdout and stderr into one file, so their lines keep their order. */
function runOnce(name: string, agent: Agent, workdir: string): string {
  const file = join(workdir, "output.txt");
  const fd = openSync(file, "w");
  const args = ["-KIf", `./${name}.cf`];
  try {
    const options = {
      cwd: policyDir,
      stdio: ["ignore", fd, fd] as ["ignore", number, number],
      timeout: 120_000,
    };
    const result =
      agent === "tend"
        ? spawnSync(process.execPath, [join(repoRoot, "bin", "tend.js"), "agent", ...args], {
            ...options,
            env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: workdir },
          })
        : spawnSync(CFA, args, { ...options, env: { ...process.env, CFA_WD: workdir } });
    return `== exit ${result.status}\n${readFileSync(file, "utf8")}`;
  } finally {
    closeSync(fd);
  }
}

/**
 * Both runs' output, with the work directory's path replaced. cf-agent lets
 * a module's standard error through as it is; tend logs each line as a
 * warning naming the module and promise: those lines are put back as they were.
 */
function runTwice(name: string, agent: Agent): string {
  const workdir = makeWorkdir(name, checkout!);
  try {
    const first = runOnce(name, agent, workdir);
    changeData(join(workdir, "data"));
    const output = first + runOnce(name, agent, workdir);
    return output
      .replaceAll(workdir, "$WORKDIR")
      .replaceAll(workdir.replace(/[^A-Za-z0-9_]/g, "_"), "$CANONIFIED_WORKDIR")
      .replace(/^ warning: Promise module '[^']*' \([^)]*\) wrote to standard error: /gm, "");
  } finally {
    rmSync(workdir, { recursive: true, force: true });
  }
}

for (const name of Object.keys(MODULE_FILES)) {
  test(`cfengine/modules ${name} runs under tend as under cf-agent`, {
    skip: skipReason,
    timeout: 300_000,
  }, () => {
    const expectedFile = join(policyDir, `${name}.expected`);
    if (process.env.TEND_RECORD === "1" && existsSync(CFA)) {
      writeFileSync(expectedFile, runTwice(name, "cf-agent"));
    }
    const tend = runTwice(name, "tend");
    assert.equal(tend, readFileSync(expectedFile, "utf8"));
    if (process.env.TEND_INTEROP_CF_AGENT === "1" && existsSync(CFA))
      assert.equal(tend, runTwice(name, "cf-agent"));
  });
}
