/**
 * The data a template renders, modelled the way CFEngine's JSON elements
 * behave where a template can tell: objects keep their members in order of
 * insertion, and writing an object as JSON sorts its members (byte order)
 * in place, so a section iterating it afterwards sees them sorted. Numbers
 * keep whether they are integers or reals (`{{x}}` prints reals with two
 * decimals).
 */
import { BoxedNumber, jsonNumberText } from "../json-numbers.js";
import type { JsonValue } from "../values.js";
import { quoteJsonString } from "../../text/json-string.js";
import { compareBytes } from "../../text/byte-order.js";

export type MustacheNode = MustachePrimitive | MustacheArray | MustacheObject;

export interface MustachePrimitive {
  readonly kind: "string" | "integer" | "real" | "boolean" | "null";
  /** The value as JSON writes it (strings unquoted). */
  readonly text: string;
}

export interface MustacheArray {
  readonly kind: "array";
  readonly items: MustacheNode[];
}

export interface MustacheObject {
  readonly kind: "object";
  /** Members in order; sorted in place when the object is written as JSON. */
  members: [string, MustacheNode][];
}

export function isContainer(node: MustacheNode): node is MustacheArray | MustacheObject {
  return node.kind === "array" || node.kind === "object";
}

/**
 * A tend JSON value as template data (objects in the value's own key
 * order). `numberText` writes numbers: by default close to the text they
 * were parsed from (data fresh from a file: a plain number in JavaScript's
 * shortest form), or as 3.21 holds a variable's reals (`jsonNumberText`).
 */
export function toMustacheNode(
  value: JsonValue,
  numberText: (n: number | BoxedNumber) => string = parsedNumberText,
): MustacheNode {
  if (value === null) return { kind: "null", text: "null" };
  if (typeof value === "string") return { kind: "string", text: value };
  if (typeof value === "boolean") return { kind: "boolean", text: String(value) };
  if (typeof value === "number")
    return { kind: Number.isInteger(value) ? "integer" : "real", text: numberText(value) };
  if (value instanceof BoxedNumber) return { kind: value.real ? "real" : "integer", text: numberText(value) };
  if (Array.isArray(value)) return { kind: "array", items: value.map((v) => toMustacheNode(v, numberText)) };
  return {
    kind: "object",
    members: Object.entries(value).map(([k, v]) => [k, toMustacheNode(v, numberText)]),
  };
}

/** A number as parsed: a plain number as JavaScript writes it, a boxed one as tend holds it. */
export function parsedNumberText(value: number | BoxedNumber): string {
  return typeof value === "number" ? String(value) : jsonNumberText(value);
}

/** An object's member by name (the first one, as a linear search finds it). */
export function memberOf(node: MustacheNode | null, key: string): MustacheNode | undefined {
  if (node?.kind !== "object") return undefined;
  return node.members.find(([name]) => name === key)?.[1];
}

function byteOrder(a: [string, MustacheNode], b: [string, MustacheNode]): number {
  return compareBytes(a[0], b[0]);
}

function primitiveJson(node: MustachePrimitive): string {
  return node.kind === "string" ? quoteJsonString(node.text) : node.text;
}

/** Multi-line JSON, two spaces per level (`{{%x}}`); sorts the objects it writes. */
export function writePrettyJson(node: MustacheNode, level = 0): string {
  const pad = (n: number) => "  ".repeat(n);
  if (node.kind === "array") {
    if (node.items.length === 0) return "[]";
    const items = node.items.map((item) =>
      isContainer(item)
        ? `${pad(level + 1)}${writePrettyJson(item, level + 1)}`
        : pad(level + 1) + primitiveJson(item),
    );
    return `[\n${items.join(",\n")}\n${pad(level)}]`;
  }
  if (node.kind === "object") {
    node.members.sort(byteOrder);
    const lines = node.members.map(
      ([key, value]) =>
        `${pad(level + 1)}"${key}": ${isContainer(value) ? writePrettyJson(value, level + 1) : primitiveJson(value)}`,
    );
    return `{\n${lines.join(",\n")}${lines.length ? "\n" : ""}${pad(level)}}`;
  }
  return pad(level) + primitiveJson(node);
}

/** One-line JSON (`{{$x}}`); sorts the objects it writes. */
export function writeCompactJson(node: MustacheNode): string {
  if (node.kind === "array") return `[${node.items.map(writeCompactJson).join(",")}]`;
  if (node.kind === "object") {
    node.members.sort(byteOrder);
    return `{${node.members.map(([k, v]) => `"${k}":${writeCompactJson(v)}`).join(",")}}`;
  }
  return primitiveJson(node);
}
