/**
 * Blowfish (Schneier, 1993) in CBC mode with PKCS#7 padding: the session
 * cipher of cf-serverd 3.21's classic protocol (OpenSSL's bf-cbc with a
 * 16-byte key and the fixed IV 01..08 that crypto.c uses).
 *
 * Why not node:crypto: OpenSSL 3 keeps Blowfish in its legacy provider,
 * which Node loads only with the process-wide --openssl-legacy-provider
 * flag; tend would have to start every command with it. So the cipher is
 * here, and its initial P-array and S-boxes (the fractional hexadecimal
 * digits of pi, by the algorithm's definition) are computed on first use
 * with Machin's formula in BigInt arithmetic instead of being written out.
 */

/** 18 P entries + 4 S-boxes of 256 entries, as 32-bit words. */
const WORDS = 18 + 4 * 256;

let piWords: Uint32Array | undefined;

/** arctan(1/x) scaled by 2^bits (x > 1), by its Taylor series. */
function arctanInverse(x: bigint, bits: bigint): bigint {
  const x2 = x * x;
  let term = (1n << bits) / x;
  let sum = term;
  let n = 1n;
  let sign = -1n;
  while (term !== 0n) {
    term /= x2;
    n += 2n;
    sum += (sign * term) / n;
    sign = -sign;
  }
  return sum;
}

/** The first WORDS 32-bit words of pi's fractional part (243F6A88 85A308D3 ...). */
export function piFractionWords(): Uint32Array {
  if (piWords) return piWords;
  const fractionBits = BigInt(WORDS * 32);
  const guard = 64n;
  const bits = fractionBits + guard;
  const pi = 16n * arctanInverse(5n, bits) - 4n * arctanInverse(239n, bits);
  let fraction = (pi >> guard) & ((1n << fractionBits) - 1n);
  const words = new Uint32Array(WORDS);
  for (let i = WORDS - 1; i >= 0; i--) {
    words[i] = Number(fraction & 0xffffffffn);
    fraction >>= 32n;
  }
  piWords = words;
  return words;
}

/** One Blowfish key schedule. */
export class Blowfish {
  private readonly p: Uint32Array;
  private readonly s: Uint32Array;

  constructor(key: Buffer) {
    if (key.length < 1 || key.length > 72)
      throw new RangeError(`Blowfish key of ${key.length} bytes (1..72)`);
    const pi = piFractionWords();
    this.p = pi.slice(0, 18);
    this.s = pi.slice(18);
    for (let i = 0, k = 0; i < 18; i++) {
      let word = 0;
      for (let j = 0; j < 4; j++) {
        word = ((word << 8) | (key[k] as number)) >>> 0;
        k = (k + 1) % key.length;
      }
      this.p[i] = ((this.p[i] as number) ^ word) >>> 0;
    }
    const block = new Uint32Array(2);
    for (let i = 0; i < 18; i += 2) {
      this.encryptWords(block);
      this.p[i] = block[0] as number;
      this.p[i + 1] = block[1] as number;
    }
    for (let i = 0; i < 1024; i += 2) {
      this.encryptWords(block);
      this.s[i] = block[0] as number;
      this.s[i + 1] = block[1] as number;
    }
  }

  private f(x: number): number {
    const s = this.s;
    const a = s[x >>> 24] as number;
    const b = s[256 + ((x >>> 16) & 0xff)] as number;
    const c = s[512 + ((x >>> 8) & 0xff)] as number;
    const d = s[768 + (x & 0xff)] as number;
    return ((((a + b) >>> 0) ^ c) + d) >>> 0;
  }

  /** Encrypts the block [left, right] in place. */
  encryptWords(block: Uint32Array): void {
    let l = block[0] as number;
    let r = block[1] as number;
    for (let i = 0; i < 16; i++) {
      l = (l ^ (this.p[i] as number)) >>> 0;
      r = (r ^ this.f(l)) >>> 0;
      const t = l;
      l = r;
      r = t;
    }
    block[0] = (r ^ (this.p[17] as number)) >>> 0;
    block[1] = (l ^ (this.p[16] as number)) >>> 0;
  }

  /** Decrypts the block [left, right] in place. */
  decryptWords(block: Uint32Array): void {
    let l = block[0] as number;
    let r = block[1] as number;
    for (let i = 17; i > 1; i--) {
      l = (l ^ (this.p[i] as number)) >>> 0;
      r = (r ^ this.f(l)) >>> 0;
      const t = l;
      l = r;
      r = t;
    }
    block[0] = (r ^ (this.p[0] as number)) >>> 0;
    block[1] = (l ^ (this.p[1] as number)) >>> 0;
  }
}

/** crypto.c's fixed IV (its first 8 bytes are Blowfish's). */
export const CLASSIC_IV = Buffer.from([1, 2, 3, 4, 5, 6, 7, 8]);

/** bf-cbc with PKCS#7 padding, as EVP_EncryptUpdate + EVP_EncryptFinal_ex. */
export function blowfishCbcEncrypt(key: Buffer, plain: Buffer, iv: Buffer = CLASSIC_IV): Buffer {
  const bf = new Blowfish(key);
  const pad = 8 - (plain.length % 8);
  const input = Buffer.concat([plain, Buffer.alloc(pad, pad)]);
  const out = Buffer.alloc(input.length);
  const block = new Uint32Array(2);
  let c0 = iv.readUInt32BE(0);
  let c1 = iv.readUInt32BE(4);
  for (let i = 0; i < input.length; i += 8) {
    block[0] = (input.readUInt32BE(i) ^ c0) >>> 0;
    block[1] = (input.readUInt32BE(i + 4) ^ c1) >>> 0;
    bf.encryptWords(block);
    c0 = block[0] as number;
    c1 = block[1] as number;
    out.writeUInt32BE(c0, i);
    out.writeUInt32BE(c1, i + 4);
  }
  return out;
}

/** The inverse; undefined when the length or the padding is wrong (EVP_DecryptFinal_ex failing). */
export function blowfishCbcDecrypt(key: Buffer, cipher: Buffer, iv: Buffer = CLASSIC_IV): Buffer | undefined {
  if (cipher.length === 0 || cipher.length % 8 !== 0) return undefined;
  const bf = new Blowfish(key);
  const out = Buffer.alloc(cipher.length);
  const block = new Uint32Array(2);
  let c0 = iv.readUInt32BE(0);
  let c1 = iv.readUInt32BE(4);
  for (let i = 0; i < cipher.length; i += 8) {
    const x0 = cipher.readUInt32BE(i);
    const x1 = cipher.readUInt32BE(i + 4);
    block[0] = x0;
    block[1] = x1;
    bf.decryptWords(block);
    out.writeUInt32BE(((block[0] as number) ^ c0) >>> 0, i);
    out.writeUInt32BE(((block[1] as number) ^ c1) >>> 0, i + 4);
    c0 = x0;
    c1 = x1;
  }
  const pad = out[out.length - 1] as number;
  if (pad < 1 || pad > 8) return undefined;
  for (let i = out.length - pad; i < out.length; i++) if (out[i] !== pad) return undefined;
  return out.subarray(0, out.length - pad);
}
