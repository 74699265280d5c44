/**
 * The TLS certificate a CFEngine 3.21 host presents: made in memory from its
 * key at each start, never stored. As 3.21 makes it: X.509 version 1 (no
 * version field), serial number 0, subject and issuer "CN=a", valid from now
 * for 10 × 365 days, self-signed with SHA-384. Nobody checks the signature
 * or the name: a peer is identified by the key alone (keys.ts).
 */
import { sign } from "node:crypto";
import { bitString, integer, nullValue, objectIdentifier, sequence, set, time, utf8String } from "./der.js";
import type { KeyPair } from "./keys.js";

const SHA384_WITH_RSA = "1.2.840.113549.1.1.12";
const COMMON_NAME = "2.5.4.3";
const TEN_YEARS_MS = 60 * 60 * 24 * 365 * 10 * 1000;

/** The DER of the certificate for `pair`, valid from `now`. */
export function selfSignedCertificateDer(pair: KeyPair, now: Date = new Date()): Buffer {
  const algorithm = sequence(objectIdentifier(SHA384_WITH_RSA), nullValue());
  const name = sequence(set(sequence(objectIdentifier(COMMON_NAME), utf8String("a"))));
  const notBefore = new Date(Math.floor(now.getTime() / 1000) * 1000);
  const notAfter = new Date(notBefore.getTime() + TEN_YEARS_MS);
  const spki = pair.publicKey.export({ type: "spki", format: "der" });
  const tbs = sequence(integer(0), algorithm, name, sequence(time(notBefore), time(notAfter)), name, spki);
  const signature = sign("sha384", tbs, pair.privateKey);
  return sequence(tbs, algorithm, bitString(signature));
}

/** The certificate for `pair` as PEM (what node:tls takes as `cert`). */
export function selfSignedCertificate(pair: KeyPair, now?: Date): string {
  const body = selfSignedCertificateDer(pair, now).toString("base64");
  const lines = body.match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join("\n")}\n-----END CERTIFICATE-----\n`;
}
