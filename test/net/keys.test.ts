import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { createHash, X509Certificate } from "node:crypto";
import { readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { selfSignedCertificate, selfSignedCertificateDer } from "../../src/net/certificate.js";
import {
  generateKeyPair,
  isTrusted,
  keyDigest,
  listTrustedKeys,
  parsePrivateKey,
  parsePublicKey,
  readKeyPair,
  readTrustedKey,
  trustedKeyFile,
  trustKey,
  writeKeyPair,
} from "../../src/net/keys.js";
import { scratchDirectory } from "../scratch.js";
import { cfengineTool, runInHost, skipReason } from "./hosts.js";

const pair = generateKeyPair();

test("keys are written as cf-key writes them: PKCS#1 PEM, 0600 files in a 0700 ppkeys", () => {
  const dir = scratchDirectory("tend-net-keys-");
  const ppkeys = join(dir, "ppkeys");
  writeKeyPair(ppkeys, pair);
  assert.equal(statSync(ppkeys).mode & 0o777, 0o700);
  const priv = readFileSync(join(ppkeys, "localhost.priv"), "utf8");
  const pub = readFileSync(join(ppkeys, "localhost.pub"), "utf8");
  assert.match(priv, /^-----BEGIN RSA PRIVATE KEY-----\n/);
  assert.match(pub, /^-----BEGIN RSA PUBLIC KEY-----\n/);
  assert.doesNotMatch(priv, /ENCRYPTED/);
  assert.equal(statSync(join(ppkeys, "localhost.priv")).mode & 0o777, 0o600);
  assert.equal(statSync(join(ppkeys, "localhost.pub")).mode & 0o777, 0o600);
  const back = readKeyPair(ppkeys);
  assert.ok(back);
  assert.equal(keyDigest(back.publicKey), keyDigest(pair.publicKey));
  assert.equal(keyDigest(back.privateKey), keyDigest(pair.publicKey));
  assert.equal(readKeyPair(join(dir, "nothing")), undefined);
});

test("the digest is MD5 over the modulus and exponent bytes", () => {
  const jwk = pair.publicKey.export({ format: "jwk" });
  const n = Buffer.from(jwk.n as string, "base64url");
  const e = Buffer.from(jwk.e as string, "base64url");
  assert.equal(keyDigest(pair.publicKey), `MD5=${createHash("md5").update(n).update(e).digest("hex")}`);
  assert.match(keyDigest(pair.publicKey), /^MD5=[0-9a-f]{32}$/);
});

test("a private key encrypted with CFEngine's legacy passphrase is read", () => {
  const pem = pair.privateKey.export({
    type: "pkcs1",
    format: "pem",
    cipher: "des-ede3-cbc",
    passphrase: "Cfengine passphrase",
  }) as string;
  assert.match(pem, /ENCRYPTED/);
  assert.equal(keyDigest(parsePrivateKey(pem)), keyDigest(pair.publicKey));
});

test("public keys: PKCS#1 and SPKI accepted, other text refused", () => {
  const spki = pair.publicKey.export({ type: "spki", format: "pem" }) as string;
  assert.equal(keyDigest(parsePublicKey(spki)), keyDigest(pair.publicKey));
  assert.throws(() => parsePublicKey("hello"));
  assert.throws(() => parsePublicKey(pair.privateKey.export({ type: "pkcs1", format: "pem" }) as string));
});

test("trusted keys: <user>-MD5=<hex>.pub, 0600, not rewritten; the old <user>-<ip>.pub is found and renamed", () => {
  const ppkeys = join(scratchDirectory("tend-net-trust-"), "ppkeys");
  const other = generateKeyPair();
  const digest = keyDigest(other.publicKey);
  assert.equal(readTrustedKey(ppkeys, "root", digest), undefined);
  assert.equal(isTrusted(ppkeys, "root", other.publicKey), false);
  const file = trustKey(ppkeys, "root", other.publicKey);
  assert.equal(file, trustedKeyFile(ppkeys, "root", digest));
  assert.equal(file, join(ppkeys, `root-${digest}.pub`));
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.match(readFileSync(file, "utf8"), /^-----BEGIN RSA PUBLIC KEY-----/);
  assert.ok(isTrusted(ppkeys, "root", other.publicKey));
  assert.equal(isTrusted(ppkeys, "alice", other.publicKey), false);
  assert.deepEqual(
    listTrustedKeys(ppkeys).map((k) => [k.user, k.id]),
    [["root", digest]],
  );
  // A file under another key's name is not trusted.
  const third = generateKeyPair();
  writeFileSync(trustedKeyFile(ppkeys, "root", keyDigest(third.publicKey)), readFileSync(file));
  assert.equal(isTrusted(ppkeys, "root", third.publicKey), false);
  // Old style.
  renameSync(file, join(ppkeys, "root-127.0.0.9.pub"));
  assert.equal(readTrustedKey(ppkeys, "root", digest), undefined);
  assert.ok(readTrustedKey(ppkeys, "root", digest, "127.0.0.9"));
  assert.ok(readTrustedKey(ppkeys, "root", digest), "renamed to the new name");
});

test("the certificate is 3.21's: v1, serial 0, CN=a, 10 years, sha384, our key", () => {
  const now = new Date("2026-11-27T03:00:00Z");
  const cert = new X509Certificate(selfSignedCertificate(pair, now));
  assert.equal(cert.subject, "CN=a");
  assert.equal(cert.issuer, "CN=a");
  assert.match(cert.serialNumber, /^0+$/);
  assert.equal(new Date(cert.validFrom).toISOString(), "2026-11-27T03:00:00.000Z");
  assert.equal(new Date(cert.validTo).toISOString(), "2036-11-24T03:00:00.000Z");
  assert.ok(cert.verify(pair.publicKey));
  assert.equal(keyDigest(cert.publicKey), keyDigest(pair.publicKey));
  const der = selfSignedCertificateDer(pair, now);
  // TBSCertificate starts straight with the serial (no [0] version: v1).
  const tbsStart = 4 + 4;
  assert.equal(der[tbsStart], 0x02);
  const late = new X509Certificate(selfSignedCertificate(pair, new Date("2045-06-01T00:00:00Z")));
  assert.equal(new Date(late.validTo).toISOString(), "2055-05-30T00:00:00.000Z");
});

const opensslMissing =
  spawnSync("openssl", ["version"]).status !== 0 ? "openssl is not installed" : undefined;

test("openssl reads the certificate as version 1 with sha384WithRSAEncryption", {
  skip: opensslMissing,
}, () => {
  const dir = scratchDirectory("tend-net-cert-");
  writeFileSync(join(dir, "c.pem"), selfSignedCertificate(pair));
  const out = execFileSync("openssl", ["x509", "-in", join(dir, "c.pem"), "-noout", "-text"], {
    encoding: "utf8",
  });
  assert.match(out, /Version: 1 \(0x0\)/);
  assert.match(out, /Serial Number: 0 \(0x0\)/);
  assert.match(out, /Signature Algorithm: sha384WithRSAEncryption/);
  assert.match(out, /Subject: CN\s?=\s?a/);
});

test("real cf-key reads tend's keys: cf-key -p prints tend's digest", { skip: skipReason("cf-key") }, () => {
  const dir = scratchDirectory("tend-net-cfkey-");
  writeKeyPair(join(dir, "ppkeys"), pair);
  const result = runInHost(dir, [
    cfengineTool("cf-key") as string,
    "-p",
    "/var/lib/cfengine3/ppkeys/localhost.pub",
  ]);
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stdout.trim(), keyDigest(pair.publicKey));
  // cf-key finds the pair there and refuses to overwrite it.
  const again = runInHost(dir, [cfengineTool("cf-key") as string]);
  assert.equal(again.status, 1);
  assert.match(
    again.stdout + again.stderr,
    /A key file already exists at \/var\/lib\/cfengine3\/ppkeys\/localhost.pub/,
  );
});

test("tend reads keys made by real cf-key, with the same digest", { skip: skipReason("cf-key") }, () => {
  const dir = scratchDirectory("tend-net-cfkey2-");
  const made = runInHost(dir, [cfengineTool("cf-key") as string]);
  assert.equal(made.status, 0, made.stderr);
  const back = readKeyPair(join(dir, "ppkeys"));
  assert.ok(back);
  const printed = runInHost(dir, [
    cfengineTool("cf-key") as string,
    "-p",
    "/var/lib/cfengine3/ppkeys/localhost.pub",
  ]);
  assert.equal(keyDigest(back.publicKey), printed.stdout.trim());
});
