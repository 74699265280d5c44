/**
 * Atomic writes (atomic.ts): the content and mode land whole, whether a
 * file is created or replaced, the caller's hint about what is replaced
 * changes nothing in the result, and several files written together are
 * each written or left as they were, with the error of each that failed.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { writeFileAtomically, writeFilesAtomically } from "../../src/system/atomic.js";

function scratch(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "tend-atomic-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("a file is created and replaced whole, with the mode given, hint or no hint", (t) => {
  const dir = scratch(t);
  const path = join(dir, "f");
  writeFileAtomically(path, "one\n", 0o640, undefined, undefined, false);
  assert.equal(readFileSync(path, "utf8"), "one\n");
  assert.equal(statSync(path).mode & 0o7777, 0o640);
  writeFileAtomically(path, "two\n", 0o600, undefined, undefined, true);
  assert.equal(readFileSync(path, "utf8"), "two\n");
  assert.equal(statSync(path).mode & 0o7777, 0o600);
  writeFileAtomically(path, "three\n", 0o644);
  assert.equal(readFileSync(path, "utf8"), "three\n");
  assert.deepEqual(readdirSync(dir), ["f"], "no temporary file is left");
});

test("a file only to be created is created, and never put over what appeared meanwhile", (t) => {
  const dir = scratch(t);
  const path = join(dir, "f");
  writeFileAtomically(path, "new\n", 0o640, undefined, undefined, "nothing");
  assert.equal(readFileSync(path, "utf8"), "new\n");
  assert.equal(statSync(path).mode & 0o7777, 0o640);
  assert.equal(statSync(path).nlink, 1);
  assert.throws(() => writeFileAtomically(path, "mine\n", 0o644, undefined, undefined, "nothing"), {
    code: "EEXIST",
    syscall: "link",
  });
  assert.equal(readFileSync(path, "utf8"), "new\n");
  assert.deepEqual(readdirSync(dir), ["f"]);
});

test("files written together: each whole, a failed one reported and the others written", async (t) => {
  const dir = scratch(t);
  writeFileSync(join(dir, "old"), "old content\n");
  const errors = await writeFilesAtomically([
    { path: join(dir, "new"), chunks: [Buffer.from("a"), Buffer.from("b\n")], mode: 0o640 },
    { path: join(dir, "missing", "x"), chunks: [Buffer.from("x")], mode: 0o640 },
    { path: join(dir, "old"), chunks: [Buffer.from("replaced\n")], mode: 0o600 },
  ]);
  assert.equal(errors[0], undefined);
  assert.equal((errors[1] as NodeJS.ErrnoException | undefined)?.code, "ENOENT");
  assert.equal(errors[2], undefined);
  assert.equal(readFileSync(join(dir, "new"), "utf8"), "ab\n");
  assert.equal(statSync(join(dir, "new")).mode & 0o7777, 0o640);
  assert.equal(readFileSync(join(dir, "old"), "utf8"), "replaced\n");
  assert.equal(statSync(join(dir, "old")).mode & 0o7777, 0o600);
  assert.deepEqual(readdirSync(dir).sort(), ["new", "old"], "no temporary file is left");
});

test("a file written as the same as another is a hard link to it, renamed into place", async (t) => {
  const dir = scratch(t);
  mkdirSync(join(dir, "store"));
  writeFileSync(join(dir, "store", "kept"), "old\n");
  const errors = await writeFilesAtomically([
    { path: join(dir, "last"), chunks: [Buffer.from("report\n")], mode: 0o640, flush: false },
    { path: join(dir, "store", "kept"), chunks: [Buffer.from("report\n")], mode: 0o640, sameAs: 0 },
  ]);
  assert.deepEqual(errors, [undefined, undefined]);
  const last = statSync(join(dir, "last"));
  const kept = statSync(join(dir, "store", "kept"));
  assert.equal(readFileSync(join(dir, "store", "kept"), "utf8"), "report\n");
  assert.equal(kept.ino, last.ino, "one file under two names");
  assert.equal(kept.mode & 0o7777, 0o640);
  // The next write of one name replaces it, leaving the other as it was.
  const again = await writeFilesAtomically([
    { path: join(dir, "last"), chunks: [Buffer.from("next\n")], mode: 0o640, flush: false },
  ]);
  assert.deepEqual(again, [undefined]);
  assert.equal(readFileSync(join(dir, "store", "kept"), "utf8"), "report\n");
  assert.deepEqual(readdirSync(join(dir, "store")), ["kept"], "no temporary file is left");
  assert.deepEqual(readdirSync(dir).sort(), ["last", "store"]);
});
