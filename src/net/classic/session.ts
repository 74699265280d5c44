/**
 * What both ends of cf-serverd 3.21's classic protocol (version 1) share:
 * the sizes and offsets of its messages, and the session cipher applied
 * as crypto.c's EncryptString/DecryptString apply it (Blowfish-CBC, the
 * community build's only choice, with a 16-byte key).
 */
import { blowfishCbcDecrypt, blowfishCbcEncrypt } from "./blowfish.js";

/** CF_NONCELEN in bits: the challenge each side sends (CF_BUFSIZE / 16). */
export const NONCE_BITS = 256;
/** CF_RSA_PROTO_OFFSET: where SAUTH's challenge starts. */
export const RSA_PROTO_OFFSET = 24;
/** CF_PROTO_OFFSET: where an encrypted request's cipher text starts (SGET, SSYNCH, ...). */
export const PROTO_OFFSET = 16;
/** CF_BLOWFISHSIZE: the session key's length. */
export const SESSION_KEY_SIZE = 16;
/** CF_SMALL_OFFSET: MD5's digest starts this far past the path's NUL. */
export const SMALL_OFFSET = 2;
/** SGET's plain block size (CF_BUFSIZE - 4 * CF_INBAND_OFFSET). */
export const SGET_BLOCK = 4096 - 32;

/** EncryptString with the session key. */
export function encryptWith(key: Buffer, plain: Buffer): Buffer {
  return blowfishCbcEncrypt(key, plain);
}

/** DecryptString; undefined when the cipher text does not decrypt. */
export function decryptWith(key: Buffer, cipher: Buffer): Buffer | undefined {
  return blowfishCbcDecrypt(key, cipher);
}

/**
 * An encrypted request as the client builds it: `<WORD> <cipherlen>` in
 * the first PROTO_OFFSET bytes (NUL padded), the cipher text after.
 */
export function encryptedRequest(word: string, key: Buffer, plain: Buffer, extra = ""): Buffer {
  const cipher = encryptWith(key, plain);
  const head = Buffer.alloc(PROTO_OFFSET);
  head.write(`${word} ${cipher.length}${extra}`.slice(0, PROTO_OFFSET - 1), "latin1");
  return Buffer.concat([head, cipher]);
}
