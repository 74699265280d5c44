/**
 * Connection-level behaviour of tend serverd: trust, the classic protocol,
 * allowconnects/denyconnects/allowallconnects/maxconnections, bounds on
 * time and on malformed input, policy reload.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import tls from "node:tls";
import { selfSignedCertificate } from "../../../src/net/certificate.js";
import { keyDigest, privateKeyPem } from "../../../src/net/keys.js";
import { handPolicy, startTestServer, testKeys } from "./harness.js";

/** Resolves when the server closes the TCP connection. */
function closedBy(socket: net.Socket): Promise<void> {
  return new Promise((resolve) => {
    socket.on("error", () => {});
    socket.on("close", () => resolve());
    socket.resume();
  });
}

/** A TLS client done with the dialog by hand, to send what tend's client never would. */
async function rawClient(port: number): Promise<tls.TLSSocket> {
  const keys = testKeys(1);
  const socket = tls.connect({
    host: "127.0.0.1",
    port,
    key: privateKeyPem(keys),
    cert: selfSignedCertificate(keys),
    rejectUnauthorized: false,
    checkServerIdentity: () => undefined,
  });
  socket.on("error", () => {});
  await new Promise((resolve) => socket.once("secureConnect", resolve));
  let text = "";
  socket.on("data", (d: Buffer) => {
    text += d.toString("latin1");
  });
  socket.write("CFE_v3 cf-agent 3.21.0\nIDENTITY USERNAME=root\n");
  while (!text.includes("OK WELCOME")) await new Promise((r) => setTimeout(r, 10));
  return socket;
}

test("a client whose key is not trusted is dropped", async (t) => {
  const s = await startTestServer(t, handPolicy(), { trustClient: false });
  await assert.rejects(s.connect());
  await waitFor(() =>
    s.logs.some((l) => l.includes("TRUST FAILED, peer presented an untrusted key, dropping connection!")),
  );
  const digest = keyDigest(testKeys(1).publicKey);
  assert.equal(existsSync(join(s.workdir, "ppkeys", `root-${digest}.pub`)), false);
});

test("trustkeysfrom: an unknown key is trusted and saved (0600)", async (t) => {
  const s = await startTestServer(
    t,
    handPolicy({ control: { trustKeysFrom: ["127.0.0.0/8", "127.0.0.1"] } }),
    {
      trustClient: false,
    },
  );
  const c = await s.connect();
  assert.equal(await c.version(), "3.21.0");
  const file = join(s.workdir, "ppkeys", `root-${keyDigest(testKeys(1).publicKey)}.pub`);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.ok(s.logs.some((l) => l.includes("Trusting new key: MD5=")));
});

test("the classic protocol is refused", async (t) => {
  const s = await startTestServer(t, handPolicy());
  const socket = net.connect(s.port, "127.0.0.1");
  socket.write("k 29    CAUTH 127.0.0.1 x root 0");
  await closedBy(socket);
  await waitFor(() => s.logs.some((l) => l.includes("Connection is not using latest protocol, denying")));
});

test("a client sending a few bytes and waiting is dropped after the dialog limit", async (t) => {
  const s = await startTestServer(t, handPolicy(), { server: { limits: { dialogMs: 200 } } });
  const socket = net.connect(s.port, "127.0.0.1");
  socket.write("hello");
  await closedBy(socket);
  const silent = net.connect(s.port, "127.0.0.1");
  await closedBy(silent);
});

test("allowconnects and denyconnects", async (t) => {
  const s = await startTestServer(t, handPolicy({ control: { allowConnects: ["10.0.0.0/8"] } }));
  await assert.rejects(s.connect());
  assert.ok(
    s.logs.some((l) => l.includes("Remote host '127.0.0.1' not in allowconnects, denying connection")),
  );
  const d = await startTestServer(t, handPolicy({ control: { denyConnects: ["127.0.0.1"] } }));
  await assert.rejects(d.connect());
  assert.ok(d.logs.some((l) => l.includes("Remote host '127.0.0.1' is in denyconnects, denying connection")));
});

test("one connection per host unless allowallconnects", async (t) => {
  const s = await startTestServer(t, handPolicy());
  const first = await s.connect();
  await assert.rejects(s.connect());
  assert.ok(
    s.logs.some((l) => l.includes("is not in allowallconnects, denying second simultaneous connection")),
  );
  assert.equal(await first.version(), "3.21.0");
  const m = await startTestServer(t, handPolicy({ control: { allowAllConnects: ["127.0.0.1"] } }));
  const a = await m.connect();
  const b = await m.connect();
  assert.deepEqual([await a.version(), await b.version()], ["3.21.0", "3.21.0"]);
});

test("maxconnections: no more at once", async (t) => {
  const s = await startTestServer(
    t,
    handPolicy({ control: { allowAllConnects: ["127.0.0.1"], maxConnections: 2 } }),
  );
  const a = await s.connect();
  const b = await s.connect();
  await assert.rejects(s.connect());
  assert.ok(s.logs.some((l) => l.includes("Too many threads (3 > 2), dropping connection!")));
  b.close();
  await waitFor(() => s.server.connections === 1);
  const c = await s.connect();
  assert.deepEqual([await a.version(), await c.version()], ["3.21.0", "3.21.0"]);
});

test("a malformed frame closes that connection only", async (t) => {
  const s = await startTestServer(t, handPolicy({ control: { allowAllConnects: ["127.0.0.1"] } }));
  const good = await s.connect();
  for (const garbage of [
    "x 12    hello world!",
    "t 99999  ",
    "t 0     ",
    "t -5    abc",
    "\0\0\0\0\0\0\0\0\0",
  ]) {
    const bad = await rawClient(s.port);
    bad.write(garbage);
    await closedBy(bad);
    assert.equal(await good.version(), "3.21.0");
  }
});

test("an idle client is dropped after the idle limit", async (t) => {
  const s = await startTestServer(t, handPolicy(), { server: { limits: { idleMs: 300 } } });
  const socket = await rawClient(s.port);
  await closedBy(socket);
});

test("the policy is reloaded when a source changes, and kept when the new one fails", async (t) => {
  let next: "open" | "broken" = "open";
  const s = await startTestServer(
    t,
    (dir) => {
      mkdirSync(join(dir, "data"));
      writeFileSync(join(dir, "data", "f"), "f\n");
      writeFileSync(join(dir, "policy.cf"), "v1");
      return handPolicy({ sources: [join(dir, "policy.cf")] });
    },
    {
      server: {
        reloadCheckMs: 3_600_000,
        reload: async () => {
          if (next === "broken") return { ok: false, diagnostics: [] };
          const dir = s.dir;
          return {
            ok: true,
            diagnostics: [],
            policy: handPolicy({
              acl: [{ path: `${join(dir, "data")}/` }],
              sources: [join(dir, "policy.cf")],
            }),
          };
        },
      },
    },
  );
  assert.equal(await s.server.reload(), false, "nothing changed yet");
  writeFileSync(join(s.dir, "policy.cf"), "v2 (longer)");
  assert.equal(await s.server.reload(), true);
  assert.ok(s.logs.some((l) => l.includes("Rereading policy file")));
  const c = await s.connect();
  assert.equal((await c.stat(join(s.dir, "data", "f"))).size, 2);
  c.close();
  next = "broken";
  writeFileSync(join(s.dir, "policy.cf"), "v3 (broken!)");
  assert.equal(await s.server.reload(), false);
  assert.ok(s.logs.some((l) => l.includes("File changes contain errors -- ignoring")));
  await waitFor(() => s.server.connections === 0);
  const d = await s.connect();
  assert.equal((await d.stat(join(s.dir, "data", "f"))).size, 2);
});

test("close() ends every connection", async (t) => {
  const s = await startTestServer(t, handPolicy());
  const socket = await rawClient(s.port);
  const closed = closedBy(socket);
  await s.server.close();
  await closed;
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(condition(), "condition never held");
}

test("allowciphers OpenSSL refuses: a start-up error, not a crash", async (t) => {
  await assert.rejects(
    startTestServer(t, handPolicy({ control: { allowCiphers: "NO-SUCH-CIPHER" } })),
    (error: Error) =>
      error.name === "ServerStartError" &&
      /No valid ciphers in the cipher list: NO-SUCH-CIPHER/.test(error.message),
  );
});
