/**
 * The server's cache of trusted client keys follows the key files: a key
 * read once is used again while its file is unchanged, and a key removed
 * or replaced is read again (trust is never kept past its file).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "node:test";
import {
  generateKeyPair,
  keyDigest,
  publicKeyPem,
  sameKey,
  trustKey,
  trustedKeyFile,
} from "../../../src/net/keys.js";
import { TrustedKeyCache } from "../../../src/server/daemon/trusted-keys.js";

test("trusted keys: kept while the file is unchanged, read again when it is removed or replaced", (t) => {
  const ppkeys = mkdtempSync(join(tmpdir(), "tend-trusted-keys-"));
  t.after(() => rmSync(ppkeys, { recursive: true, force: true }));
  const client = generateKeyPair();
  const other = generateKeyPair();
  const digest = keyDigest(client.publicKey);
  // Every file taken as settled (in real use, one changed in the last 2 s is read every time).
  const cache = new TrustedKeyCache(100, () => Date.now() + 10_000);
  assert.equal(cache.read(ppkeys, "root", digest), undefined);
  trustKey(ppkeys, "root", client.publicKey);
  const first = cache.read(ppkeys, "root", digest);
  assert.ok(first && sameKey(first, client.publicKey));
  assert.equal(cache.read(ppkeys, "root", digest), first);
  // Removed (tend key -r): no longer trusted.
  const file = trustedKeyFile(ppkeys, "root", digest);
  unlinkSync(file);
  assert.equal(cache.read(ppkeys, "root", digest), undefined);
  // Put back, then replaced by another key under the same name: not the client's key any more.
  trustKey(ppkeys, "root", client.publicKey);
  assert.ok(cache.read(ppkeys, "root", digest));
  unlinkSync(file);
  writeFileSync(file, publicKeyPem(other.publicKey));
  assert.equal(cache.read(ppkeys, "root", digest), undefined);
  // A link is read each time, never kept.
  unlinkSync(file);
  writeFileSync(join(ppkeys, "elsewhere.pub"), publicKeyPem(client.publicKey));
  symlinkSync(join(ppkeys, "elsewhere.pub"), file);
  const linked = cache.read(ppkeys, "root", digest);
  assert.ok(linked && sameKey(linked, client.publicKey));
  unlinkSync(join(ppkeys, "elsewhere.pub"));
  assert.equal(cache.read(ppkeys, "root", digest), undefined);
});

test("trusted keys: a key file changed in the last seconds is read every time", (t) => {
  const ppkeys = mkdtempSync(join(tmpdir(), "tend-trusted-keys-"));
  t.after(() => rmSync(ppkeys, { recursive: true, force: true }));
  const client = generateKeyPair();
  const digest = keyDigest(client.publicKey);
  const cache = new TrustedKeyCache();
  trustKey(ppkeys, "root", client.publicKey);
  const first = cache.read(ppkeys, "root", digest);
  assert.ok(first);
  assert.notEqual(cache.read(ppkeys, "root", digest), first);
});
