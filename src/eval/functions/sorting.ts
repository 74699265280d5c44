/**
 * The orders of `sort`, `min` and `max` (lex, int, real, IP, MAC), and the
 * seeded `shuffle`, reproducing 3.21's results: the same merge sort (which
 * takes the right-hand item on ties) and glibc's `rand()` for shuffling.
 */
import { isIP } from "node:net";
import { compareBytes } from "./containers.js";

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

function ipBytes(text: string): number[] | undefined {
  const kind = isIP(text);
  if (kind === 4) return text.split(".").map(Number);
  if (kind !== 6) return undefined;
  const [head, tail = ""] = text.split("::");
  const groups = (s: string) => (s === "" ? [] : s.split(":").map((g) => Number.parseInt(g, 16)));
  const left = groups(head);
  const right = text.includes("::") ? groups(tail) : [];
  const middle = new Array(8 - left.length - right.length).fill(0);
  return [...left, ...middle, ...right].map((g) => g + 0x10000 * 256);
}

const ipLess: Less = (a, b) => {
  const left = ipBytes(a);
  const right = ipBytes(b);
  if (left && right) return compareArrays(left, right) < 0;
  if (left) return false;
  if (right) return true;
  return lexLess(a, b);
};

function macBytes(text: string): number[] | undefined {
  const pattern = text.length > 12 ? /^\s*([0-9a-f]{1,2})(?::([0-9a-f]{1,2})){5}/i : /^(?:[0-9a-f]{2}){6}/i;
  if (!pattern.test(text)) return undefined;
  const parts = text.length > 12 ? text.trim().split(":").slice(0, 6) : text.slice(0, 12).match(/../g);
  return parts?.map((p) => Number.parseInt(p, 16));
}

const macLess: Less = (a, b) => {
  const left = macBytes(a);
  const right = macBytes(b);
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
  let h = seed >>> 0;
  for (const byte of Buffer.from(text, "utf8")) {
    h = (h + byte) >>> 0;
    h = (h + (h << 10)) >>> 0;
    h = (h ^ (h >>> 6)) >>> 0;
  }
  h = (h + (h << 3)) >>> 0;
  h = (h ^ (h >>> 11)) >>> 0;
  return (h + (h << 15)) >>> 0;
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
