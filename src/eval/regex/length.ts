/**
 * The length in bytes every match of a node has, or null when it varies;
 * PCRE requires each branch of a lookbehind to have one.
 */
import type { PcreNode } from "./ast.js";

export function fixedLength(node: PcreNode): number | null {
  switch (node.t) {
    case "set":
      return 1;
    case "assert":
      return 0;
    case "raw":
      return node.length;
    case "backref":
      return null;
    case "seq":
      return sumOf(node.items);
    case "alt":
      return sameOf(node.branches);
    case "group":
      return node.kind === "capture" || node.kind === "plain" || node.kind === "atomic"
        ? fixedLength(node.body)
        : 0;
    case "repeat": {
      const inner = fixedLength(node.body);
      return inner === null || node.min !== node.max ? null : inner * node.min;
    }
  }
}

function sumOf(nodes: readonly PcreNode[]): number | null {
  let total = 0;
  for (const n of nodes) {
    const len = fixedLength(n);
    if (len === null) return null;
    total += len;
  }
  return total;
}

function sameOf(nodes: readonly PcreNode[]): number | null {
  const lengths = nodes.map(fixedLength);
  return lengths.every((l) => l !== null && l === lengths[0]) ? lengths[0] : null;
}
