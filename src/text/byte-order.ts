/**
 * Byte-wise order of the UTF-8 encodings of two strings, as C's strcmp
 * orders CFEngine's strings (sorted keys, `sort(lex)`, show-classes).
 *
 * UTF-16 code units order the same way as UTF-8 bytes except where a
 * surrogate (U+D800–U+DFFF, half of a character above U+FFFF) meets a
 * unit at U+E000 or above: UTF-8 puts the astral character after it. So
 * the strings are compared unit by unit without encoding them.
 */
export function compareBytes(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return rank(x) - rank(y);
  }
  return a.length - b.length;
}

/** Lifts surrogates above the rest of the BMP, where UTF-8 orders them. */
function rank(unit: number): number {
  return unit >= 0xd800 && unit <= 0xdfff ? unit + 0x2000 : unit >= 0xe000 ? unit - 0x800 : unit;
}
