/**
 * The tree a PCRE pattern parses into. Flags are resolved while parsing, so
 * a node means the same thing wherever it sits: a caseless letter is already
 * a set holding both cases, `^` under (?m) is already a line-start assertion.
 * Everything works on bytes (see bytes.ts).
 */

/** Set of bytes 0..255. */
export type ByteSet = Uint8Array;

export type AssertKind =
  | "start" // \A, or ^ without (?m)
  | "line-start" // ^ with (?m)
  | "end" // \z
  | "end-or-newline" // \Z, or $ without (?m)
  | "line-end" // $ with (?m)
  | "word"
  | "not-word"
  | "fail"; // (*FAIL)

export type GroupKind = "capture" | "plain" | "atomic" | "ahead" | "not-ahead" | "behind" | "not-behind";

export type PcreNode =
  | { readonly t: "seq"; readonly items: PcreNode[] }
  | { readonly t: "alt"; readonly branches: PcreNode[] }
  | { readonly t: "set"; readonly bytes: ByteSet }
  | { readonly t: "assert"; readonly kind: AssertKind }
  | { readonly t: "group"; readonly kind: GroupKind; readonly body: PcreNode; readonly index: number }
  | {
      readonly t: "repeat";
      readonly body: PcreNode;
      readonly min: number;
      readonly max: number;
      readonly mode: "greedy" | "lazy" | "possessive";
    }
  | { readonly t: "backref"; index: number; readonly name?: string; readonly offset: number }
  /** A fixed JavaScript fragment (no capturing groups) and its length in bytes, if fixed. */
  | { readonly t: "raw"; readonly source: string; readonly length: number | null };

/** A parsed pattern: its tree, its capturing groups and their names. */
export interface ParsedPattern {
  readonly root: PcreNode;
  readonly groupCount: number;
  readonly names: ReadonlyMap<string, number>;
}

/** A pattern PCRE rejects, or uses a construct tend cannot translate. */
export class PcreError extends Error {
  constructor(
    readonly code: "pcre-syntax" | "pcre-unsupported",
    readonly reason: string,
    /** Byte offset in the pattern, as PCRE reports it. */
    readonly offset: number,
  ) {
    super(`${reason} at offset ${offset}`);
    this.name = "PcreError";
  }
}

export function emptySet(): ByteSet {
  return new Uint8Array(256);
}

export function setOf(...codes: number[]): ByteSet {
  const set = emptySet();
  for (const c of codes) set[c] = 1;
  return set;
}

export function addRange(set: ByteSet, from: number, to: number): ByteSet {
  for (let c = from; c <= to; c++) set[c] = 1;
  return set;
}

export function union(into: ByteSet, other: ByteSet): ByteSet {
  for (let c = 0; c < 256; c++) if (other[c]) into[c] = 1;
  return into;
}

export function complement(set: ByteSet): ByteSet {
  const out = emptySet();
  for (let c = 0; c < 256; c++) out[c] = set[c] ? 0 : 1;
  return out;
}

/** Adds the other case of every ASCII letter (PCRE's default tables are ASCII only). */
export function caseClose(set: ByteSet): ByteSet {
  for (let c = 65; c <= 90; c++) {
    if (set[c] || set[c + 32]) {
      set[c] = 1;
      set[c + 32] = 1;
    }
  }
  return set;
}
