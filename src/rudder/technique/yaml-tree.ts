/**
 * A technique's YAML as a small located tree: maps, sequences and scalars,
 * each with the offset where it starts, so that every check can point at the
 * text it is about. Syntax errors of the YAML itself become diagnostics.
 */
import { type Node, isMap, isScalar, isSeq, parseDocument } from "yaml";
import type { DiagnosticSink } from "./diagnostics.js";

export interface YScalar {
  readonly kind: "scalar";
  readonly offset: number;
  /** The value as YAML 1.2's core schema reads it. */
  readonly value: string | number | boolean | null;
  /** The value as text: the source of a plain scalar, the content of a quoted one. */
  readonly text: string;
}

export interface YEntry {
  readonly key: string;
  readonly keyOffset: number;
  readonly value: YNode;
}

export interface YMap {
  readonly kind: "map";
  readonly offset: number;
  readonly entries: readonly YEntry[];
}

export interface YSeq {
  readonly kind: "seq";
  readonly offset: number;
  readonly items: readonly YNode[];
}

export type YNode = YScalar | YMap | YSeq;

/** Parses `text`; returns undefined (with diagnostics) when it is not YAML. */
export function parseYamlTree(text: string, sink: DiagnosticSink): YNode | undefined {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  for (const error of doc.errors) {
    sink.error("yaml-syntax", error.pos[0], `invalid YAML: ${firstLine(error.message)}`);
  }
  if (doc.errors.length > 0) return undefined;
  return toTree(doc.contents, 0);
}

function firstLine(message: string): string {
  return message.split("\n")[0] ?? message;
}

function toTree(node: Node | null | undefined, fallbackOffset: number): YNode {
  if (node === null || node === undefined) {
    return { kind: "scalar", offset: fallbackOffset, value: null, text: "" };
  }
  const offset = node.range?.[0] ?? fallbackOffset;
  if (isMap(node)) {
    const entries: YEntry[] = [];
    for (const pair of node.items) {
      const keyNode = pair.key as Node | null;
      const keyOffset = keyNode?.range?.[0] ?? offset;
      const key = isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
      const valueOffset = keyNode?.range?.[2] ?? keyOffset;
      entries.push({ key, keyOffset, value: toTree(pair.value as Node | null, valueOffset) });
    }
    return { kind: "map", offset, entries };
  }
  if (isSeq(node)) {
    return { kind: "seq", offset, items: node.items.map((item) => toTree(item as Node | null, offset)) };
  }
  if (isScalar(node)) {
    const value = node.value;
    const scalar =
      typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? value : null;
    const plain = node.type === "PLAIN";
    const text =
      plain && typeof node.source === "string" ? node.source : scalar === null ? "" : String(scalar);
    return { kind: "scalar", offset, value: scalar, text };
  }
  return { kind: "scalar", offset, value: null, text: "" };
}

/** The entry named `key` of a map, if any. */
export function entry(map: YMap, key: string): YEntry | undefined {
  return map.entries.find((e) => e.key === key);
}

/** A short name of a node's kind for messages ("a string", "a list"...). */
export function describeNode(node: YNode): string {
  if (node.kind === "map") return "a mapping";
  if (node.kind === "seq") return "a list";
  if (node.value === null) return "nothing (null)";
  if (typeof node.value === "number") return `a number (${node.text})`;
  if (typeof node.value === "boolean") return `a boolean (${node.text})`;
  return "a string";
}
