/** safe-fs.ts's primitives on plain trees, and its refusal of another user's link. */
import assert from "node:assert/strict";
import { lchownSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { chmodSync, mkdirSync, renameSync, unlinkSync } from "../../src/system/safe-fs.js";
import { scratchDirectory } from "../scratch.js";

test("a recursive mkdir makes every missing level, and accepts a directory already there", () => {
  const dir = scratchDirectory("tend-safe-fs-");
  const deep = join(dir, "a", "b", "c");
  mkdirSync(deep, { recursive: true, mode: 0o700 });
  assert.ok(statSync(deep).isDirectory());
  mkdirSync(deep, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, "file"), "");
  assert.throws(() => mkdirSync(join(dir, "file"), { recursive: true }), { code: "EEXIST" });
});

test("rename, chmod and unlink work through the checked directory", () => {
  const dir = scratchDirectory("tend-safe-fs-");
  writeFileSync(join(dir, "x"), "data");
  renameSync(join(dir, "x"), join(dir, "y"));
  assert.equal(readFileSync(join(dir, "y"), "utf8"), "data");
  chmodSync(join(dir, "y"), 0o640);
  assert.equal(statSync(join(dir, "y")).mode & 0o777, 0o640);
  unlinkSync(join(dir, "y"));
  assert.throws(() => statSync(join(dir, "y")), { code: "ENOENT" });
});

test("another user's link to a directory of root's is refused with ENOLINK", {
  skip: process.getuid?.() === 0 ? undefined : "needs root (the link's owner is nobody)",
}, () => {
  const dir = scratchDirectory("tend-safe-fs-");
  const target = join(dir, "target");
  mkdirSync(target, 0o755);
  writeFileSync(join(target, "f"), "root's");
  const link = join(dir, "link");
  symlinkSync(target, link);
  lchownSync(link, 65534, 65534);
  assert.throws(() => chmodSync(join(link, "f"), 0o666), { code: "ENOLINK" });
  assert.throws(() => unlinkSync(join(link, "f")), { code: "ENOLINK" });
  assert.equal(statSync(join(target, "f")).mode & 0o777, 0o644);
});
