/**
 * Strings as CFEngine sees them: sequences of bytes.
 *
 * tend keeps values as JavaScript strings, but 3.21's string and regex
 * functions work on the UTF-8 bytes (`string_length("é")` is 2, `.` matches
 * one byte). A result that cuts a multi-byte character is not valid UTF-8;
 * such bytes are kept as the lone surrogates U+DC80..U+DCFF (like Python's
 * "surrogateescape"), so `encodeBytes(decodeBytes(b))` gives back `b`.
 */

const ASCII = /^[\x00-\x7f]*$/;

/** The bytes of a string: UTF-8, with U+DC80..U+DCFF standing for raw bytes. */
export function encodeBytes(text: string): Buffer {
  if (!/[\udc80-\udcff]/.test(text)) return Buffer.from(text, "utf8");
  const parts: Buffer[] = [];
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0xdc80 || code > 0xdcff || isLowHalfOfPair(text, i)) continue;
    parts.push(Buffer.from(text.slice(last, i), "utf8"), Buffer.of(code - 0xdc00));
    last = i + 1;
  }
  parts.push(Buffer.from(text.slice(last), "utf8"));
  return Buffer.concat(parts);
}

function isLowHalfOfPair(text: string, i: number): boolean {
  const before = i > 0 ? text.charCodeAt(i - 1) : 0;
  return before >= 0xd800 && before <= 0xdbff;
}

/** Decodes UTF-8, keeping each byte of an invalid sequence as U+DC00 + byte. */
export function decodeBytes(bytes: Uint8Array): string {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const whole = buf.toString("utf8");
  if (!whole.includes("\ufffd")) return whole;
  let out = "";
  let i = 0;
  while (i < buf.length) {
    const size = sequenceLength(buf, i);
    if (size === 0) {
      out += String.fromCharCode(0xdc00 + buf[i]);
      i++;
    } else {
      out += buf.toString("utf8", i, i + size);
      i += size;
    }
  }
  return out;
}

/** The length of the valid UTF-8 sequence at `i`, or 0 when it is invalid. */
function sequenceLength(buf: Buffer, i: number): number {
  const b = buf[i];
  if (b < 0x80) return 1;
  const size = b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
  if (size === 0 || i + size > buf.length) return 0;
  for (let k = 1; k < size; k++) if ((buf[i + k] & 0xc0) !== 0x80) return 0;
  const second = buf[i + 1];
  if (b === 0xe0 && second < 0xa0) return 0;
  if (b === 0xed && second >= 0xa0) return 0;
  if (b === 0xf0 && second < 0x90) return 0;
  if (b === 0xf4 && second >= 0x90) return 0;
  return size;
}

/** A string whose characters are the bytes of `text` (code units 0..255). */
export function toByteString(text: string): string {
  return ASCII.test(text) ? text : encodeBytes(text).toString("latin1");
}

/** The inverse of `toByteString`. */
export function fromByteString(bytes: string): string {
  return ASCII.test(bytes) ? bytes : decodeBytes(Buffer.from(bytes, "latin1"));
}

/** The number of bytes of a string, as C's strlen counts them. */
export function byteLength(text: string): number {
  return ASCII.test(text) ? text.length : encodeBytes(text).length;
}
