/**
 * The orders of `sort`, `min` and `max` (lex, int, real, IP, MAC), and the
 * seeded `shuffle`, reproducing 3.21's results: the same merge sort (which
 * takes the right-hand item on ties) and glibc's `rand()` for shuffling.
 */
import { isIP } from "node:net";
import { compareBytes } from "../../text/byte-order.js";
import { finishHash, mixBytes } from "../one-at-a-time.js";

export type SortMode = "lex" | "int" | "real" | "IP" | "MAC";

/** The mode named by a `sort` argument; undefined for an unknown one. */
export function sortMode(name: string): SortMode | undefined {
  if (name === "ip") return "IP";
  if (name === "mac") return "MAC";
  return (["lex", "int", "real", "IP", "MAC"] as const).find((m) => m === name);
}

export function sortItems(items: readonly string[], mode: SortMode): string[] {
  return mergeSort(items, LESS[mode]);
}

type Less = (a: string, b: string) => boolean;

const lexLess: Less = (a, b) => compareBytes(a, b) < 0;

/** A number read from the start of the text as `sscanf("%lf")`. */
export function leadingNumber(text: string): number | undefined {
  const match = /^\s*[+-]?(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)/i.exec(
    text,
  );
  if (!match) return undefined;
  const raw = match[0].trim().toLowerCase();
  const sign = raw.startsWith("-") ? -1 : 1;
  const body = raw.replace(/^[+-]/, "");
  if (body.startsWith("0x")) return sign * Number.parseInt(body.slice(2), 16);
  if (body.startsWith("inf")) return sign * Number.POSITIVE_INFINITY;
  if (body === "nan") return Number.NaN;
  return sign * Number(body);
}

function numberLess(intMode: boolean): Less {
  return (a, b) => {
    const left = leadingNumber(a);
    const right = leadingNumber(b);
    if (left !== undefined && right !== undefined) {
      return intMode ? Math.trunc(left) - Math.trunc(right) < 0 : left - right < 0;
    }
    if (left !== undefined) return false;
    if (right !== undefined) return true;
    return lexLess(a, b);
  };
}

/**
 * An address as 3.21's parser reads it for sorting, as comparable numbers
 * (every IPv6 address after every IPv4 one); undefined when it is none.
 * IPv4 may carry a `:port`; IPv6 must be lower case (RFC 5952) and plain
 * hex groups (no embedded IPv4, no zone).
 */
export function ipSortKey(text: string): number[] | undefined {
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)(?::(\d+))?$/.exec(text);
  if (v4) {
    const octets = v4.slice(1, 5).map(Number);
    const port = Number(v4[5] ?? 0);
    return octets.every((o) => o <= 255) && port <= 65535 ? octets : undefined;
  }
  if (isIP(text) !== 6 || /[A-F.%]/.test(text)) return undefined;
  const [head, tail = ""] = text.split("::");
  const groups = (s: string) => (s === "" ? [] : s.split(":").map((g) => Number.parseInt(g, 16)));
  const left = groups(head);
  const right = text.includes("::") ? groups(tail) : [];
  const middle = new Array(8 - left.length - right.length).fill(0);
  return [...left, ...middle, ...right].map((g) => g + 0x10000 * 256);
}

const ipLess: Less = (a, b) => {
  const left = ipSortKey(a);
  const right = ipSortKey(b);
  if (left && right) return compareArrays(left, right) < 0;
  if (left) return false;
  if (right) return true;
  return lexLess(a, b);
};

/** C's `sscanf("%hhx")` at `at`: the byte it stores and where it stopped, or undefined. */
function scanHexByte(text: string, at: number, maxWidth: number): { value: number; end: number } | undefined {
  let i = at;
  if (maxWidth === Number.POSITIVE_INFINITY) while (/\s/.test(text[i] ?? "")) i++;
  const start = i;
  let negative = false;
  if (maxWidth === Number.POSITIVE_INFINITY && (text[i] === "+" || text[i] === "-"))
    negative = text[i++] === "-";
  if (
    maxWidth === Number.POSITIVE_INFINITY &&
    text[i] === "0" &&
    /[xX]/.test(text[i + 1] ?? "") &&
    /[0-9a-fA-F]/.test(text[i + 2] ?? "")
  )
    i += 2;
  let value = 0;
  const digitsStart = i;
  while (i - start < maxWidth && /[0-9a-fA-F]/.test(text[i] ?? ""))
    value = (value * 16 + Number.parseInt(text[i++], 16)) % 256;
  if (i === digitsStart) return undefined;
  return { value: negative ? (256 - value) % 256 : value, end: i };
}

/**
 * A MAC address as 3.21's `ParseEtherAddress` reads it: six `%hhx` fields
 * separated by colons for text longer than 12 characters (each field keeps
 * its low byte: `014` is 0x14), else six two-digit hex fields.
 */
export function macSortKey(text: string): number[] | undefined {
  const long = text.length > 12;
  const out: number[] = [];
  let at = 0;
  for (let n = 0; n < 6; n++) {
    if (long && n > 0) {
      if (text[at] !== ":") return undefined;
      at++;
    }
    const field = scanHexByte(text, at, long ? Number.POSITIVE_INFINITY : 2);
    if (!field) return undefined;
    out.push(field.value);
    at = field.end;
  }
  return out;
}

const macLess: Less = (a, b) => {
  const left = macSortKey(a);
  const right = macSortKey(b);
  if (left && right) {
    const difference = compareArrays(left, right);
    if (difference !== 0) return difference < 0;
  }
  if (left) return false;
  if (right) return true;
  return lexLess(a, b);
};

function compareArrays(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

const LESS: Record<SortMode, Less> = {
  lex: lexLess,
  int: numberLess(true),
  real: numberLess(false),
  IP: ipLess,
  MAC: macLess,
};

/** Bottom-up merge sort taking the left item only when strictly less. */
function mergeSort(items: readonly string[], less: Less): string[] {
  let current = [...items];
  for (let size = 1; size < current.length; size *= 2) {
    const next: string[] = [];
    for (let start = 0; start < current.length; start += 2 * size) {
      const p = current.slice(start, start + size);
      const q = current.slice(start + size, start + 2 * size);
      let i = 0;
      let j = 0;
      while (i < p.length || j < q.length) {
        if (i === p.length) next.push(q[j++]);
        else if (j === q.length || less(p[i], q[j])) next.push(p[i++]);
        else next.push(q[j++]);
      }
    }
    current = next;
  }
  return current;
}

/** Jenkins' one-at-a-time hash of the UTF-8 bytes, as 3.21's StringHash. */
export function stringHash(text: string, seed = 0): number {
  return finishHash(mixBytes(seed >>> 0, text));
}

/** glibc's `srand(seed)` / `rand()` (the TYPE_3 additive generator). */
export function glibcRand(seed: number): () => number {
  const r: number[] = [seed === 0 ? 1 : seed | 0];
  for (let i = 1; i < 31; i++) {
    const hi = Math.trunc(r[i - 1] / 127773);
    const lo = r[i - 1] % 127773;
    let word = 16807 * lo - 2836 * hi;
    if (word < 0) word += 2147483647;
    r.push(word);
  }
  for (let i = 31; i < 34; i++) r.push(r[i - 31]);
  for (let i = 34; i < 344; i++) r.push((r[i - 31] + r[i - 3]) | 0);
  return () => {
    const next = (r[r.length - 31] + r[r.length - 3]) | 0;
    r.push(next);
    if (r.length > 64) r.splice(0, r.length - 34);
    return next >>> 1;
  };
}

/** `shuffle(list, seed)`: Fisher-Yates driven by glibc's rand, then reversed. */
export function shuffleItems(items: readonly string[], seed: string): string[] {
  const out = [...items];
  if (out.length === 0) return out;
  const rand = glibcRand(stringHash(seed));
  for (let i = out.length - 1; i > 0; i--) {
    const j = rand() % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out.reverse();
}
