/**
 * About how many bytes PCRE 8 (as cf-agent 3.21 uses it, two-byte links)
 * compiles a pattern to. PCRE refuses a pattern past 64 KiB ("regular
 * expression is too large"): counted repeats of a group are written out
 * once per repetition, so `(?:a|b){6000}` is refused where `[ab]{6000}` is
 * not. The estimate follows PCRE's opcodes closely enough to agree with it
 * away from the very edge.
 */
import type { PcreNode } from "./ast.js";

/** PCRE's limit on a compiled pattern, with two-byte links. */
export const MAX_COMPILED_SIZE = 65_535;

/** Bracket opcode and its closing KET, with their links. */
const BRACKETS = 6;
/** An optional copy of a repeated group: BRAZERO and a bracket around the copy. */
const OPTIONAL_COPY = 7;

export function compiledSize(node: PcreNode): number {
  switch (node.t) {
    case "set":
      return countBytes(node.bytes) === 1 ? 2 : 33;
    case "assert":
      return 1;
    case "raw":
      return 10;
    case "backref":
      return 3;
    case "seq":
      return node.items.reduce((sum, item) => sum + compiledSize(item), 0);
    case "alt":
      return (
        node.branches.reduce((sum, branch) => sum + compiledSize(branch), 0) + 3 * (node.branches.length - 1)
      );
    case "group":
      return compiledSize(node.body) + BRACKETS + (node.kind === "capture" ? 2 : 0);
    case "repeat": {
      const body = compiledSize(node.body);
      if (node.body.t !== "group" || (node.min <= 1 && node.max === Number.POSITIVE_INFINITY))
        return body + 3;
      const copies = Math.max(node.min, 1) * body;
      if (node.max === Number.POSITIVE_INFINITY) return copies + body + OPTIONAL_COPY;
      return copies + (node.max - Math.max(node.min, 1)) * (body + OPTIONAL_COPY);
    }
  }
}

function countBytes(set: Uint8Array): number {
  let n = 0;
  for (const b of set) n += b;
  return n;
}
