/**
 * Mutations of real policy for fuzzing: a seeded generator, the seed
 * policies, and mutations that delete, duplicate, swap and replace tokens,
 * insert odd text, macros and deep nesting, and make long tokens. Used by
 * the fuzz test (parser and validator, a few thousand cases) and the fuzz
 * campaign of scripts/fuzz.ts (a million, with agent runs).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Token, tokenize } from "../../src/language/lexer.js";

export type Random = () => number;

/** mulberry32: a tiny, fast, seedable generator of floats in [0, 1). */
export function mulberry32(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)];
}

export function between(random: Random, low: number, high: number): number {
  return low + Math.floor(random() * (high - low + 1));
}

export function findPolicies(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...findPolicies(path));
    else if (entry.name.endsWith(".cf")) found.push(path);
  }
  return found.sort();
}

/** The `.cf` files under each directory (missing ones are skipped), read. */
export function loadSeeds(dirs: readonly string[]): string[] {
  return dirs.flatMap(findPolicies).map((path) => readFileSync(path, "utf8"));
}

// ---- mutations ------------------------------------------------------------

const PUNCTUATION = "{}();,\"'`@$:=>-";
const ODD_TEXT = [
  "\0",
  "\r",
  "\r\n",
  "\t",
  "\\",
  "\u00e9",
  "\u2028",
  "\ud83d\ude00",
  "\ud800",
  "\udfff",
  "\ufeff",
  "::",
  "=>",
  "->",
  "$(",
  "@{",
  "$(a[$(b)])",
  "#",
  "\n#",
  "bundle",
  "body",
  "promise",
  "vars:",
  "any::",
  '"x"::',
];
const MACRO_LINES = [
  "@if minimum_version(3.18)",
  "@if maximum_version(3.10)",
  "@if feature(yaml)",
  "@if feature(nope)",
  "@if between_versions(3.0, 3.99)",
  "@if version(3)",
  "@if",
  "@else",
  "@endif",
  "  @if minimum_version(3.18)",
];

export type Mutation = (text: string, random: Random) => string;

function tokensOf(text: string): Token[] {
  return tokenize(text).tokens;
}

function splice(text: string, start: number, end: number, insert: string): string {
  return text.slice(0, start) + insert + text.slice(end);
}

function randomRange(text: string, random: Random): [number, number] {
  const start = between(random, 0, text.length);
  return [start, Math.min(text.length, start + between(random, 1, 40))];
}

function lineStart(text: string, random: Random): number {
  const at = between(random, 0, text.length);
  return text.lastIndexOf("\n", at - 1) + 1;
}

function randomChars(random: Random, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) {
    const kind = random();
    if (kind < 0.5) out += String.fromCharCode(between(random, 0, 127));
    else if (kind < 0.8) out += String.fromCharCode(between(random, 128, 0xffff));
    else out += pick(random, ODD_TEXT);
  }
  return out;
}

export const MUTATIONS: readonly Mutation[] = [
  function deleteRange(text, random) {
    const [start, end] = randomRange(text, random);
    return splice(text, start, end, "");
  },
  function duplicateRange(text, random) {
    const [start, end] = randomRange(text, random);
    return splice(text, end, end, text.slice(start, end));
  },
  function deleteToken(text, random) {
    const tokens = tokensOf(text);
    if (tokens.length === 0) return text;
    const t = pick(random, tokens);
    return splice(text, t.start, t.end, "");
  },
  function duplicateToken(text, random) {
    const tokens = tokensOf(text);
    if (tokens.length === 0) return text;
    const t = pick(random, tokens);
    return splice(text, t.end, t.end, " " + text.slice(t.start, t.end));
  },
  function swapTokens(text, random) {
    const tokens = tokensOf(text);
    if (tokens.length < 2) return text;
    let [a, b] = [pick(random, tokens), pick(random, tokens)];
    if (a.start > b.start) [a, b] = [b, a];
    if (a.end > b.start) return text;
    const first = text.slice(a.start, a.end);
    const second = text.slice(b.start, b.end);
    return text.slice(0, a.start) + second + text.slice(a.end, b.start) + first + text.slice(b.end);
  },
  function replaceToken(text, random) {
    const tokens = tokensOf(text);
    if (tokens.length < 2) return text;
    const [target, donor] = [pick(random, tokens), pick(random, tokens)];
    return splice(text, target.start, target.end, text.slice(donor.start, donor.end));
  },
  function insertPunctuation(text, random) {
    let insert = "";
    for (let n = between(random, 1, 5); n > 0; n--) insert += pick(random, [...PUNCTUATION]);
    const at = between(random, 0, text.length);
    return splice(text, at, at, insert);
  },
  function truncate(text, random) {
    return text.slice(0, between(random, 0, text.length));
  },
  function insertMacroLine(text, random) {
    const at = lineStart(text, random);
    return splice(text, at, at, pick(random, MACRO_LINES) + "\n");
  },
  function insertOddText(text, random) {
    const at = between(random, 0, text.length);
    return splice(text, at, at, randomChars(random, between(random, 1, 8)));
  },
  function deepNesting(text, random) {
    // Mostly modest depths; now and then one deep enough to exhaust a recursive parser's stack.
    const depth = random() < 0.1 ? between(random, 300, 20_000) : between(random, 10, 300);
    const open = pick(random, ["f(", "{", "(", "{ f(", "$(", "$(a[", '"', "@if feature(yaml)\n"]);
    const close = pick(random, [")", "}", "", "]"]);
    // Most often where a value goes, so that the parser descends into it.
    const arrows = tokensOf(text).filter((t) => t.kind === "=>");
    const at =
      arrows.length > 0 && random() < 0.7 ? pick(random, arrows).end : between(random, 0, text.length);
    return splice(text, at, at, ` ${open.repeat(depth)}"x"${close.repeat(between(random, 0, depth))}`);
  },
  function longToken(text, random) {
    const at = between(random, 0, text.length);
    return splice(
      text,
      at,
      at,
      // Now and then long enough that work quadratic in a line's length shows as a hang.
      pick(random, ["a", "_", "é", "a.", "a ", "$(x)", " "]).repeat(
        random() < 0.05 ? between(random, 5000, 40_000) : between(random, 100, 3000),
      ),
    );
  },
];

/** Odd string contents: what evaluation, not parsing, has to survive. */
const ODD_VALUES = [
  "",
  "$(undefined)",
  "$(this.promiser)",
  "@(list)",
  "$(a$(b$(c)))",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a CFEngine reference, on purpose
  "${sys.host}",
  "(a+)+$",
  "(a|aa)+b",
  "^(?=a)(a*)*$",
  "[",
  "\\",
  "-1",
  "99999999999999999999",
  "1e308",
  "0x7fffffff",
  "inf",
  "/dev/zero",
  "/proc/self/mem",
  "/nonexistent/x",
  "..",
  "!any",
  "any|!any",
  "((((any))))",
  '{ "a": [1, {"b": null}] }',
  "[[[[[[[[[[1]]]]]]]]]]",
  "%s%s%s%n",
  "a".repeat(5000),
  "é".repeat(300),
];

/**
 * Mutations that keep a policy's shape, so that more cases get past the
 * parser and the validator to evaluation: string contents, numbers and
 * names swapped for odd ones, whole lines repeated.
 */
export const MILD_MUTATIONS: readonly Mutation[] = [
  function oddString(text, random) {
    const strings = tokensOf(text).filter((t) => t.kind === "string");
    if (strings.length === 0) return text;
    const t = pick(random, strings);
    const quote = text[t.start] === "'" ? "'" : '"';
    const value = pick(random, ODD_VALUES).replaceAll(quote, "");
    return splice(text, t.start, t.end, `${quote}${value}${quote}`);
  },
  function swapStrings(text, random) {
    const strings = tokensOf(text).filter((t) => t.kind === "string");
    if (strings.length < 2) return text;
    const [target, donor] = [pick(random, strings), pick(random, strings)];
    return splice(text, target.start, target.end, text.slice(donor.start, donor.end));
  },
  function swapNames(text, random) {
    const names = tokensOf(text).filter((t) => t.kind === "identifier");
    if (names.length < 2) return text;
    const [target, donor] = [pick(random, names), pick(random, names)];
    return splice(text, target.start, target.end, text.slice(donor.start, donor.end));
  },
  function repeatLine(text, random) {
    const at = lineStart(text, random);
    const end = text.indexOf("\n", at);
    const line = text.slice(at, end === -1 ? text.length : end + 1);
    return splice(text, at, at, line.repeat(between(random, 1, random() < 0.1 ? 200 : 3)));
  },
];

/** Seed files larger than this are cut to a random window, to keep cases fast. */
const MAX_SEED_CHARS = 3000;

/** The input of case `n` of campaign `seed`: a seed policy, maybe cut to a window, with one to four mutations. */
export function makeCase(seeds: readonly string[], seed: number, n: number): string {
  const random = mulberry32((seed ^ Math.imul(n + 1, 0x9e3779b9)) >>> 0);
  let text = pick(random, seeds);
  // Half the cases are mildly changed whole files (most still parse), half
  // freely changed windows.
  const mild = random() < 0.5;
  const window = mild ? MAX_SEED_CHARS * 10 : MAX_SEED_CHARS;
  if (text.length > window) {
    const start = between(random, 0, text.length - window);
    text = text.slice(start, start + window);
  }
  const mutations = mild ? MILD_MUTATIONS : MUTATIONS;
  for (let k = between(random, 1, mild ? 2 : 4); k > 0; k--) text = pick(random, mutations)(text, random);
  return text;
}
