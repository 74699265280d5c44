/**
 * YAML read as Puppet reads Hiera's files: Ruby's Psych `safe_load` with
 * Symbol permitted (Puppet::Util::Yaml). Plain scalars are typed by Psych's
 * scalar scanner, which is YAML 1.1 with Ruby's own turns: `yes`/`no`/`on`/
 * `off` are booleans (`y`/`n` stay strings), `0755` is octal, `1_000` and
 * `1,000` are integers, `1:20` is base 60, a float needs a dot (`1e3` is a
 * string), `:x` is a Symbol (kept here as a `PSymbol`), and a date or time
 * is a class safe_load refuses. Quoted and block scalars are strings; `<<`
 * merges as Psych merges. An empty document is `false`, as Puppet has it.
 */
import { type Document, isAlias, isMap, isScalar, isSeq, type Node, parseDocument } from "yaml";
import { PHash, PObject, type PValue } from "../eval/values.js";

/** A Ruby Symbol read from YAML (`:name`): Hiera refuses it as data (not RichData). */
export class PSymbol extends PObject {
  readonly typeName = "Runtime[ruby, 'Symbol']";
  constructor(readonly name: string) {
    super();
  }
  toString(): string {
    return this.name;
  }
  equals(other: PValue): boolean {
    return other instanceof PSymbol && other.name === this.name;
  }
  hashKey(): string {
    return `:${this.name}`;
  }
}

/** A YAML text Psych would refuse: `message` is Psych's wording, without the file. */
export class PsychError extends Error {
  override readonly name = "PsychError";
}

const TIME =
  /^-?\d{4}-\d{1,2}-\d{1,2}(?:[Tt]|\s+)\d{1,2}:\d\d:\d\d(?:\.\d*)?(?:\s*(?:Z|[-+]\d{1,2}:?(?:\d\d)?))?$/;
const DATE = /^\d{4}-(?:1[012]|0\d|\d)-(?:[12]\d|3[01]|0\d|\d)$/;
const FLOAT = /^[-+]?(?:[0-9][0-9_,]*)?\.[0-9]*(?:[eE][-+][0-9]+)?$/;
const INTEGER =
  /^(?:[-+]?0b[0-1_,]+|[-+]?0[0-7_,]+|[-+]?(?:0|[1-9](?:[0-9]|,[0-9]|_[0-9])*)|[-+]?0x[0-9a-fA-F_,]+)$/;
const STRINGISH = /^[^\d.:-]?[\p{L}_\s!@#$%^&*(){}<>|/\\~;=]+/u;
const SEXAGESIMAL_INT = /^[-+]?[0-9][0-9_]*(:[0-5]?[0-9]){1,2}$/;
const SEXAGESIMAL_FLOAT = /^[-+]?[0-9][0-9_]*(:[0-5]?[0-9]){1,2}\.[0-9_]*$/;

/** What Psych's scalar scanner makes of a plain scalar. */
export function scanPlainScalar(text: string): PValue {
  if (text === "") return undefined;
  if (STRINGISH.test(text) || text.includes("\n")) {
    if (text.length > 5 || /^[^ytonf~]/i.test(text)) return text;
    if (text === "~" || /^null$/i.test(text)) return undefined;
    if (/^(yes|true|on)$/i.test(text)) return true;
    if (/^(no|false|off)$/i.test(text)) return false;
    return text;
  }
  if (TIME.test(text)) throw new PsychError("Tried to load unspecified class: Time");
  if (DATE.test(text)) throw new PsychError("Tried to load unspecified class: Date");
  if (/^\+?\.inf$/i.test(text)) return Number.POSITIVE_INFINITY;
  if (/^-\.inf$/i.test(text)) return Number.NEGATIVE_INFINITY;
  if (/^\.nan$/i.test(text)) return Number.NaN;
  if (/^:./.test(text)) {
    const quoted = /^:(["'])(.*)\1/.exec(text);
    return new PSymbol((quoted ? (quoted[2] ?? "") : text).replace(/^:/, ""));
  }
  if (SEXAGESIMAL_INT.test(text)) return sexagesimal(text, false);
  if (SEXAGESIMAL_FLOAT.test(text)) return sexagesimal(text, true);
  if (FLOAT.test(text)) return /^[-+]?\.$/.test(text) ? text : Number.parseFloat(text.replace(/[,_]/g, ""));
  if (INTEGER.test(text)) return parseRubyInteger(text.replace(/[,_]/g, ""));
  return text;
}

function sexagesimal(text: string, float: boolean): bigint | number {
  const parts = text.split(":");
  let total = 0;
  parts.forEach((part, i) => {
    const n = float ? Number.parseFloat(part.replace(/_/g, "")) : Number.parseInt(part.replace(/_/g, ""), 10);
    total += (Number.isNaN(n) ? 0 : n) * 60 ** Math.abs(i - 2);
  });
  return float ? total : BigInt(total);
}

/** Ruby's `Integer(text)`: `0x`, `0b`, a leading `0` for octal. */
function parseRubyInteger(text: string): bigint {
  const negative = text.startsWith("-");
  const body = text.replace(/^[-+]/, "");
  let value: bigint;
  if (/^0[xX]/.test(body)) value = BigInt(body);
  else if (/^0[bB]/.test(body)) value = BigInt(body);
  else if (/^0[0-7]+$/.test(body)) value = BigInt(`0o${body.slice(1)}`);
  else value = BigInt(body);
  return negative ? -value : value;
}

/** The value of a YAML text, or a PsychError worded as Psych words it. */
export function loadPsych(text: string): PValue {
  const simple = loadSimple(text);
  return simple === NOT_SIMPLE ? loadWithYamlPackage(text) : simple;
}

/** loadPsych through the yaml package alone (exported for the test that compares the two ways). */
export function loadWithYamlPackage(text: string): PValue {
  const doc = parseDocument(text, { schema: "failsafe", version: "1.1", uniqueKeys: false, merge: false });
  const error = doc.errors[0];
  if (error) throw new PsychError(describeYamlError(error.message, error.linePos?.[0]));
  if (doc.contents === null) return false;
  return toValue(doc, doc.contents as Node);
}

function describeYamlError(message: string, pos: { line: number; col: number } | undefined): string {
  const first = message.split("\n")[0] ?? message;
  return pos ? `${first} at line ${pos.line} column ${pos.col}` : first;
}

function toValue(doc: Document, node: Node): PValue {
  if (isAlias(node)) {
    const target = node.resolve(doc);
    if (!target) throw new PsychError(`Unknown alias: ${node.source}`);
    return toValue(doc, target as Node);
  }
  if (isScalar(node)) return scalarValue(node.value, node.type, node.tag);
  if (isSeq(node)) return node.items.map((item) => toValue(doc, item as Node));
  if (isMap(node)) return mappingValue(doc, node.items);
  return undefined;
}

function scalarValue(value: unknown, type: string | undefined, tag: string | undefined): PValue {
  const text = String(value ?? "");
  if (tag !== undefined && tag !== "!") return taggedScalar(text, tag);
  if (type !== "PLAIN") return text;
  return scanPlainScalar(text);
}

function taggedScalar(text: string, tag: string): PValue {
  switch (tag) {
    case "tag:yaml.org,2002:str":
      return text;
    case "tag:yaml.org,2002:int":
      return parseRubyInteger(text.replace(/[,_]/g, ""));
    case "tag:yaml.org,2002:float":
      return Number.parseFloat(text.replace(/[,_]/g, ""));
    case "tag:yaml.org,2002:null":
      return undefined;
    case "tag:yaml.org,2002:bool":
      return scanPlainScalar(text);
    case "tag:yaml.org,2002:binary":
      return Buffer.from(text.replace(/\s+/g, ""), "base64").toString("latin1");
    default:
      // Ruby classes are refused by safe_load; other tags leave the scalar to the scanner.
      if (tag.startsWith("!ruby/"))
        throw new PsychError(`Tried to load unspecified class: ${tag.replace(/^!ruby\/\w+:?/, "")}`);
      return scanPlainScalar(text);
  }
}

type Pair = { key: unknown; value: unknown };

function mappingValue(doc: Document, items: readonly unknown[]): PHash {
  const hash = new PHash();
  for (const item of items as Pair[]) {
    const keyNode = item.key as Node | null;
    const valueNode = item.value as Node | null;
    const isMergeKey = isScalar(keyNode) && keyNode.type === "PLAIN" && keyNode.value === "<<";
    const value = valueNode ? toValue(doc, valueNode) : undefined;
    if (isMergeKey && mergeInto(hash, value)) continue;
    const key = keyNode ? toValue(doc, keyNode) : undefined;
    hash.set(key, value);
  }
  return hash;
}

/** Psych's `<<`: a mapping, or a sequence of mappings (earlier ones win), merged in place. */
function mergeInto(hash: PHash, value: PValue): boolean {
  if (value instanceof PHash) {
    for (const [k, v] of value) hash.set(k, v);
    return true;
  }
  if (Array.isArray(value) && value.every((v) => v instanceof PHash)) {
    for (const h of [...value].reverse() as PHash[]) for (const [k, v] of h) hash.set(k, v);
    return true;
  }
  return false;
}

// --- a fast path for the plain YAML of most Hiera files ----------------------------------
//
// Hiera's files are mostly block mappings and sequences of one-line scalars.
// The yaml package composes a whole document model first, and its code runs
// cold in a short compile: ~15 ms for the few small files of a module node.
// `loadSimple` reads that plain subset itself and gives up (NOT_SIMPLE) on
// anything else — flow collections, anchors, tags, block or multi-line
// scalars, escapes in double quotes, merge keys, quoted keys, tabs, errors
// of any kind — which then go to the yaml package, so that the result and
// every message stay the package's. Scalars are typed by the same scanner.

const NOT_SIMPLE = Symbol("not simple YAML");

/** What no simple document holds: control characters, YAML 1.1's other line breaks, a BOM, tabs, `\r` alone. */
const UNUSUAL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u0085\u2028\u2029\ufeff\t]|\r(?!\n)/;

interface SimpleLine {
  indent: number;
  text: string;
}

function simpleLines(text: string): SimpleLine[] | undefined {
  if (UNUSUAL.test(text)) return undefined;
  const lines: SimpleLine[] = [];
  let started = false;
  for (const raw of text.split("\n")) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    let indent = 0;
    while (line.charCodeAt(indent) === 32) indent++;
    const rest = line.slice(indent).trimEnd();
    if (rest === "" || rest.startsWith("#")) continue;
    if (indent === 0 && (rest.startsWith("---") || rest.startsWith("...") || rest.startsWith("%"))) {
      if (rest !== "---" || started || lines.length > 0) return undefined;
      started = true;
      continue;
    }
    lines.push({ indent, text: rest });
  }
  return lines;
}

function isSequenceItem(text: string): boolean {
  return text === "-" || text.startsWith("- ");
}

/** Where a `key: value` line's separator is (a colon then a space or the end), or -1. */
function pairColon(text: string): number {
  for (let i = text.indexOf(":"); i !== -1; i = text.indexOf(":", i + 1)) {
    if (i === text.length - 1 || text.charCodeAt(i + 1) === 32) return i;
  }
  return -1;
}

/** An item of a one-line flow sequence: quoted without escapes, or a plain word. */
const FLOW_ITEM = `(?:'[^']*'|"[^"\\\\]*"|[A-Za-z0-9_/][A-Za-z0-9_./-]*)`;
const FLOW_SEQUENCE = new RegExp(`^\\[ *(?:${FLOW_ITEM} *(?:, *${FLOW_ITEM} *)*)?\\]$`);
const FLOW_ITEMS = new RegExp(FLOW_ITEM, "g");

/** `[]`, `{}` and `[ 'a', "b", c ]` alone on their line; NOT_SIMPLE for any other flow collection. */
function simpleFlow(text: string): PValue | typeof NOT_SIMPLE {
  if (text === "{}") return new PHash();
  if (!FLOW_SEQUENCE.test(text)) return NOT_SIMPLE;
  const items: PValue[] = [];
  for (const [item] of text.slice(1, -1).matchAll(FLOW_ITEMS)) {
    const value = simpleScalar(item);
    if (value === NOT_SIMPLE) return NOT_SIMPLE;
    items.push(value);
  }
  return items;
}

/** A one-line scalar: plain, or quoted without escapes; NOT_SIMPLE for anything else. */
function simpleScalar(text: string): PValue | typeof NOT_SIMPLE {
  const first = text.charAt(0);
  if (first === "[" || first === "{") return simpleFlow(text);
  if (first === "'" || first === '"') {
    let end = -1;
    for (let i = 1; i < text.length; i++) {
      const c = text.charAt(i);
      if (first === '"' && c === "\\") return NOT_SIMPLE;
      if (c !== first) continue;
      if (first === "'" && text.charAt(i + 1) === "'") {
        i++;
        continue;
      }
      end = i;
      break;
    }
    if (end === -1) return NOT_SIMPLE;
    const after = text.slice(end + 1);
    if (after !== "" && !/^ +#/.test(after)) return NOT_SIMPLE;
    const inner = text.slice(1, end);
    return first === "'" ? inner.replace(/''/g, "'") : inner;
  }
  if ("[]{},&*!|>%@`#?".includes(first) || first === "" || text.startsWith("- ") || text === "-") {
    return NOT_SIMPLE;
  }
  if (text.startsWith(": ") || text === ":") return NOT_SIMPLE;
  const comment = text.indexOf(" #");
  const plain = comment === -1 ? text : text.slice(0, comment).trimEnd();
  if (pairColon(plain) !== -1) return NOT_SIMPLE;
  return scanPlainScalar(plain);
}

class SimpleReader {
  i = 0;
  constructor(readonly lines: SimpleLine[]) {}

  node(indent: number): PValue | typeof NOT_SIMPLE {
    const line = this.lines[this.i];
    if (line === undefined || line.indent !== indent) return NOT_SIMPLE;
    return isSequenceItem(line.text) ? this.sequence(indent) : this.mapping(indent);
  }

  private deeper(indent: number): boolean {
    const next = this.lines[this.i];
    return next !== undefined && next.indent > indent;
  }

  mapping(indent: number): PValue | typeof NOT_SIMPLE {
    const hash = new PHash();
    for (
      let line = this.lines[this.i];
      line !== undefined && line.indent === indent;
      line = this.lines[this.i]
    ) {
      const text = line.text;
      if (isSequenceItem(text)) return NOT_SIMPLE;
      const colon = pairColon(text);
      if (colon <= 0) return NOT_SIMPLE;
      const keyText = text.slice(0, colon).trimEnd();
      if (keyText === "<<" || keyText.includes(" #")) return NOT_SIMPLE;
      const key = simpleScalar(keyText);
      if (key === NOT_SIMPLE || keyText.charAt(0) === "'" || keyText.charAt(0) === '"') return NOT_SIMPLE;
      const valueText = text.slice(colon + 1).trim();
      this.i++;
      let value: PValue | typeof NOT_SIMPLE;
      if (valueText === "" || valueText.startsWith("#")) {
        const next = this.lines[this.i];
        if (next !== undefined && next.indent > indent) value = this.node(next.indent);
        else if (next !== undefined && next.indent === indent && isSequenceItem(next.text))
          value = this.sequence(indent);
        else value = undefined;
      } else {
        value = simpleScalar(valueText);
        if (this.deeper(indent)) return NOT_SIMPLE;
      }
      if (value === NOT_SIMPLE) return NOT_SIMPLE;
      hash.set(key, value);
    }
    return this.deeper(indent) ? NOT_SIMPLE : hash;
  }

  sequence(indent: number): PValue | typeof NOT_SIMPLE {
    const items: PValue[] = [];
    for (
      let line = this.lines[this.i];
      line !== undefined && line.indent === indent && isSequenceItem(line.text);
      line = this.lines[this.i]
    ) {
      const after = line.text.slice(1);
      const item = after.trimStart();
      let value: PValue | typeof NOT_SIMPLE;
      if (item === "" || item.startsWith("#")) {
        this.i++;
        value = this.deeper(indent) ? this.node((this.lines[this.i] as SimpleLine).indent) : undefined;
      } else if (isSequenceItem(item)) {
        return NOT_SIMPLE;
      } else if (pairColon(item) > 0) {
        // `- key: value`, the item's mapping going on at the key's column.
        this.lines[this.i] = { indent: indent + 1 + after.length - item.length, text: item };
        value = this.mapping(indent + 1 + after.length - item.length);
      } else {
        value = simpleScalar(item);
        this.i++;
        if (this.deeper(indent)) return NOT_SIMPLE;
      }
      if (value === NOT_SIMPLE) return NOT_SIMPLE;
      items.push(value);
    }
    return this.deeper(indent) ? NOT_SIMPLE : items;
  }
}

/** The value of a simple YAML text, or NOT_SIMPLE when the yaml package must read it. */
function loadSimple(text: string): PValue | typeof NOT_SIMPLE {
  const whole = /^(?:--- +)?(\{\}|\[\])\s*$/.exec(text);
  if (whole) return whole[1] === "{}" ? new PHash() : [];
  const lines = simpleLines(text);
  if (lines === undefined) return NOT_SIMPLE;
  if (lines.length === 0) return NOT_SIMPLE;
  try {
    const reader = new SimpleReader(lines);
    const value = reader.node((lines[0] as SimpleLine).indent);
    return reader.i === lines.length ? value : NOT_SIMPLE;
  } catch {
    // A scalar Psych refuses (a date...): the yaml package's path words the error.
    return NOT_SIMPLE;
  }
}
