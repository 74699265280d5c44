/**
 * tend's client against a real cf-serverd 3.21 in a scratch namespace.
 * Skips (with the reason) when cf-serverd or namespaces are missing.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { once } from "node:events";
import tls from "node:tls";
import { X509Certificate } from "node:crypto";
import { selfSignedCertificate } from "../../src/net/certificate.js";
import { ServerConnection } from "../../src/net/client.js";
import { NetError } from "../../src/net/errors.js";
import { CF_FAILEDSTR } from "../../src/net/frame.js";
import { isTrusted, keyDigest, privateKeyPem, readTrustedKey } from "../../src/net/keys.js";
import { scratchDirectory } from "../scratch.js";
import {
  freePort,
  loopbackAddress,
  type RunningServer,
  type ServerPolicyOptions,
  scratchHost,
  serverPolicy,
  skipReason,
  startCfServerd,
} from "./hosts.js";

const reason = skipReason("cf-serverd", "cf-promises");

function fixtureTree(): string {
  const root = scratchDirectory("tend-net-tree-");
  chmodSync(root, 0o755);
  mkdirSync(join(root, "pub", "sub"), { recursive: true });
  mkdirSync(join(root, "secret"));
  const big = Buffer.alloc(100_000);
  for (let i = 0; i < big.length; i++) big[i] = (i * 7919 + (i >> 8)) & 0xff;
  writeFileSync(join(root, "pub", "big.bin"), big);
  writeFileSync(join(root, "pub", "hello.txt"), "hello world\n");
  writeFileSync(join(root, "pub", "tiny"), "t");
  writeFileSync(join(root, "pub", "sub", "a"), "a\n");
  for (let i = 0; i < 400; i++)
    writeFileSync(join(root, "pub", "sub", `file-with-a-longish-name-${i}`), String(i));
  symlinkSync("hello.txt", join(root, "pub", "link"));
  symlinkSync("nowhere", join(root, "pub", "dead"));
  writeFileSync(join(root, "secret", "key"), "nope\n");
  return root;
}

async function startServer(t: TestContext, tree: string, extra: Partial<ServerPolicyOptions> = {}) {
  const server = scratchHost("tend-net-srv-");
  const client = scratchHost("tend-net-cli-");
  const address = loopbackAddress();
  const port = await freePort(address);
  server.trust(client);
  const running = await startCfServerd(t, server, {
    address,
    port,
    policy: serverPolicy({ address, port, admit: [`${tree}/pub`], deny: [`${tree}/secret`], ...extra }),
  });
  return { server, client, running };
}

function connect(client: ReturnType<typeof scratchHost>, running: RunningServer, trustServer = false) {
  return ServerConnection.connect({
    host: running.address,
    port: running.port,
    keys: client.keys,
    ppkeys: client.ppkeys,
    user: "root",
    trustServer,
    timeoutMs: 20_000,
  });
}

test("tend's client against cf-serverd 3.21: stat, get, opendir, md5, version, refusals", {
  skip: reason,
}, async (t) => {
  const tree = fixtureTree();
  const { server, client, running } = await startServer(t, tree);
  client.trust(server);
  const conn = await connect(client, running);
  t.after(() => conn.close());
  assert.equal(conn.serverDigest, server.digest);
  assert.equal(conn.serverVersion, "3.21.0");
  assert.equal(conn.protocol, 3);

  await t.test(
    "the server's certificate is built as ours is (v1, serial 0, CN=a as UTF8String, sha384)",
    async () => {
      const socket = tls.connect({
        host: running.address,
        port: running.port,
        key: privateKeyPem(client.keys),
        cert: selfSignedCertificate(client.keys),
        rejectUnauthorized: false,
        checkServerIdentity: () => undefined,
      });
      await once(socket, "secureConnect");
      const theirs = socket.getPeerX509Certificate();
      socket.destroy();
      assert.ok(theirs);
      const ours = new X509Certificate(selfSignedCertificate(server.keys));
      assert.equal(theirs.subject, ours.subject);
      assert.equal(theirs.issuer, ours.issuer);
      assert.equal(theirs.serialNumber, ours.serialNumber);
      const name = Buffer.from("300c310a300806035504030c0161", "hex");
      assert.ok(theirs.raw.includes(name) && ours.raw.includes(name));
      // Same structure up to the validity: header, serial, algorithm, issuer.
      const prefix = (raw: Buffer) => raw.subarray(8, 8 + 3 + 15 + 14).toString("hex");
      assert.equal(prefix(theirs.raw), prefix(ours.raw));
      assert.equal(theirs.raw.length, ours.raw.length);
    },
  );

  await t.test("version", async () => {
    assert.equal(await conn.version(), "3.21.0");
  });

  await t.test("stat of a file, a directory and a link", async () => {
    const st = await conn.stat(`${tree}/pub/hello.txt`);
    assert.equal(st.type, "file");
    assert.equal(st.size, 12);
    assert.equal(st.mode & 0o777, 0o644);
    assert.equal(st.uid, 0);
    assert.equal(st.linkTarget, undefined);
    const dir = await conn.stat(`${tree}/pub/sub`);
    assert.equal(dir.type, "dir");
    // 3.21 resolves the request path (realpath) before it stats: a link
    // to a file is reported as that file; a dead link as the link itself.
    const link = await conn.stat(`${tree}/pub/link`);
    assert.equal(link.type, "file");
    assert.equal(link.size, 12);
    assert.equal(link.linkTarget, undefined);
    const dead = await conn.stat(`${tree}/pub/dead`);
    assert.equal(dead.type, "link");
    assert.equal(dead.linkTarget, "nowhere");
  });

  await t.test("get is byte-identical (small, one byte, 100 kB)", async () => {
    for (const name of ["hello.txt", "tiny", "big.bin"]) {
      const path = `${tree}/pub/${name}`;
      const st = await conn.stat(path);
      const got = await conn.get(path, st.size);
      assert.ok(got?.equals(readFileSync(path)), name);
    }
    const chunks: Buffer[] = [];
    const path = `${tree}/pub/big.bin`;
    assert.equal(await conn.get(path, 100_000, (c) => chunks.push(c)), undefined);
    assert.ok(Buffer.concat(chunks).equals(readFileSync(path)));
  });

  await t.test("opendir over several frames", async () => {
    const names = await conn.opendir(`${tree}/pub/sub`);
    assert.equal(names.length, 403);
    assert.ok(names.includes(".") && names.includes("..") && names.includes("a"));
    assert.ok(names.includes("file-with-a-longish-name-399"));
  });

  await t.test("md5: same and different", async () => {
    const path = `${tree}/pub/hello.txt`;
    const same = createHash("md5").update(readFileSync(path)).digest();
    assert.equal(await conn.md5Differs(path, same), false);
    assert.equal(await conn.md5Differs(path, createHash("md5").update("other").digest()), true);
  });

  await t.test("a denied path is refused with 3.21's text, and the connection goes on", async () => {
    for (const op of [
      () => conn.stat(`${tree}/secret/key`),
      () => conn.get(`${tree}/secret/key`, 5),
      () => conn.opendir(`${tree}/secret`),
      () => conn.md5Differs(`${tree}/secret/key`, Buffer.alloc(16)),
      () => conn.stat(`${tree}/pub/missing`),
    ]) {
      await assert.rejects(op(), (error: unknown) => {
        assert.ok(error instanceof NetError);
        assert.equal(error.kind, "refused");
        assert.equal(error.message, CF_FAILEDSTR);
        return true;
      });
    }
    assert.equal(await conn.version(), "3.21.0");
  });

  await t.test("a bogus command: BAD: Request denied, then the server closes", async () => {
    assert.equal(await conn.raw("FROBNICATE now"), "BAD: Request denied");
    await assert.rejects(conn.version(), (error: unknown) => error instanceof NetError);
  });
});

test("TLS: 1.3 by default; a cipher list without TLS 1.3 suites gets TLS 1.2 with that cipher", {
  skip: reason,
}, async (t) => {
  const tree = fixtureTree();
  const { server, client, running } = await startServer(t, tree);
  client.trust(server);
  const plain = await connect(client, running);
  assert.equal(plain.tlsVersion, "TLSv1.3");
  plain.close();
  const old = await ServerConnection.connect({
    host: running.address,
    port: running.port,
    keys: client.keys,
    ppkeys: client.ppkeys,
    user: "root",
    trustServer: false,
    ciphers: "AES256-SHA",
  });
  assert.equal(old.tlsVersion, "TLSv1.2");
  assert.equal(await old.version(), "3.21.0");
  old.close();
  await assert.rejects(
    ServerConnection.connect({
      host: running.address,
      port: running.port,
      keys: client.keys,
      ppkeys: client.ppkeys,
      user: "root",
      trustServer: false,
      ciphers: "ECDHE-RSA-AES128-GCM-SHA256",
    }),
    (error: unknown) => error instanceof NetError,
  );
});

test("an untrusted server key: refused without trustServer, saved with it", { skip: reason }, async (t) => {
  const tree = fixtureTree();
  const { server, client, running } = await startServer(t, tree);
  await assert.rejects(connect(client, running, false), (error: unknown) => {
    assert.ok(error instanceof NetError);
    assert.equal(error.kind, "untrusted");
    assert.equal(error.message, `TRUST FAILED, server presented untrusted key: ${server.digest}`);
    return true;
  });
  assert.equal(readTrustedKey(client.ppkeys, "root", server.digest), undefined);
  const conn = await connect(client, running, true);
  conn.close();
  const saved = readTrustedKey(client.ppkeys, "root", server.digest);
  assert.ok(saved);
  assert.equal(keyDigest(saved), server.digest);
  assert.ok(existsSync(join(client.ppkeys, `root-${server.digest}.pub`)));
  const again = await connect(client, running, false);
  assert.equal(await again.version(), "3.21.0");
  again.close();
});

test("trustkeysfrom: cf-serverd saves the client's key, and tend reads the file it wrote", {
  skip: reason,
}, async (t) => {
  const tree = fixtureTree();
  const server = scratchHost("tend-net-srv-");
  const client = scratchHost("tend-net-cli-");
  client.trust(server);
  const address = loopbackAddress();
  const port = await freePort(address);
  const running = await startCfServerd(t, server, {
    address,
    port,
    policy: serverPolicy({ address, port, admit: [`${tree}/pub`], trustKeysFrom: ["127.0.0.0/8"] }),
  });
  assert.equal(isTrusted(server.ppkeys, "root", client.keys.publicKey), false);
  const conn = await connect(client, running);
  assert.equal(await conn.version(), "3.21.0");
  conn.close();
  assert.ok(existsSync(join(server.ppkeys, `root-${client.digest}.pub`)));
  assert.ok(isTrusted(server.ppkeys, "root", client.keys.publicKey));
});

test("restrictKeys pins the server's key", { skip: reason }, async (t) => {
  const tree = fixtureTree();
  const { server, client, running } = await startServer(t, tree);
  client.trust(server);
  await assert.rejects(
    ServerConnection.connect({
      host: running.address,
      port: running.port,
      keys: client.keys,
      ppkeys: client.ppkeys,
      user: "root",
      trustServer: true,
      restrictKeys: ["MD5=00000000000000000000000000000000"],
    }),
    (error: unknown) =>
      error instanceof NetError && error.kind === "untrusted" && /not in allowed keys/.test(error.message),
  );
  const conn = await ServerConnection.connect({
    host: running.address,
    port: running.port,
    keys: client.keys,
    ppkeys: client.ppkeys,
    user: "root",
    trustServer: false,
    restrictKeys: [server.digest],
  });
  assert.equal(await conn.version(), "3.21.0");
  conn.close();
});

test("a client the server does not trust is hung up on during identification", {
  skip: reason,
}, async (t) => {
  const tree = fixtureTree();
  const { server, running } = await startServer(t, tree);
  const stranger = scratchHost("tend-net-stranger-");
  stranger.trust(server);
  await assert.rejects(connect(stranger, running), (error: unknown) => {
    assert.ok(error instanceof NetError);
    assert.match(error.message, /Connection was hung up during identification/);
    return true;
  });
});
