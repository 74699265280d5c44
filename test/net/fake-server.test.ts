/**
 * The client against a scripted server built from server-side.ts: the
 * replies 3.21 gives that a live server rarely shows (GET's raw refusals,
 * a file changed while copying), malformed replies and silence.
 */
import assert from "node:assert/strict";
import { createServer as createTcpServer } from "node:net";
import { test } from "node:test";
import tls from "node:tls";
import { ServerConnection } from "../../src/net/client.js";
import { NetError } from "../../src/net/errors.js";
import { CF_FAILEDSTR, CFD_TERMINATOR, encodeFrame, type FrameReader } from "../../src/net/frame.js";
import { generateKeyPair, isTrusted, keyDigest, trustKey } from "../../src/net/keys.js";
import {
  classifyStart,
  peekConnectionStart,
  type PeerIdentity,
  sendWelcome,
  serverDialog,
  tlsServerOptions,
} from "../../src/net/server-side.js";
import { scratchDirectory } from "../scratch.js";

const serverKeys = generateKeyPair();
const clientKeys = generateKeyPair();

type Handler = (request: Buffer, socket: tls.TLSSocket, peer: PeerIdentity) => Promise<void> | void;

async function fakeServer(
  t: { after: (fn: () => void) => void },
  handle: Handler,
  opts: { welcome?: boolean } = {},
) {
  const server = tls.createServer(tlsServerOptions(serverKeys), async (socket) => {
    socket.on("error", () => undefined);
    try {
      const peer = await serverDialog(socket, { version: "3.21.0", timeoutMs: 5000 });
      if (opts.welcome === false) {
        socket.destroy();
        return;
      }
      await sendWelcome(socket, peer);
      const reader: FrameReader = peer.reader;
      for (;;) {
        const frame = await reader.next(5000);
        await handle(frame.payload, socket, peer);
      }
    } catch {
      socket.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => server.close());
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const ppkeys = `${scratchDirectory("tend-net-fake-")}/ppkeys`;
  trustKey(ppkeys, "root", serverKeys.publicKey);
  const connect = (timeoutMs = 5000) =>
    ServerConnection.connect({
      host: "127.0.0.1",
      port,
      keys: clientKeys,
      ppkeys,
      user: "root",
      trustServer: false,
      timeoutMs,
    });
  return { port, connect };
}

function pad(text: string, size: number): Buffer {
  const out = Buffer.alloc(size);
  out.write(text, "latin1");
  return out;
}

test("the server side: dialog gives the client's user, key and protocol", async (t) => {
  let seen: PeerIdentity | undefined;
  const { connect } = await fakeServer(t, (request, socket, peer) => {
    seen = peer;
    if (request.toString() === "VERSION") socket.write(encodeFrame("OK: 3.21.0"));
  });
  const conn = await connect();
  t.after(() => conn.close());
  assert.equal(await conn.version(), "3.21.0");
  assert.equal(conn.serverDigest, keyDigest(serverKeys.publicKey));
  assert.ok(seen);
  assert.equal(seen.user, "root");
  assert.equal(seen.digest, keyDigest(clientKeys.publicKey));
  assert.equal(seen.protocol, 3);
  assert.equal(seen.ip, "127.0.0.1");
  assert.equal(seen.clientBanner, "CFE_v3 cf-agent 3.21.0");
  const ppkeys = `${scratchDirectory("tend-net-fake2-")}/ppkeys`;
  assert.equal(isTrusted(ppkeys, "root", seen.publicKey), false);
  trustKey(ppkeys, "root", seen.publicKey);
  assert.ok(isTrusted(ppkeys, "root", seen.publicKey));
});

test("GET refusals as 3.21 sends them: framed, framed + raw block, raw block; the connection goes on", async (t) => {
  const data = Buffer.alloc(5000, 0x61);
  const { connect } = await fakeServer(t, (request, socket) => {
    const text = request.toString("latin1");
    if (text === "VERSION") socket.write(encodeFrame("OK: 3.21.0"));
    else if (text === "GET 2048 /denied") socket.write(encodeFrame(CF_FAILEDSTR));
    else if (text === "GET 2048 /owner") {
      socket.write(encodeFrame(CF_FAILEDSTR));
      socket.write(pad(CF_FAILEDSTR, 2048));
    } else if (text === "GET 2048 /unreadable") socket.write(pad(CF_FAILEDSTR, 2048));
    else if (text === "GET 2048 /changing") {
      socket.write(data.subarray(0, 2048));
      socket.write(pad("BAD: File changed while copying: /changing", 2048));
    } else if (text === "GET 2048 /ok") {
      for (let i = 0; i < data.length; i += 2048) socket.write(data.subarray(i, i + 2048));
    }
  });
  const conn = await connect();
  t.after(() => conn.close());
  for (const path of ["/denied", "/owner", "/unreadable", "/owner"]) {
    await assert.rejects(conn.get(path, 5000), (error: unknown) => {
      assert.ok(error instanceof NetError, String(error));
      assert.equal(error.kind, "refused");
      assert.equal(error.message, CF_FAILEDSTR);
      return true;
    });
    assert.equal(await conn.version(), "3.21.0", `after ${path}`);
  }
  await assert.rejects(conn.get("/changing", 5000), (error: unknown) => {
    assert.ok(error instanceof NetError);
    assert.equal(error.message, "BAD: File changed while copying: /changing");
    return true;
  });
  assert.equal(await conn.version(), "3.21.0");
  assert.ok((await conn.get("/ok", 5000))?.equals(data));
});

test("malformed replies break the connection with a protocol error", async (t) => {
  const { connect } = await fakeServer(t, (request, socket) => {
    const text = request.toString("latin1");
    if (text === "VERSION") socket.write("x 12345\0garbage");
    else if (text.startsWith("SYNCH")) socket.write(encodeFrame("OK: 1 2 3"));
    else if (text.startsWith("OPENDIR")) socket.write(encodeFrame("a\0b\0"));
  });
  const a = await connect();
  await assert.rejects(a.version(), (e: unknown) => e instanceof NetError && e.kind === "protocol");
  await assert.rejects(a.version(), (e: unknown) => e instanceof NetError && e.kind === "closed");
  const b = await connect();
  await assert.rejects(b.stat("/x"), (e: unknown) => e instanceof NetError && e.kind === "protocol");
  const c = await connect();
  await assert.rejects(c.opendir("/x"), (e: unknown) => e instanceof NetError && e.kind === "protocol");
});

test("a silent server times out; a server that hangs up after IDENTITY is reported", async (t) => {
  const { connect } = await fakeServer(t, () => undefined);
  const conn = await connect(300);
  await assert.rejects(conn.version(), (e: unknown) => e instanceof NetError && e.kind === "timeout");
  const hangs = await fakeServer(t, () => undefined, { welcome: false });
  await assert.rejects(hangs.connect(), (e: unknown) => {
    assert.ok(e instanceof NetError);
    assert.match(e.message, /^Connection was hung up during identification! \(3\)/);
    return true;
  });
  // TCP accepted, TLS never answered.
  const mute = createTcpServer(() => undefined);
  await new Promise<void>((resolve) => mute.listen(0, "127.0.0.1", resolve));
  t.after(() => mute.close());
  const address = mute.address();
  await assert.rejects(
    ServerConnection.connect({
      host: "127.0.0.1",
      port: typeof address === "object" && address ? address.port : 0,
      keys: clientKeys,
      ppkeys: scratchDirectory("tend-net-fake3-"),
      trustServer: true,
      timeoutMs: 300,
    }),
    (e: unknown) => e instanceof NetError && e.kind === "timeout",
  );
});

test("opendir over several frames; exec lines and exit code", async (t) => {
  const { connect } = await fakeServer(t, (request, socket) => {
    const text = request.toString("latin1");
    if (text === "OPENDIR /d") {
      socket.write(encodeFrame("a\0b\0\0", true));
      socket.write(encodeFrame(`c\0${CFD_TERMINATOR}\0\0`));
    } else if (text === "EXEC -Dx,y -b main") {
      // the client sends its classes and the terminator; answer after those
    } else if (text === CFD_TERMINATOR) {
      socket.write(encodeFrame("cf-serverd executing cfruncommand: /bin/true"));
      socket.write(encodeFrame("> hello"));
      socket.write(encodeFrame("(exit code: 3)"));
      socket.write(encodeFrame(CFD_TERMINATOR));
    }
  });
  const conn = await connect();
  t.after(() => conn.close());
  assert.deepEqual(await conn.opendir("/d"), ["a", "b", "c"]);
  const lines: string[] = [];
  const code = await conn.exec({ defineClasses: ["x", "y"], bundles: ["main"], sendClasses: ["z"] }, (l) =>
    lines.push(l),
  );
  assert.equal(code, 3);
  assert.deepEqual(lines, ["cf-serverd executing cfruncommand: /bin/true", "> hello", "(exit code: 3)"]);
});

test("peekConnectionStart tells CAUTH from TLS and leaves the bytes for TLS", async (t) => {
  const results: string[] = [];
  const server = createTcpServer(async (socket) => {
    const start = await peekConnectionStart(socket, 2000).catch((e: NetError) => e.kind);
    results.push(start);
    if (start === "tls") {
      const secure = new tls.TLSSocket(socket, { isServer: true, ...tlsServerOptions(serverKeys) });
      secure.on("error", () => undefined);
      try {
        const peer = await serverDialog(secure, { version: "3.21.0", timeoutMs: 2000 });
        await sendWelcome(secure, peer);
        const frame = await peer.reader.next();
        if (frame.payload.toString() === "VERSION") secure.write(encodeFrame("OK: 3.21.0"));
      } catch {
        secure.destroy();
      }
    } else socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => server.close());
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const ppkeys = `${scratchDirectory("tend-net-peek-")}/ppkeys`;
  const conn = await ServerConnection.connect({
    host: "127.0.0.1",
    port,
    keys: clientKeys,
    ppkeys,
    user: "root",
    trustServer: true,
    timeoutMs: 3000,
  });
  assert.equal(await conn.version(), "3.21.0");
  conn.close();
  const { Socket } = await import("node:net");
  const classic = new Socket();
  await new Promise<void>((resolve) => classic.connect(port, "127.0.0.1", resolve));
  classic.write("t 100\0\0\0CAUTH 0 0 root");
  await new Promise((resolve) => classic.on("close", resolve));
  assert.deepEqual(results, ["tls", "classic"]);
  assert.equal(classifyStart(Buffer.from("t 100\0\0\0CAUTH", "latin1")), "classic");
});
