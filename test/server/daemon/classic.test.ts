/**
 * The classic protocol (version 1) between tend's client (src/net/classic/
 * client.ts) and tend serverd (src/server/daemon/classic.ts): refused
 * unless the peer is in allowlegacyconnects; the key dialogue with trust
 * as for TLS; STAT, GET, OPENDIR and MD5 plain and encrypted (SSYNCH,
 * SGET, SOPENDIR, SMD5 under Blowfish); refusals of paths outside the ACL.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { ServerConnection } from "../../../src/net/client.js";
import { connectClassic } from "../../../src/net/classic/client.js";
import { isNetError } from "../../../src/net/errors.js";
import { handPolicy, startTestServer, type TestServer } from "./harness.js";

const legacy = (dir: string) =>
  handPolicy({
    acl: [{ path: `${join(dir, "data")}/` }],
    control: { allowLegacyConnects: ["127.0.0.1"] },
  });

function tree(dir: string): string {
  const data = join(dir, "data");
  mkdirSync(join(data, "sub"), { recursive: true });
  mkdirSync(join(dir, "secret"));
  writeFileSync(join(data, "hello.txt"), "hello world\n");
  writeFileSync(join(data, "empty"), "");
  // Several SGET blocks (4064 bytes each) and a GET stream of 2048-byte ones.
  writeFileSync(join(data, "big"), Buffer.from(Array.from({ length: 10_000 }, (_, i) => i % 251)));
  writeFileSync(join(dir, "secret", "key"), "secret\n");
  return data;
}

function classic(s: TestServer, encrypt: boolean, trustServer = true): Promise<ServerConnection> {
  return connectClassic({
    host: "127.0.0.1",
    port: s.port,
    keys: s.clientKeys,
    ppkeys: s.clientPpkeys,
    user: "root",
    trustServer,
    timeoutMs: 10_000,
    classic: true,
    encrypt,
  });
}

async function refused(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isNetError(error)) return error.message;
    throw error;
  }
  return assert.fail("expected a refusal");
}

test("classic is refused to hosts not in allowlegacyconnects", async (t) => {
  const s = await startTestServer(t, (dir) => handPolicy({ acl: [{ path: `${join(dir, "data")}/` }] }));
  tree(s.dir);
  await refused(classic(s, false));
  assert.ok(s.logs.some((l) => /Connection is not using latest protocol, denying/.test(l)));
});

for (const encrypt of [false, true]) {
  test(`classic ${encrypt ? "encrypted" : "plain"}: stat, get, opendir, md5, refusals`, async (t) => {
    const s = await startTestServer(t, legacy);
    const data = tree(s.dir);
    const c = await classic(s, encrypt);
    t.after(() => c.close());
    const hello = await c.stat(join(data, "hello.txt"));
    assert.equal(hello.type, "file");
    assert.equal(hello.size, 12);
    assert.equal((await c.get(join(data, "hello.txt"), 12))?.toString(), "hello world\n");
    const big = await c.get(join(data, "big"), 10_000);
    assert.equal(big?.length, 10_000);
    assert.equal(big?.[9999], 9999 % 251);
    assert.deepEqual((await c.get(join(data, "empty"), 0))?.length, 0);
    const names = (await c.opendir(data)).sort();
    assert.deepEqual(names, [".", "..", "big", "empty", "hello.txt", "sub"]);
    const md5 = createHash("md5").update("hello world\n").digest();
    assert.equal(await c.md5Differs(join(data, "hello.txt"), md5), false);
    assert.equal(await c.md5Differs(join(data, "hello.txt"), Buffer.alloc(16)), true);
    assert.match(await refused(c.stat(join(s.dir, "secret", "key"))), /^BAD: /);
    assert.match(await refused(c.get(join(s.dir, "secret", "key"), 7)), /^BAD: /);
  });
}

test("classic: an untrusted client key is refused; an unknown server key needs trust", async (t) => {
  const s = await startTestServer(t, legacy, { trustClient: false });
  tree(s.dir);
  assert.match(await refused(classic(s, false)), /key could not be accepted on trust/);
  const t2 = await startTestServer(t, legacy);
  tree(t2.dir);
  assert.match(await refused(classic(t2, false, false)), /TRUST FAILED/);
});
