/**
 * The files provider's copies (ensureCopy: created, kept, replaced, holes
 * kept) and tree walks (walkTree: depth first, sorted, depth limit, links
 * not descended unless asked), on temporary directories.
 */
import assert from "node:assert/strict";
import {
  closeSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  writeSync,
  readlinkSync,
  utimesSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  copyPreserving,
  createEmptyFile,
  createFifo,
  dataDigest,
  ensureCopy,
  resolveLinkChain,
  walkTree,
} from "../../../src/providers/files/index.js";

function withDir(fn: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), "tend-files-provider-"));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("ensureCopy creates a copy, keeps an equal one, replaces a different one", () => {
  withDir((dir) => {
    const [source, dest] = [join(dir, "source"), join(dir, "dest")];
    writeFileSync(source, "one", { mode: 0o751 });
    assert.equal(ensureCopy(source, dest).changes[0]?.property, "ensure");
    assert.equal(readFileSync(dest, "utf8"), "one");
    assert.equal(lstatSync(dest).mode & 0o7777, 0o644, "not the source's mode unless preserving");
    assert.equal(ensureCopy(source, dest).status, "unchanged");
    writeFileSync(source, "two");
    const replaced = ensureCopy(source, dest, { digest: "md5", preserve: true });
    assert.equal(replaced.changes[0]?.new, `{md5}${dataDigest("two", "md5")}`);
    assert.equal(lstatSync(dest).mode & 0o7777, 0o751);
    writeFileSync(source, "three");
    assert.equal(ensureCopy(source, dest, { replace: false }).status, "unchanged");
    assert.equal(ensureCopy(source, dest, { noop: true }).changes[0]?.applied, false);
    assert.equal(readFileSync(dest, "utf8"), "two");
    assert.equal(ensureCopy(join(dir, "none"), dest).cause?.code, "ENOENT");
  });
});

test("ensureCopy keeps a sparse source's holes", () => {
  withDir((dir) => {
    const [source, dest] = [join(dir, "sparse"), join(dir, "copy")];
    // A file with a real hole: 1 MiB long, only its last bytes written.
    const fd = openSync(source, "w");
    writeSync(fd, Buffer.from("end"), 0, 3, (1 << 20) - 3);
    closeSync(fd);
    assert.equal(ensureCopy(source, dest).status, "changed");
    assert.deepEqual(readFileSync(dest), readFileSync(source));
    assert.ok(lstatSync(dest).blocks * 512 < 1 << 20, "the hole is not written");
  });
});

test("walkTree walks depth first in name order, to a depth, not into links unless asked", () => {
  withDir((dir) => {
    mkdirSync(join(dir, "b", "c"), { recursive: true });
    writeFileSync(join(dir, "a"), "");
    writeFileSync(join(dir, "b", "c", "d"), "x");
    mkdirSync(join(dir, "other"));
    writeFileSync(join(dir, "other", "inside"), "");
    symlinkSync(join(dir, "other"), join(dir, "b", "link"));
    const all = [...walkTree(dir)].map((e) => `${e.depth}:${e.relative}:${e.state.kind}`);
    assert.deepEqual(all, [
      "1:a:file",
      "1:b:directory",
      "2:b/c:directory",
      "3:b/c/d:file",
      "2:b/link:link",
      "1:other:directory",
      "2:other/inside:file",
    ]);
    const shallow = [...walkTree(dir, { maxDepth: 1 })].map((e) => e.relative);
    assert.deepEqual(shallow, ["a", "b", "other"]);
    const followed = [...walkTree(join(dir, "b"), { followLinks: true })].map((e) => e.relative);
    assert.deepEqual(followed, ["c", "c/d", "link", "link/inside"]);
    const skipped = [...walkTree(dir, { skip: (name) => name === "b" })].map((e) => e.relative);
    assert.deepEqual(skipped, ["a", "other", "other/inside"]);
  });
});

test("copyPreserving copies a tree with modes and times, links as links", () => {
  withDir((dir) => {
    mkdirSync(join(dir, "tree", "sub"), { recursive: true });
    writeFileSync(join(dir, "tree", "sub", "f"), "x", { mode: 0o604 });
    symlinkSync("sub/f", join(dir, "tree", "l"));
    utimesSync(join(dir, "tree", "sub", "f"), 1000, 2000);
    copyPreserving(join(dir, "tree"), join(dir, "copy"));
    const copied = lstatSync(join(dir, "copy", "sub", "f"));
    assert.equal(copied.mode & 0o7777, 0o604);
    assert.equal(copied.mtimeMs, 2000 * 1000);
    assert.equal(readFileSync(join(dir, "copy", "sub", "f"), "utf8"), "x");
    assert.equal(readlinkSync(join(dir, "copy", "l")), "sub/f");
  });
});

test("createEmptyFile refuses what is there, a dangling link included; resolveLinkChain follows links", () => {
  withDir((dir) => {
    const path = join(dir, "new");
    createEmptyFile(path, 0o640);
    assert.equal(lstatSync(path).mode & 0o7777, 0o640);
    symlinkSync(join(dir, "nowhere"), join(dir, "dangling"));
    assert.throws(() => createEmptyFile(join(dir, "dangling"), 0o600), { code: "EEXIST" });
    symlinkSync("new", join(dir, "l1"));
    symlinkSync(join(dir, "l1"), join(dir, "l2"));
    assert.equal(resolveLinkChain(join(dir, "l2")), join(dir, "new"));
    assert.equal(resolveLinkChain(path), path);
    assert.equal(createFifo(join(dir, "pipe"), 0o600), undefined);
    assert.ok(lstatSync(join(dir, "pipe")).isFIFO());
  });
});
