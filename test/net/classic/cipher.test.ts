/**
 * The classic protocol's cipher and key agreement pieces: Blowfish against
 * the published known-answer vectors (Eric Young's ecb set), its CBC mode
 * against OpenSSL's bf-cbc (node with the legacy provider, in a child
 * process), the pi-derived tables, MPI encoding and PKCS#1 v1.5 decryption.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { test } from "node:test";
import {
  Blowfish,
  blowfishCbcDecrypt,
  blowfishCbcEncrypt,
  piFractionWords,
} from "../../../src/net/classic/blowfish.js";
import { fromMpi, randomChallenge, rsaDecrypt, rsaEncrypt, toMpi } from "../../../src/net/classic/rsa.js";

test("the tables are pi's fractional hex digits", () => {
  const words = piFractionWords();
  assert.equal(words.length, 1042);
  assert.equal(words[0]?.toString(16), "243f6a88");
  assert.equal(words[1]?.toString(16), "85a308d3");
  assert.equal(words[17]?.toString(16), "8979fb1b"); // P18
  assert.equal(words[18]?.toString(16), "d1310ba6"); // S1[0]
  assert.equal(words[1041]?.toString(16), "3ac372e6"); // S4[255]
});

test("Blowfish ECB known answers", () => {
  const vectors: [string, string, string][] = [
    ["0000000000000000", "0000000000000000", "4ef997456198dd78"],
    ["ffffffffffffffff", "ffffffffffffffff", "51866fd5b85ecb8a"],
    ["3000000000000000", "1000000000000001", "7d856f9a613063f2"],
    ["0123456789abcdef", "1111111111111111", "61f9c3802281b096"],
    ["fedcba9876543210", "0123456789abcdef", "0aceab0fc6a0a28d"],
  ];
  for (const [key, plain, cipher] of vectors) {
    const bf = new Blowfish(Buffer.from(key, "hex"));
    const block = new Uint32Array([
      Buffer.from(plain, "hex").readUInt32BE(0),
      Buffer.from(plain, "hex").readUInt32BE(4),
    ]);
    bf.encryptWords(block);
    const out = Buffer.alloc(8);
    out.writeUInt32BE(block[0] as number, 0);
    out.writeUInt32BE(block[1] as number, 4);
    assert.equal(out.toString("hex"), cipher, `key ${key}`);
    bf.decryptWords(block);
    out.writeUInt32BE(block[0] as number, 0);
    out.writeUInt32BE(block[1] as number, 4);
    assert.equal(out.toString("hex"), plain);
  }
});

test("CBC with padding round-trips and rejects bad input", () => {
  const key = randomBytes(16);
  for (const size of [0, 1, 7, 8, 9, 4064]) {
    const plain = randomBytes(size);
    const sealed = blowfishCbcEncrypt(key, plain);
    assert.equal(sealed.length, (Math.floor(size / 8) + 1) * 8);
    assert.deepEqual(blowfishCbcDecrypt(key, sealed), plain);
  }
  assert.equal(blowfishCbcDecrypt(key, Buffer.alloc(0)), undefined);
  assert.equal(blowfishCbcDecrypt(key, Buffer.alloc(12)), undefined);
});

test("CBC matches OpenSSL's bf-cbc (legacy provider)", (t) => {
  const key = Buffer.from("0123456789abcdeffedcba9876543210", "hex");
  const plain = "SYNCH 1700000000 STAT /var/cfengine/masterfiles/promises.cf";
  const script = `const c=require("crypto");const x=c.createCipheriv("bf-cbc",Buffer.from("${key.toString("hex")}","hex"),Buffer.from([1,2,3,4,5,6,7,8]));process.stdout.write(Buffer.concat([x.update(${JSON.stringify(plain)}),x.final()]).toString("hex"))`;
  const run = spawnSync(process.execPath, ["--openssl-legacy-provider", "-e", script], { encoding: "utf8" });
  if (run.status !== 0)
    return t.skip(`OpenSSL's legacy provider is not available here: ${run.stderr.trim()}`);
  assert.equal(blowfishCbcEncrypt(key, Buffer.from(plain)).toString("hex"), run.stdout);
});

test("MPI encoding as BN_bn2mpi", () => {
  assert.deepEqual(toMpi(Buffer.from([0x01, 0x00, 0x01])), Buffer.from([0, 0, 0, 3, 1, 0, 1]));
  assert.deepEqual(toMpi(Buffer.from([0x00, 0x80])), Buffer.from([0, 0, 0, 2, 0, 0x80]));
  assert.deepEqual(fromMpi(Buffer.from([0, 0, 0, 2, 0, 0x80])), Buffer.from([0x80]));
  assert.equal(fromMpi(Buffer.from([0, 0, 0, 5, 1])), undefined);
  const challenge = randomChallenge(256);
  assert.equal(challenge.length, 37); // top bit set: a zero byte before it
});

test("PKCS#1 v1.5 decryption with the private key", () => {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const secret = randomBytes(16);
  assert.deepEqual(rsaDecrypt(privateKey, rsaEncrypt(publicKey, secret)), secret);
  assert.equal(rsaDecrypt(privateKey, randomBytes(256).fill(0, 0, 1)), undefined);
});
