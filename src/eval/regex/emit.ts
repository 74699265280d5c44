/**
 * Writes the tree of a parsed PCRE pattern as JavaScript regex source for
 * byte strings (no `u`, `i`, `m` or `s` flag: every flag was resolved while
 * parsing). Atomic groups and possessive quantifiers become
 * `(?=(X))\N`, which JavaScript never backtracks into; those helper groups
 * shift the numbering, so the result maps PCRE's group numbers to
 * JavaScript's.
 */
import type { AssertKind, ByteSet, PcreNode } from "./ast.js";

export interface Emitted {
  readonly source: string;
  /** `groupIndex[n]` is the JavaScript index of PCRE group n (0 is the whole match). */
  readonly groupIndex: readonly number[];
}

const ASSERTS: Readonly<Record<AssertKind, string>> = {
  start: "^",
  "line-start": "(?:^|(?<=\\n)(?=[^]))",
  end: "$",
  "end-or-newline": "(?=\\n?$)",
  "line-end": "(?=\\n|$)",
  word: "\\b",
  "not-word": "\\B",
  fail: "(?!)",
};

/**
 * Line assertions for a subject known to hold no newline: there, PCRE's
 * multiline `^` and `$` and its `\Z` mean the start and the end, which
 * JavaScript's linear-time engine can run (it has no lookbehind on every
 * Node release, and no lookahead).
 */
const SINGLE_LINE_ASSERTS: Readonly<Record<AssertKind, string>> = {
  ...ASSERTS,
  "line-start": "^",
  "end-or-newline": "$",
  "line-end": "$",
};

/** `singleLine`: emit for subjects without a newline (see SINGLE_LINE_ASSERTS). */
export function emitPattern(root: PcreNode, groupCount: number, singleLine = false): Emitted {
  const writer = new Writer(groupCount, singleLine ? SINGLE_LINE_ASSERTS : ASSERTS);
  const body = writer.node(root);
  // Back references are written as placeholders until every group has its index.
  const source = body.replace(
    /\u0000(\d+)\u0000/g,
    (_, n: string) => `(?:\\${writer.groupIndex[Number(n)]})`,
  );
  return { source, groupIndex: writer.groupIndex };
}

class Writer {
  readonly groupIndex: number[];
  private jsGroups = 0;

  constructor(
    groupCount: number,
    private readonly asserts: Readonly<Record<AssertKind, string>>,
  ) {
    this.groupIndex = new Array<number>(groupCount + 1).fill(0);
  }

  node(node: PcreNode): string {
    switch (node.t) {
      case "seq":
        return node.items.map((n) => this.node(n)).join("");
      case "alt":
        return node.branches.map((n) => this.node(n)).join("|");
      case "set":
        return writeSet(node.bytes);
      case "assert":
        return this.asserts[node.kind];
      case "raw":
        return node.source;
      case "backref":
        return `\u0000${node.index}\u0000`;
      case "group":
        return this.group(node);
      case "repeat":
        return this.repeat(node);
    }
  }

  private group(node: Extract<PcreNode, { t: "group" }>): string {
    switch (node.kind) {
      case "capture": {
        this.groupIndex[node.index] = ++this.jsGroups;
        return `(${this.node(node.body)})`;
      }
      case "plain":
        return `(?:${this.node(node.body)})`;
      case "atomic":
        return this.atomic(() => this.node(node.body));
      case "ahead":
        return `(?=${this.node(node.body)})`;
      case "not-ahead":
        return `(?!${this.node(node.body)})`;
      case "behind":
        return `(?<=${this.node(node.body)})`;
      case "not-behind":
        return `(?<!${this.node(node.body)})`;
    }
  }

  /** `(?=(X))\N`: the lookahead matches X once, the back reference consumes it. */
  private atomic(inner: () => string): string {
    const index = ++this.jsGroups;
    return `(?:(?=(${inner()}))\\${index})`;
  }

  private repeat(node: Extract<PcreNode, { t: "repeat" }>): string {
    const write = () => `${this.operand(node.body)}${quantifier(node.min, node.max)}`;
    if (node.mode === "possessive") return this.atomic(write);
    return node.mode === "lazy" ? `${write()}?` : write();
  }

  /** A node as the operand of a quantifier: one atom, bracketed if needed. */
  private operand(node: PcreNode): string {
    const text = this.node(node);
    const single =
      node.t === "set" ||
      node.t === "backref" ||
      (node.t === "group" && (node.kind === "capture" || node.kind === "plain" || node.kind === "atomic"));
    return single ? text : `(?:${text})`;
  }
}

function quantifier(min: number, max: number): string {
  if (min === 0 && max === Number.POSITIVE_INFINITY) return "*";
  if (min === 1 && max === Number.POSITIVE_INFINITY) return "+";
  if (min === 0 && max === 1) return "?";
  if (max === Number.POSITIVE_INFINITY) return `{${min},}`;
  return min === max ? `{${min}}` : `{${min},${max}}`;
}

function hex(code: number): string {
  return `\\x${code.toString(16).padStart(2, "0")}`;
}

function writeChar(code: number): string {
  return /[A-Za-z0-9_]/.test(String.fromCharCode(code)) ? String.fromCharCode(code) : hex(code);
}

/** A byte set as one character, `[^]`, or the smaller of a class and its negation. */
function writeSet(set: ByteSet): string {
  let count = 0;
  let only = -1;
  for (let c = 0; c < 256; c++) {
    if (set[c]) {
      count++;
      only = c;
    }
  }
  if (count === 1) return writeChar(only);
  if (count === 256) return "[^]";
  if (count === 0) return "[]";
  return count <= 128 ? `[${ranges(set, 1)}]` : `[^${ranges(set, 0)}]`;
}

function ranges(set: ByteSet, want: number): string {
  let out = "";
  for (let c = 0; c < 256; c++) {
    if (set[c] !== want) continue;
    let end = c;
    while (end + 1 < 256 && set[end + 1] === want) end++;
    out +=
      end === c
        ? writeChar(c)
        : end === c + 1
          ? writeChar(c) + writeChar(end)
          : `${writeChar(c)}-${writeChar(end)}`;
    c = end;
  }
  return out;
}
