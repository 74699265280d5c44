/**
 * The digests serverd keeps for unchanged files (src/server/daemon/digests.ts):
 * used again only while the file keeps its device, inode, size and times,
 * never kept for a file changed in the last seconds, bounded in number.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { DigestCache } from "../../../src/server/daemon/digests.js";

function scratch(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), "tend-digests-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const DIGEST = Buffer.alloc(16, 7);

test("a digest is used again while the file is unchanged, and not once it changed", async (t) => {
  const file = join(scratch(t), "f");
  writeFileSync(file, "one");
  const old = new Date(Date.now() - 60_000);
  utimesSync(file, old, old);
  const cache = new DigestCache(10, () => Date.now() + 60_000);
  cache.set(file, statSync(file), DIGEST);
  assert.deepEqual(cache.get(file, statSync(file)), DIGEST);
  // Same size, same mtime put back: the change time still tells (a file
  // system's clock ticks coarsely: the cache's 2 s rule covers a rewrite
  // within one tick; here the tick has passed).
  await new Promise((resolve) => setTimeout(resolve, 50));
  writeFileSync(file, "two");
  utimesSync(file, old, old);
  assert.equal(cache.get(file, statSync(file)), undefined);
  assert.equal(cache.size, 0);
});

test("a file changed in the last seconds is not kept", (t) => {
  const file = join(scratch(t), "f");
  writeFileSync(file, "fresh");
  const cache = new DigestCache(10);
  cache.set(file, statSync(file), DIGEST);
  assert.equal(cache.get(file, statSync(file)), undefined);
});

test("the cache is bounded: the oldest entry goes first", (t) => {
  const dir = scratch(t);
  const cache = new DigestCache(2, () => Date.now() + 60_000);
  const files = ["a", "b", "c"].map((name) => {
    const file = join(dir, name);
    writeFileSync(file, name);
    cache.set(file, statSync(file), DIGEST);
    return file;
  });
  assert.equal(cache.size, 2);
  assert.equal(cache.get(files[0] as string, statSync(files[0] as string)), undefined);
  assert.deepEqual(cache.get(files[2] as string, statSync(files[2] as string)), DIGEST);
});
