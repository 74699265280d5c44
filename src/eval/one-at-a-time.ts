/**
 * Bob Jenkins' "one at a time" hash over UTF-8 bytes, as libntech's
 * StringHash and VarRefHash compute it. The hashes decide the orders 3.21
 * walks its hash tables in, which several functions' results show.
 */

const ASCII = /^[\x00-\x7f]*$/;

/** Mixes the UTF-8 bytes of `text` into `hash` (without the final avalanche). */
export function mixBytes(hash: number, text: string): number {
  let h = hash;
  if (ASCII.test(text)) {
    // Plain ASCII: each character is its own byte; no buffer to allocate.
    for (let i = 0; i < text.length; i++) {
      h = (h + text.charCodeAt(i)) >>> 0;
      h = (h + (h << 10)) >>> 0;
      h = (h ^ (h >>> 6)) >>> 0;
    }
    return h;
  }
  for (const byte of Buffer.from(text, "utf8")) {
    h = (h + byte) >>> 0;
    h = (h + (h << 10)) >>> 0;
    h = (h ^ (h >>> 6)) >>> 0;
  }
  return h;
}

/** The final avalanche of the hash. */
export function finishHash(hash: number): number {
  let h = (hash + (hash << 3)) >>> 0;
  h = (h ^ (h >>> 11)) >>> 0;
  return (h + (h << 15)) >>> 0;
}
