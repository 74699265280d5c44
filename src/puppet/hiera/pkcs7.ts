/**
 * PKCS#7 enveloped data (RFC 2315 §10), as hiera-eyaml's PKCS7 encryptor
 * writes it: one RSA recipient (its key transported with PKCS#1 v1.5
 * padding) and the content encrypted with AES-256-CBC (AES-128/192 and
 * triple DES are read too). The DER is read here; node:crypto does RSA
 * (without padding: the padding is checked here, as Node refuses PKCS#1
 * v1.5 for private decryption) and the symmetric cipher. Failures carry
 * the words Ruby's OpenSSL gives for them, as hiera-eyaml reports those.
 */
import {
  createDecipheriv,
  createPrivateKey,
  createPublicKey,
  constants,
  type KeyObject,
  privateDecrypt,
  X509Certificate,
} from "node:crypto";

export class Pkcs7Error extends Error {
  override readonly name = "Pkcs7Error";
}

/** One DER value: its tag and where its content lies in the buffer. */
interface Tlv {
  readonly tag: number;
  readonly start: number;
  readonly end: number;
  /** Where the whole encoding (tag and length included) begins. */
  readonly head: number;
}

class DerError extends Error {}

function readTlv(buf: Uint8Array, pos: number, limit: number): Tlv {
  if (pos + 2 > limit) throw new DerError("truncated");
  const tag = buf[pos] as number;
  if ((tag & 0x1f) === 0x1f) throw new DerError("long tag");
  let length = buf[pos + 1] as number;
  let start = pos + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4) throw new DerError("unsupported length");
    length = 0;
    for (let i = 0; i < count; i++) {
      if (start >= limit) throw new DerError("truncated");
      length = length * 256 + (buf[start++] as number);
    }
  }
  const end = start + length;
  if (end > limit) throw new DerError("truncated");
  return { tag, start, end, head: pos };
}

/** The values inside a constructed value, in order. */
function children(buf: Uint8Array, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let pos = parent.start; pos < parent.end; ) {
    const child = readTlv(buf, pos, parent.end);
    out.push(child);
    pos = child.end;
  }
  return out;
}

function expect(value: Tlv | undefined, tag: number): Tlv {
  if (!value || value.tag !== tag) throw new DerError("unexpected value");
  return value;
}

/** An OBJECT IDENTIFIER's dotted form. */
function oid(buf: Uint8Array, value: Tlv): string {
  const bytes = buf.subarray(expect(value, 0x06).start, value.end);
  const parts: number[] = [];
  let n = 0;
  for (const b of bytes) {
    n = n * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      parts.push(n);
      n = 0;
    }
  }
  const first = parts.shift() ?? 0;
  const head = first < 80 ? [Math.floor(first / 40), first % 40] : [2, first - 80];
  return [...head, ...parts].join(".");
}

const ENVELOPED_DATA = "1.2.840.113549.1.7.3";
const RSA_ENCRYPTION = "1.2.840.113549.1.1.1";

/** Content ciphers by OID: node:crypto's name and key length. */
const CIPHERS: Readonly<Record<string, { name: string; keyLength: number }>> = {
  "2.16.840.1.101.3.4.1.2": { name: "aes-128-cbc", keyLength: 16 },
  "2.16.840.1.101.3.4.1.22": { name: "aes-192-cbc", keyLength: 24 },
  "2.16.840.1.101.3.4.1.42": { name: "aes-256-cbc", keyLength: 32 },
  "1.2.840.113549.3.7": { name: "des-ede3-cbc", keyLength: 24 },
};

interface Recipient {
  /** The DER of the issuer's Name and the serial's content octets. */
  readonly issuer: Buffer;
  readonly serial: Buffer;
  readonly keyAlgorithm: string;
  readonly encryptedKey: Buffer;
}

interface Enveloped {
  readonly recipients: readonly Recipient[];
  readonly cipher: string;
  readonly iv: Buffer;
  readonly content: Buffer;
}

function bytes(buf: Uint8Array, value: Tlv, whole = false): Buffer {
  return Buffer.from(buf.subarray(whole ? value.head : value.start, value.end));
}

/** An INTEGER's content without leading zero octets (serials compare by value). */
function integerBytes(buf: Uint8Array, value: Tlv): Buffer {
  let start = expect(value, 0x02).start;
  while (start < value.end - 1 && buf[start] === 0) start++;
  return Buffer.from(buf.subarray(start, value.end));
}

/** Parses a PKCS#7 ContentInfo holding enveloped data. */
function parseEnveloped(der: Uint8Array): Enveloped {
  let info: Tlv[];
  try {
    info = children(der, expect(readTlv(der, 0, der.length), 0x30));
  } catch {
    throw new Pkcs7Error("Could not parse the PKCS7: no start line");
  }
  try {
    if (oid(der, info[0] as Tlv) !== ENVELOPED_DATA) throw new Pkcs7Error("wrong content type");
    const explicit = expect(info[1], 0xa0);
    const enveloped = children(der, expect(children(der, explicit)[0], 0x30));
    const recipients = children(der, expect(enveloped[1], 0x31)).map((ri): Recipient => {
      const [, issuerAndSerial, algorithm, key] = children(der, expect(ri, 0x30));
      const [issuer, serial] = children(der, expect(issuerAndSerial, 0x30));
      return {
        issuer: bytes(der, expect(issuer, 0x30), true),
        serial: integerBytes(der, serial as Tlv),
        keyAlgorithm: oid(der, children(der, expect(algorithm, 0x30))[0] as Tlv),
        encryptedKey: bytes(der, expect(key, 0x04)),
      };
    });
    const [, algorithm, content] = children(der, expect(enveloped[2], 0x30));
    const [cipherOid, iv] = children(der, expect(algorithm, 0x30));
    const cipher = oid(der, cipherOid as Tlv);
    let encrypted: Buffer = Buffer.alloc(0);
    if (content?.tag === 0x80) encrypted = bytes(der, content);
    else if (content?.tag === 0xa0)
      encrypted = Buffer.concat(children(der, content).map((part) => bytes(der, expect(part, 0x04))));
    else if (content !== undefined) throw new DerError("unexpected value");
    return { recipients, cipher, iv: bytes(der, expect(iv, 0x04)), content: encrypted };
  } catch (error) {
    if (error instanceof Pkcs7Error) throw error;
    throw new Pkcs7Error("Could not parse the PKCS7: no start line");
  }
}

/** The issuer Name (DER) and serial of a certificate. */
function issuerAndSerial(cert: X509Certificate): { issuer: Buffer; serial: Buffer } {
  const der = cert.raw;
  const certificate = children(der, expect(readTlv(der, 0, der.length), 0x30));
  const tbs = children(der, expect(certificate[0], 0x30));
  const fields = tbs[0]?.tag === 0xa0 ? tbs.slice(1) : tbs;
  return { serial: integerBytes(der, fields[0] as Tlv), issuer: bytes(der, expect(fields[2], 0x30), true) };
}

/** A private key (PEM) as Ruby's `OpenSSL::PKey::RSA.new` takes it. */
export function readPrivateKey(pem: string | Buffer): KeyObject {
  try {
    const key = createPrivateKey(pem);
    if (key.asymmetricKeyType === "rsa") return key;
  } catch {
    // as below
  }
  throw new Pkcs7Error("Neither PUB key nor PRIV key: unsupported");
}

/** A certificate (PEM or DER) as Ruby's `OpenSSL::X509::Certificate.new` takes it. */
export function readCertificate(data: string | Buffer): X509Certificate {
  try {
    return new X509Certificate(data);
  } catch {
    throw new Pkcs7Error("PEM_read_bio_X509: no start line");
  }
}

function sameRsaKey(a: KeyObject, b: KeyObject): boolean {
  const x = a.export({ format: "jwk" });
  const y = b.export({ format: "jwk" });
  return x.n === y.n && x.e === y.e;
}

/** Removes PKCS#1 v1.5 encryption padding (type 2); undefined when it is not there. */
function unpad(block: Buffer): Buffer | undefined {
  if (block[0] !== 0 || block[1] !== 2) return undefined;
  const zero = block.indexOf(0, 2);
  if (zero < 10) return undefined;
  return block.subarray(zero + 1);
}

/**
 * Decrypts enveloped data (DER) for the recipient `cert` with its private
 * key, as Ruby's `OpenSSL::PKCS7#decrypt(key, cert)`: the key must match
 * the certificate and a recipient must name it (issuer and serial). A wrong
 * key is "bad decrypt" (OpenSSL then decrypts with a random key and almost
 * always fails the same way; now and then it returns garbage instead).
 */
export function decryptEnveloped(der: Uint8Array, key: KeyObject, cert: X509Certificate): Buffer {
  const data = parseEnveloped(der);
  if (!sameRsaKey(createPublicKey(key), cert.publicKey))
    throw new Pkcs7Error("private key does not match certificate");
  const id = issuerAndSerial(cert);
  const recipient = data.recipients.find((r) => r.issuer.equals(id.issuer) && r.serial.equals(id.serial));
  if (!recipient) throw new Pkcs7Error("no recipient matches certificate");
  const cipher = CIPHERS[data.cipher];
  if (!cipher) throw new Pkcs7Error("unsupported cipher type");
  if (recipient.keyAlgorithm !== RSA_ENCRYPTION) throw new Pkcs7Error("unsupported public key type");
  let contentKey: Buffer | undefined;
  try {
    const block = privateDecrypt({ key, padding: constants.RSA_NO_PADDING }, recipient.encryptedKey);
    contentKey = unpad(block);
  } catch {
    contentKey = undefined;
  }
  if (!contentKey || contentKey.length !== cipher.keyLength) throw new Pkcs7Error("bad decrypt");
  try {
    const decipher = createDecipheriv(cipher.name, contentKey, data.iv);
    return Buffer.concat([decipher.update(data.content), decipher.final()]);
  } catch {
    throw new Pkcs7Error("bad decrypt");
  }
}
