import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import * as der from "../../src/net/der.js";
import { NetError } from "../../src/net/errors.js";
import {
  encodeFrame,
  FrameReader,
  MAX_FRAME_PAYLOAD,
  parseHeader,
  serverFrame,
  serverFrames,
} from "../../src/net/frame.js";
import { classifyStart, parseIdentity, tlsServerOptions, tlsVersionName } from "../../src/net/server-side.js";
import { generateKeyPair } from "../../src/net/keys.js";
import { parseBanner, parseStatReply } from "../../src/net/client.js";

test("encodeFrame: 8-byte NUL-padded header and payload in one buffer", () => {
  const frame = encodeFrame("VERSION");
  assert.equal(frame.toString("latin1"), "t 7\0\0\0\0\0VERSION");
  assert.equal(encodeFrame("x", true).subarray(0, 8).toString("latin1"), "m 1\0\0\0\0\0");
  assert.equal(
    encodeFrame(Buffer.alloc(MAX_FRAME_PAYLOAD, 1)).subarray(0, 8).toString("latin1"),
    "t 4088\0\0",
  );
  assert.throws(() => encodeFrame(""), RangeError);
  assert.throws(() => encodeFrame(Buffer.alloc(MAX_FRAME_PAYLOAD + 1)), RangeError);
});

test("parseHeader accepts what 3.21 writes and refuses the rest", () => {
  assert.deepEqual(parseHeader(Buffer.from("t 59\0\0\0\0", "latin1")), { more: false, length: 59 });
  assert.deepEqual(parseHeader(Buffer.from("m 4088\0\0", "latin1")), { more: true, length: 4088 });
  for (const bad of [
    "x 5\0\0\0\0\0",
    "t 0\0\0\0\0\0",
    "t 4089\0\0",
    "t -1\0\0\0\0",
    "t\0\0\0\0\0\0\0",
    "t 5x\0\0\0\0",
    "CAUTH 1 ",
  ])
    assert.equal(typeof parseHeader(Buffer.from(bad, "latin1")), "string", bad);
});

test("FrameReader: frames split anywhere, lines, raw counts, peek", async () => {
  const stream = new PassThrough();
  const reader = new FrameReader(stream, { timeoutMs: 2000 });
  const bytes = Buffer.concat([
    Buffer.from("CFE_v3 cf-serverd 3.21.0\n", "latin1"),
    encodeFrame("OK: 3.21.0"),
    encodeFrame("a\0b\0", true),
    Buffer.from("RAWDATA"),
  ]);
  for (const b of bytes) stream.write(Buffer.from([b]));
  assert.equal(await reader.line(), "CFE_v3 cf-serverd 3.21.0");
  assert.equal((await reader.next()).payload.toString(), "OK: 3.21.0");
  const more = await reader.next();
  assert.equal(more.more, true);
  assert.equal((await reader.peek(3)).toString(), "RAW");
  assert.equal((await reader.raw(7)).toString(), "RAWDATA");
});

test("FrameReader: a malformed header is a protocol error, a silent peer a timeout, the end 'closed'", async () => {
  const a = new PassThrough();
  a.write("BOGUS!!!xxxx");
  await assert.rejects(
    new FrameReader(a).next(),
    (e: unknown) => e instanceof NetError && e.kind === "protocol",
  );
  const b = new PassThrough();
  await assert.rejects(
    new FrameReader(b).next(50),
    (e: unknown) => e instanceof NetError && e.kind === "timeout",
  );
  const c = new PassThrough();
  const reader = new FrameReader(c);
  const pending = reader.next();
  c.end(Buffer.from("t 10\0\0\0\0abc"));
  await assert.rejects(pending, (e: unknown) => e instanceof NetError && e.kind === "closed");
  const d = new PassThrough();
  d.write(`${"x".repeat(100)}`);
  await assert.rejects(
    new FrameReader(d).line(50),
    (e: unknown) => e instanceof NetError && e.kind === "protocol",
  );
});

test("FrameReader: a large raw read is streamed with backpressure", async () => {
  const stream = new PassThrough();
  const reader = new FrameReader(stream, { highWater: 1024 });
  const data = Buffer.alloc(1_000_000, 7);
  stream.write(data);
  let total = 0;
  await reader.rawStream(data.length, (chunk) => {
    total += chunk.length;
  });
  assert.equal(total, data.length);
});

test("the classic protocol is told from TLS by CAUTH at offset 8", () => {
  assert.equal(classifyStart(Buffer.from("t 120\0\0\0CAUTH", "latin1")), "classic");
  assert.equal(classifyStart(Buffer.from([0x16, 3, 1, 0, 200, 1, 0, 0, 196, 3, 3, 1, 2])), "tls");
  assert.equal(classifyStart(Buffer.from("short")), "classic");
});

test("banners, IDENTITY and STAT replies parse as 3.21 writes them", () => {
  assert.deepEqual(parseBanner("CFE_v3 cf-serverd 3.21.0"), { protocol: 3, version: "3.21.0" });
  assert.equal(parseBanner("HELLO"), undefined);
  assert.equal(parseIdentity("IDENTITY USERNAME=root"), "root");
  assert.equal(parseIdentity("IDENTITY FOO=bar USERNAME=alice"), "alice");
  assert.equal(parseIdentity("IDENTITY"), "");
  assert.deepEqual(parseIdentity("IDENTITY USERNAME=../etc"), {
    error: "Received invalid IDENTITY: USERNAME=../etc",
  });
  const st = parseStatReply("OK: 0 420 0 0 0 12 1700000000 1700000001 1700000002 0 1234 1 2049");
  assert.equal(st?.type, "file");
  assert.equal(st?.mode, 420);
  assert.equal(st?.size, 12);
  assert.equal(st?.dev, 2049);
  assert.equal(parseStatReply("OK: 9 420 0 0 0 12 1 1 1 0 1 1 1"), undefined);
  assert.equal(parseStatReply("OK: 0 420"), undefined);
});

test("DER: lengths, integers, OIDs, times", () => {
  assert.equal(der.integer(0).toString("hex"), "020100");
  assert.equal(der.integer(128).toString("hex"), "02020080");
  assert.equal(der.integer(65537).toString("hex"), "0203010001");
  assert.equal(der.objectIdentifier("1.2.840.113549.1.1.12").toString("hex"), "06092a864886f70d01010c");
  assert.equal(der.objectIdentifier("2.5.4.3").toString("hex"), "0603550403");
  assert.equal(der.tlv(0x04, Buffer.alloc(200)).subarray(0, 3).toString("hex"), "0481c8");
  assert.equal(der.tlv(0x04, Buffer.alloc(300)).subarray(0, 4).toString("hex"), "0482012c");
  assert.equal(der.time(new Date("2036-01-02T03:04:05Z")).toString("latin1"), "\x17\x0d360102030405Z");
  assert.equal(der.time(new Date("2050-01-02T03:04:05Z")).toString("latin1"), "\x18\x0f20500102030405Z");
  assert.equal(der.nullValue().toString("hex"), "0500");
});

test("tlsServerOptions: 3.21's ciphers and minimum version, allowciphers and allowtlsversion", () => {
  const pair = generateKeyPair();
  const plain = tlsServerOptions(pair);
  assert.equal(plain.ciphers, "AES256-GCM-SHA384:AES256-SHA:TLS_AES_256_GCM_SHA384");
  assert.equal(plain.minVersion, "TLSv1.1");
  assert.equal(plain.maxVersion, undefined);
  assert.equal(plain.requestCert, true);
  assert.equal(plain.rejectUnauthorized, false);
  const only12 = tlsServerOptions(pair, { ciphers: "AES256-SHA", minVersion: "1.2" });
  assert.equal(only12.maxVersion, "TLSv1.2");
  assert.equal(only12.minVersion, "TLSv1.2");
  assert.equal(tlsVersionName("1.0"), "TLSv1");
  assert.equal(tlsVersionName("TLSv1.3"), "TLSv1.3");
  assert.equal(tlsVersionName("2.0"), undefined);
});

test("parseHeader decides as the pattern 3.21's headers follow, on random headers", () => {
  const pattern = /^([tm]) +(\d{1,10})[\0 ]*$/;
  const alphabet = "tm 0123456789\0x-";
  let seed = 1;
  const next = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  for (let round = 0; round < 20000; round++) {
    const bytes = Buffer.alloc(8);
    for (let i = 0; i < 8; i++) bytes[i] = alphabet.charCodeAt(next(alphabet.length));
    if (round % 3 === 0) bytes.write(`${"tm"[next(2)]} ${next(5000)}`, "latin1");
    const match = pattern.exec(bytes.toString("latin1"));
    const length = match ? Number(match[2]) : 0;
    const parsed = parseHeader(bytes);
    if (match && length >= 1 && length <= MAX_FRAME_PAYLOAD)
      assert.deepEqual(parsed, { more: match[1] === "m", length }, JSON.stringify(bytes.toString("latin1")));
    else assert.equal(typeof parsed, "string", JSON.stringify(bytes.toString("latin1")));
  }
});

test("serverFrames: the frames encodeFrame makes, in one buffer, payloads cut to a frame", () => {
  assert.deepEqual(
    serverFrames(["OK: 0 420", Buffer.from("OK:")]),
    Buffer.concat([encodeFrame("OK: 0 420"), encodeFrame("OK:")]),
  );
  assert.deepEqual(serverFrames(["a", "b"], true), Buffer.concat([encodeFrame("a"), encodeFrame("b", true)]));
  assert.deepEqual(serverFrames(["é"]), encodeFrame(Buffer.from("é")));
  const long = serverFrames([Buffer.alloc(MAX_FRAME_PAYLOAD + 10, 0x61), "x".repeat(MAX_FRAME_PAYLOAD + 1)]);
  assert.equal(long.length, 2 * (MAX_FRAME_PAYLOAD + 8));
  assert.equal(long.subarray(0, 8).toString("latin1"), "t 4088\0\0");
  assert.throws(() => serverFrames([""]), RangeError);
});

test("serverFrame: the frame encodeFrame makes, for every width of the length", () => {
  for (const length of [1, 9, 10, 99, 100, 999, 1000, 4087, MAX_FRAME_PAYLOAD])
    for (const more of [false, true]) {
      const text = "ab".repeat(length).slice(0, length);
      assert.deepEqual(serverFrame(text, more), encodeFrame(text, more), `${length} ${more}`);
      assert.deepEqual(serverFrame(Buffer.from(text), more), encodeFrame(text, more), `${length} ${more}`);
    }
  assert.deepEqual(
    serverFrame("x".repeat(MAX_FRAME_PAYLOAD + 5)),
    encodeFrame("x".repeat(MAX_FRAME_PAYLOAD)),
  );
  // Cut at a whole character: 4087 bytes, not 4088.
  const cut = serverFrame(`a${"é".repeat(MAX_FRAME_PAYLOAD)}`);
  assert.equal(cut.subarray(0, 8).toString("latin1"), "t 4087\0\0");
  assert.equal(cut.length, 8 + 4087);
  assert.throws(() => serverFrame(""), RangeError);
  assert.throws(() => serverFrame(Buffer.alloc(0)), RangeError);
});
