/**
 * crypt(3)'s MD5 (`$1$`), SHA-256 (`$5$`) and SHA-512 (`$6$`) password
 * hashes, as glibc computes them (the published MD5-crypt and SHA-crypt
 * algorithms, default rounds), for stdlib's `pw_hash`.
 */
import { createHash } from "node:crypto";

const ITOA64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** crypt's base-64: `n` characters of the 24-bit group (b2 b1 b0), low bits first. */
function b64(b2: number, b1: number, b0: number, n: number): string {
  let w = (b2 << 16) | (b1 << 8) | b0;
  let out = "";
  for (let i = 0; i < n; i++) {
    out += ITOA64[w & 0x3f];
    w >>= 6;
  }
  return out;
}

function digest(alg: string, ...parts: Buffer[]): Buffer {
  const h = createHash(alg);
  for (const p of parts) h.update(p);
  return h.digest();
}

/** `$1$salt$hash`: MD5-crypt (salt up to 8 characters). */
export function md5Crypt(password: string, saltText: string): string {
  const pw = Buffer.from(password, "utf8");
  const salt = Buffer.from(saltText.slice(0, 8), "utf8");
  const magic = Buffer.from("$1$");
  let alt = digest("md5", pw, salt, pw);
  const ctx = createHash("md5");
  ctx.update(pw);
  ctx.update(magic);
  ctx.update(salt);
  for (let pl = pw.length; pl > 0; pl -= 16) ctx.update(alt.subarray(0, Math.min(pl, 16)));
  for (let i = pw.length; i > 0; i >>= 1) ctx.update(i & 1 ? Buffer.from([0]) : pw.subarray(0, 1));
  alt = ctx.digest();
  for (let i = 0; i < 1000; i++) {
    const c = createHash("md5");
    c.update(i & 1 ? pw : alt);
    if (i % 3) c.update(salt);
    if (i % 7) c.update(pw);
    c.update(i & 1 ? alt : pw);
    alt = c.digest();
  }
  const f = alt;
  const at = (i: number): number => f[i] as number;
  const text =
    b64(at(0), at(6), at(12), 4) +
    b64(at(1), at(7), at(13), 4) +
    b64(at(2), at(8), at(14), 4) +
    b64(at(3), at(9), at(15), 4) +
    b64(at(4), at(10), at(5), 4) +
    b64(0, 0, at(11), 2);
  return `$1$${salt.toString("utf8")}$${text}`;
}

/** The byte order SHA-crypt writes its digest in: triples, then the tail. */
const ORDER_256: readonly (readonly number[])[] = [
  [0, 10, 20],
  [21, 1, 11],
  [12, 22, 2],
  [3, 13, 23],
  [24, 4, 14],
  [15, 25, 5],
  [6, 16, 26],
  [27, 7, 17],
  [18, 28, 8],
  [9, 19, 29],
];

function order512(): number[][] {
  const out: number[][] = [];
  // Groups (i, i+21, i+42) rotated as the algorithm specifies.
  let a = 0;
  let b = 21;
  let c = 42;
  for (let k = 0; k < 21; k++) {
    out.push([a, b, c]);
    [a, b, c] = [b + 1, c + 1, a + 1];
  }
  return out;
}
const ORDER_512 = order512();

/** `$5$salt$hash` / `$6$salt$hash`: SHA-crypt with 5000 rounds (salt up to 16 characters). */
export function shaCrypt(password: string, saltText: string, bits: 256 | 512): string {
  const alg = bits === 256 ? "sha256" : "sha512";
  const size = bits / 8;
  const pw = Buffer.from(password, "utf8");
  const salt = Buffer.from(saltText.slice(0, 16), "utf8");
  const b = digest(alg, pw, salt, pw);
  const ha = createHash(alg);
  ha.update(pw);
  ha.update(salt);
  let i = pw.length;
  for (; i > size; i -= size) ha.update(b);
  ha.update(b.subarray(0, i));
  for (let n = pw.length; n > 0; n >>= 1) ha.update(n & 1 ? b : pw);
  const a = ha.digest();
  const hp = createHash(alg);
  for (let n = 0; n < pw.length; n++) hp.update(pw);
  const dp = hp.digest();
  const p = Buffer.alloc(pw.length);
  for (let n = 0; n < pw.length; n++) p[n] = dp[n % size] as number;
  const hs = createHash(alg);
  for (let n = 0; n < 16 + (a[0] as number); n++) hs.update(salt);
  const ds = hs.digest();
  const s = ds.subarray(0, salt.length);
  let c = a;
  for (let r = 0; r < 5000; r++) {
    const h = createHash(alg);
    h.update(r & 1 ? p : c);
    if (r % 3) h.update(s);
    if (r % 7) h.update(p);
    h.update(r & 1 ? c : p);
    c = h.digest();
  }
  const at = (n: number): number => c[n] as number;
  let text = "";
  for (const [x, y, z] of bits === 256 ? ORDER_256 : ORDER_512)
    text += b64(at(x as number), at(y as number), at(z as number), 4);
  text += bits === 256 ? b64(0, at(31), at(30), 3) : b64(0, 0, at(63), 2);
  return `$${bits === 256 ? 5 : 6}$${salt.toString("utf8")}$${text}`;
}
