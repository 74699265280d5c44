/**
 * The RSA pieces of the classic protocol's key agreement: OpenSSL's MPI
 * encoding of big numbers (BN_bn2mpi / BN_mpi2bn), and PKCS#1 v1.5
 * decryption with a private key.
 *
 * Node (20.11+, 22, 24) refuses RSA_PKCS1_PADDING in privateDecrypt unless
 * started with --security-revert; the classic protocol's challenge and
 * session key come padded that way, so the decryption is done here with
 * BigInt from the key's JWK components (CRT). Encryption with a public key
 * still goes through node:crypto.
 */
import { constants, createPublicKey, type KeyObject, publicEncrypt, randomBytes } from "node:crypto";

function toBigInt(bytes: Buffer): bigint {
  return bytes.length === 0 ? 0n : BigInt(`0x${bytes.toString("hex")}`);
}

function toBytes(value: bigint, length?: number): Buffer {
  let hex = value.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  const raw = value === 0n ? Buffer.alloc(0) : Buffer.from(hex, "hex");
  if (length === undefined || raw.length >= length) return raw;
  return Buffer.concat([Buffer.alloc(length - raw.length), raw]);
}

/** BN_bn2mpi of a non-negative number given as big-endian bytes. */
export function toMpi(magnitude: Buffer): Buffer {
  let start = 0;
  while (start < magnitude.length && magnitude[start] === 0) start++;
  let body = magnitude.subarray(start);
  if (body.length > 0 && ((body[0] as number) & 0x80) !== 0) body = Buffer.concat([Buffer.alloc(1), body]);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length, 0);
  return Buffer.concat([head, body]);
}

/** BN_mpi2bn: the magnitude's bytes; undefined when malformed or negative. */
export function fromMpi(mpi: Buffer): Buffer | undefined {
  if (mpi.length < 4) return undefined;
  const length = mpi.readUInt32BE(0);
  if (length !== mpi.length - 4) return undefined;
  const body = mpi.subarray(4);
  if (body.length > 0 && ((body[0] as number) & 0x80) !== 0) return undefined;
  let start = 0;
  while (start < body.length && body[start] === 0) start++;
  return Buffer.from(body.subarray(start));
}

/** A public key from its modulus and exponent (magnitudes). */
export function publicKeyFromComponents(n: Buffer, e: Buffer): KeyObject {
  return createPublicKey({
    key: { kty: "RSA", n: n.toString("base64url"), e: e.toString("base64url") },
    format: "jwk",
  });
}

/** RSA_public_encrypt with RSA_PKCS1_PADDING. */
export function rsaEncrypt(publicKey: KeyObject, data: Buffer): Buffer {
  return publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_PADDING }, data);
}

function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  let b = base % modulus;
  let e = exponent;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % modulus;
    e >>= 1n;
    b = (b * b) % modulus;
  }
  return result;
}

interface PrivateParts {
  n: bigint;
  p: bigint;
  q: bigint;
  dp: bigint;
  dq: bigint;
  qi: bigint;
  size: number;
}

const partsCache = new WeakMap<KeyObject, PrivateParts>();

function privateParts(key: KeyObject): PrivateParts {
  const cached = partsCache.get(key);
  if (cached) return cached;
  const jwk = key.export({ format: "jwk" });
  const big = (v: string | undefined): bigint => toBigInt(Buffer.from(v ?? "", "base64url"));
  const nBytes = Buffer.from(jwk.n ?? "", "base64url");
  const parts: PrivateParts = {
    n: toBigInt(nBytes),
    p: big(jwk.p),
    q: big(jwk.q),
    dp: big(jwk.dp),
    dq: big(jwk.dq),
    qi: big(jwk.qi),
    size: nBytes.length,
  };
  partsCache.set(key, parts);
  return parts;
}

/** RSA_private_decrypt with RSA_PKCS1_PADDING; undefined when the block is not validly padded. */
export function rsaDecrypt(privateKey: KeyObject, cipher: Buffer): Buffer | undefined {
  const k = privateParts(privateKey);
  if (cipher.length === 0 || cipher.length > k.size) return undefined;
  const c = toBigInt(cipher);
  if (c >= k.n) return undefined;
  // CRT with blinding-free exponentiation: the key is the host's own and
  // the peer sees only success or failure of the whole dialog.
  const m1 = modPow(c, k.dp, k.p);
  const m2 = modPow(c, k.dq, k.q);
  const h = (((m1 - m2) % k.p) + k.p) % k.p;
  const m = m2 + ((h * k.qi) % k.p) * k.q;
  const block = toBytes(m, k.size);
  if (block[0] !== 0 || block[1] !== 2) return undefined;
  const zero = block.indexOf(0, 2);
  if (zero < 10) return undefined;
  return Buffer.from(block.subarray(zero + 1));
}

/** BN_rand(bits, top 0, bottom 0) then BN_bn2mpi: a classic challenge. */
export function randomChallenge(bits: number): Buffer {
  const bytes = randomBytes(Math.ceil(bits / 8));
  const extra = bytes.length * 8 - bits;
  bytes[0] = ((bytes[0] as number) & (0xff >> extra)) | (0x80 >> extra);
  return toMpi(bytes);
}
