/**
 * PCRE's character types and POSIX classes over bytes, as PCRE 8 builds
 * them with its default (C locale, ASCII) tables.
 */
import { type ByteSet, addRange, complement, emptySet, setOf, union } from "./ast.js";

const digit = () => addRange(emptySet(), 48, 57);
const upper = () => addRange(emptySet(), 65, 90);
const lower = () => addRange(emptySet(), 97, 122);
const alpha = () => union(upper(), lower());
const alnum = () => union(alpha(), digit());
const word = () => union(alnum(), setOf(95));
const space = () => setOf(9, 10, 11, 12, 13, 32);
const graph = () => addRange(emptySet(), 0x21, 0x7e);

function punct(): ByteSet {
  const set = graph();
  const letters = alnum();
  for (let c = 0; c < 256; c++) if (letters[c]) set[c] = 0;
  return set;
}

const POSIX: Readonly<Record<string, () => ByteSet>> = {
  alpha,
  digit,
  alnum,
  upper,
  lower,
  space,
  word,
  graph,
  punct,
  blank: () => setOf(9, 32),
  cntrl: () => addRange(setOf(0x7f), 0, 0x1f),
  print: () => addRange(emptySet(), 0x20, 0x7e),
  xdigit: () => addRange(addRange(digit(), 65, 70), 97, 102),
  ascii: () => addRange(emptySet(), 0, 0x7f),
};

/** A POSIX class `[:name:]` by name, or undefined when PCRE does not know it. */
export function posixClass(name: string): ByteSet | undefined {
  return POSIX[name]?.();
}

const TYPES: Readonly<Record<string, () => ByteSet>> = {
  d: digit,
  w: word,
  s: space,
  h: () => setOf(9, 32, 0xa0),
  v: () => setOf(10, 11, 12, 13, 0x85),
};

/** `\d \D \w \W \s \S \h \H \v \V` as byte sets; undefined for other letters. */
export function characterType(letter: string): ByteSet | undefined {
  const make = TYPES[letter.toLowerCase()];
  if (!make) return undefined;
  return letter === letter.toLowerCase() ? make() : complement(make());
}

/**
 * A Unicode property `\p{name}` as PCRE applies it without UTF mode: to
 * each byte taken as the code point U+0000..U+00FF. Undefined for names
 * PCRE does not know.
 */
export function unicodeProperty(name: string): ByteSet | undefined {
  const negated = name.startsWith("^");
  const bare = negated ? name.slice(1) : name;
  const test = propertyTest(bare);
  if (!test) return undefined;
  const set = emptySet();
  for (let c = 0; c < 256; c++) if (test(String.fromCharCode(c))) set[c] = 1;
  return negated ? complement(set) : set;
}

const SPECIAL_PROPERTIES: Readonly<Record<string, string>> = {
  Any: "[^]",
  "L&": "[\\p{Lu}\\p{Ll}\\p{Lt}]",
  Xan: "[\\p{L}\\p{N}]",
  Xwd: "[\\p{L}\\p{N}_]",
  Xsp: "[\\p{Z}\\t\\n\\v\\f\\r]",
  Xps: "[\\p{Z}\\t\\n\\v\\f\\r]",
};

function propertyTest(name: string): ((ch: string) => boolean) | undefined {
  const sources = SPECIAL_PROPERTIES[name]
    ? [SPECIAL_PROPERTIES[name]]
    : /^[A-Za-z_]+$/.test(name)
      ? [`\\p{General_Category=${name}}`, `\\p{Script=${name}}`]
      : [];
  for (const source of sources) {
    try {
      const regex = new RegExp(`^${source}$`, "u");
      return (ch) => regex.test(ch);
    } catch {
      // Not a category: try the next reading of the name.
    }
  }
  return undefined;
}
