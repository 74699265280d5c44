/**
 * A small DER (ASN.1 Distinguished Encoding Rules) writer: just what the
 * in-memory certificate needs (certificate.ts). Each function returns the
 * complete encoding of one value, tag and length included.
 */

/** The length octets: short form below 128, else long form. */
function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** One value: `tag`, the length of `content`, `content`. */
export function tlv(tag: number, content: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([tag]), encodeLength(content.length), content]);
}

export function sequence(...items: Uint8Array[]): Buffer {
  return tlv(0x30, Buffer.concat(items));
}

export function set(...items: Uint8Array[]): Buffer {
  return tlv(0x31, Buffer.concat(items));
}

/** A non-negative INTEGER (two's complement: a leading 0 when the top bit is set). */
export function integer(value: bigint | number): Buffer {
  let n = BigInt(value);
  if (n < 0n) throw new RangeError("der.integer: negative values are not supported");
  const bytes: number[] = [];
  do {
    bytes.unshift(Number(n & 0xffn));
    n >>= 8n;
  } while (n > 0n);
  if ((bytes[0] as number) & 0x80) bytes.unshift(0);
  return tlv(0x02, Buffer.from(bytes));
}

/** An OBJECT IDENTIFIER from its dotted form ("1.2.840.113549.1.1.12"). */
export function objectIdentifier(dotted: string): Buffer {
  const arcs = dotted.split(".").map((arc) => BigInt(arc));
  if (arcs.length < 2) throw new RangeError(`der.objectIdentifier: bad OID ${dotted}`);
  const out: number[] = [];
  const base128 = (value: bigint): void => {
    const group: number[] = [Number(value & 0x7fn)];
    for (let rest = value >> 7n; rest > 0n; rest >>= 7n) group.unshift(Number(rest & 0x7fn) | 0x80);
    out.push(...group);
  };
  base128((arcs[0] as bigint) * 40n + (arcs[1] as bigint));
  for (const arc of arcs.slice(2)) base128(arc);
  return tlv(0x06, Buffer.from(out));
}

export function nullValue(): Buffer {
  return Buffer.from([0x05, 0x00]);
}

export function utf8String(text: string): Buffer {
  return tlv(0x0c, Buffer.from(text, "utf8"));
}

/** A BIT STRING with no unused bits. */
export function bitString(bytes: Uint8Array): Buffer {
  return tlv(0x03, Buffer.concat([Buffer.from([0]), bytes]));
}

/** `[n] EXPLICIT` (constructed, context-specific). */
export function explicit(n: number, content: Uint8Array): Buffer {
  return tlv(0xa0 | n, content);
}

/**
 * A certificate validity time as RFC 5280 wants it: UTCTime
 * (YYMMDDHHMMSSZ) through 2049, GeneralizedTime (YYYYMMDDHHMMSSZ) after.
 */
export function time(date: Date): Buffer {
  const pad = (n: number, width = 2): string => String(n).padStart(width, "0");
  const year = date.getUTCFullYear();
  const rest =
    pad(date.getUTCMonth() + 1) +
    pad(date.getUTCDate()) +
    pad(date.getUTCHours()) +
    pad(date.getUTCMinutes()) +
    pad(date.getUTCSeconds()) +
    "Z";
  if (year >= 1950 && year < 2050) return tlv(0x17, Buffer.from(pad(year % 100) + rest, "ascii"));
  return tlv(0x18, Buffer.from(pad(year, 4) + rest, "ascii"));
}
