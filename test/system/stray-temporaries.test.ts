/**
 * Leftover temporary files of killed runs (stray-temporaries.ts): removed
 * when their writer is gone, kept when it may still be writing, and
 * nothing else in the directory is touched.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { writeFileAtomically } from "../../src/system/atomic.js";
import { sweepStrayTemporaries, writerIsGone } from "../../src/system/stray-temporaries.js";

/** The pid of a process that has ended. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  });
  return Number(child.stdout);
}

function withDirectory(fn: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), "tend-strays-"));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("a write removes the temporaries of dead writers beside it, and only those", () => {
  withDirectory((dir) => {
    const dead = deadPid();
    const parent = process.ppid;
    const files: Record<string, string> = {
      [`.f.tend-${dead}-1`]: "half",
      [`.g.tend-${dead}-7`]: "half",
      [`.tend-${dead}-2`]: "half, named as since session 18",
      [`tend-${dead}-2`]: "not hidden: not tend's name",
      [`.f.tend-${process.pid}-99`]: "mine",
      [`.f.tend-${parent}-3`]: "live writer",
      [`.h.tend-${parent}-4`]: "written before the live process started",
      [`f.tend-${dead}-1`]: "not hidden: not tend's name",
      [`.f.tend-${dead}-1.bak`]: "not tend's name",
      [`.f.tend-${dead}`]: "not tend's name",
    };
    // Leftovers of earlier runs are older than this one; the live writer's file is not.
    for (const [name, text] of Object.entries(files)) {
      writeFileSync(join(dir, name), text);
      if (name !== `.f.tend-${parent}-3`) utimesSync(join(dir, name), 1_000_000, 1_000_000);
    }
    // A dead pid's file written during this run (a writer in another pid namespace): kept.
    writeFileSync(join(dir, `.e.tend-${dead}-5`), "being written");
    mkdirSync(join(dir, `.d.tend-${dead}-2`));
    writeFileAtomically(join(dir, "f"), "new\n", 0o644);
    assert.equal(readFileSync(join(dir, "f"), "utf8"), "new\n");
    const left = readdirSync(dir).sort();
    const gone = [`.f.tend-${dead}-1`, `.g.tend-${dead}-7`, `.tend-${dead}-2`, `.h.tend-${parent}-4`];
    const expected = [
      ...Object.keys(files).filter((n) => !gone.includes(n)),
      `.d.tend-${dead}-2`,
      `.e.tend-${dead}-5`,
      "f",
    ];
    assert.deepEqual(left, expected.sort());
  });
});

test("a directory is swept once per run", () => {
  withDirectory((dir) => {
    const dead = deadPid();
    writeFileSync(join(dir, `.a.tend-${dead}-1`), "");
    utimesSync(join(dir, `.a.tend-${dead}-1`), 1_000_000, 1_000_000);
    assert.equal(sweepStrayTemporaries(dir), 1);
    writeFileSync(join(dir, `.a.tend-${dead}-2`), "");
    utimesSync(join(dir, `.a.tend-${dead}-2`), 1_000_000, 1_000_000);
    assert.equal(sweepStrayTemporaries(dir), 0);
  });
});

test("a live writer is not gone; a dead one is", () => {
  assert.equal(writerIsGone(process.pid, Date.now()), false);
  assert.equal(writerIsGone(deadPid(), Date.now()), true);
  // A file older than the live process with that pid was written by an earlier process.
  assert.equal(writerIsGone(process.pid, 1_000_000), true);
});
