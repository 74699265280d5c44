/**
 * The digests serverd keeps for unchanged files (src/server/daemon/digests.ts):
 * used again only while the file keeps its device, inode, size and times,
 * never kept for a file changed in the last seconds, bounded in number;
 * and the OPENDIR listings it keeps the same way.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { Channel, Session } from "../../../src/server/daemon/channel.js";
import { DigestCache } from "../../../src/server/daemon/digests.js";
import { replyOpendir } from "../../../src/server/daemon/file-commands.js";
import { silentLogger } from "../../../src/system/logger.js";

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

/** OPENDIR's replies through a channel that records them, with a cache that takes every directory as settled. */
function listingSession(cache: DigestCache) {
  const sent: { payload: string; more: boolean }[] = [];
  const channel = {
    send: async (payload: string | Buffer, more = false) => {
      sent.push({ payload: payload.toString("latin1"), more });
    },
  } as unknown as Channel;
  const session = { channel, log: silentLogger, digests: cache } as unknown as Session;
  const names = async (dir: string): Promise<string[]> => {
    sent.length = 0;
    await replyOpendir(session, dir);
    assert.equal(sent.at(-1)?.more, false);
    return sent
      .map((f) => f.payload)
      .join("")
      .split("\0")
      .filter((n) => n !== "" && !n.startsWith("---cfXen"))
      .sort();
  };
  return names;
}

test("OPENDIR of an unchanged directory is answered from the cache, a changed one afresh", async (t) => {
  const dir = scratch(t);
  writeFileSync(join(dir, "a"), "");
  const cache = new DigestCache(10, () => Date.now() + 60_000);
  const names = listingSession(cache);
  assert.deepEqual(await names(dir), [".", "..", "a"]);
  assert.equal(cache.listings.size, 1);
  assert.deepEqual(await names(dir), [".", "..", "a"]);
  writeFileSync(join(dir, "b"), "");
  assert.deepEqual(await names(dir), [".", "..", "a", "b"]);
  rmSync(join(dir, "a"));
  assert.deepEqual(await names(dir), [".", "..", "b"]);
});

test("a long listing over several frames comes back the same from the cache", async (t) => {
  const dir = scratch(t);
  const expected = Array.from({ length: 150 }, (_, i) => `${"n".repeat(60)}-${i}`);
  for (const name of expected) writeFileSync(join(dir, name), "");
  const names = listingSession(new DigestCache(10, () => Date.now() + 60_000));
  const first = await names(dir);
  assert.deepEqual(first, [".", "..", ...expected].sort());
  assert.deepEqual(await names(dir), first);
});
