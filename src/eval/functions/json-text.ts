/**
 * JSON text as 3.21 reads and writes it. Its parser is lenient: it stops
 * after the first value (trailing text is ignored), takes commas and colons as optional,
 * accepts unquoted object keys and keeps `\uXXXX` escapes as written. Its
 * writer sorts object keys, indents by two spaces, writes an empty object
 * as `{` newline `}` and leaves non-ASCII text unescaped.
 */
import { toMustacheNode, writeCompactJson, writePrettyJson } from "../mustache/json-model.js";
import { findUnstorableJsonNumber } from "../../language/validate/json-numbers.js";
import { jsonNumberText, parsedJsonNumber } from "../json-numbers.js";
import { type JsonValue, isJsonContainer } from "../values.js";

/**
 * Resolves a bare variable reference met where a value should be
 * (`[ x, bundle.y[k] ]`), as 3.21's inline JSON allows; undefined when the
 * variable does not exist.
 */
export type JsonLookup = (reference: string) => JsonValue | undefined;

/** Parses the first JSON value of `text`; undefined when there is none. */
export function parseJsonText(
  text: string,
  lookup?: JsonLookup,
  options: JsonReadOptions = {},
): JsonValue | undefined {
  const parser = new LenientParser(text, lookup, options.keepNumberText === true);
  try {
    return parser.value();
  } catch {
    return undefined;
  }
}

/**
 * `keepNumberText`: numbers keep the text they are written with, as inline
 * JSON handed straight to a function does in 3.21 (see json-numbers.ts);
 * otherwise they are as a variable holds them.
 */
export interface JsonReadOptions {
  readonly keepNumberText?: boolean;
}

/**
 * 3.21's message for a number of parsed JSON text it cannot store (an
 * integer with an exponent or beyond 64 bits, see validate/json-numbers.ts),
 * which stops cf-agent; undefined for almost all text after one quick test.
 */
export function unstorableNumberIn(text: string): string | undefined {
  return MAYBE_UNSTORABLE.test(text) ? findUnstorableJsonNumber(text) : undefined;
}

const MAYBE_UNSTORABLE = /\d[eE]|\d{19}/;

/** Like `parseJsonText`, but only an array or an object counts. */
export function parseJsonContainer(
  text: string,
  lookup?: JsonLookup,
  options: JsonReadOptions = {},
): JsonValue | undefined {
  const parsed = parseJsonText(text, lookup, options);
  return isJsonContainer(parsed) ? parsed : undefined;
}

/**
 * How deep JSON text may nest. cf-agent reads deeper; tend refuses such
 * text as not JSON, so that every recursive walk over a container (sorting,
 * writing, merging) stays within the stack.
 */
export const MAX_JSON_DEPTH = 1000;

class LenientParser {
  private at = 0;
  private depth = 0;
  constructor(
    private readonly text: string,
    private readonly lookup?: JsonLookup,
    private readonly keepNumberText = false,
  ) {}

  value(): JsonValue {
    this.skipSpace();
    const ch = this.text[this.at];
    if (ch === "{" || ch === "[") {
      if (++this.depth > MAX_JSON_DEPTH) throw new Error(`nested deeper than ${MAX_JSON_DEPTH} levels`);
      const container = ch === "{" ? this.object() : this.array();
      this.depth--;
      return container;
    }
    if (ch === '"') return this.string();
    return this.primitive();
  }

  private object(): JsonValue {
    const out: Record<string, JsonValue> = {};
    this.at++;
    for (;;) {
      this.skipSpace();
      if (this.text[this.at] === "}") return this.step(out);
      const key = this.text[this.at] === '"' ? this.string() : this.bareKey();
      this.skipSpace();
      // 3.21 takes the colon as optional, like the comma.
      if (this.text[this.at] === ":") this.at++;
      out[key] = this.value();
      if (this.separator("}")) return out;
    }
  }

  private array(): JsonValue {
    const out: JsonValue[] = [];
    this.at++;
    for (;;) {
      this.skipSpace();
      if (this.text[this.at] === "]") return this.step(out);
      out.push(this.value());
      if (this.separator("]")) return out;
    }
  }

  /** After a member: true at the closing bracket; the comma is optional, as 3.21 has it. */
  private separator(close: string): boolean {
    this.skipSpace();
    const ch = this.text[this.at];
    if (ch === close) return this.step(true);
    if (ch === ",") this.at++;
    else if (ch === undefined) throw new Error(`expected '${close}'`);
    return false;
  }

  private step<T>(value: T): T {
    this.at++;
    return value;
  }

  private bareKey(): string {
    const match = /^[^\s:,{}[\]"]+/.exec(this.text.slice(this.at));
    if (!match) throw new Error("expected a key");
    this.at += match[0].length;
    return match[0];
  }

  private string(): string {
    let out = "";
    for (this.at++; this.at < this.text.length; this.at++) {
      const ch = this.text[this.at];
      if (ch === '"') return this.step(out);
      if (ch !== "\\") {
        out += ch;
        continue;
      }
      const next = this.text[++this.at];
      // 3.21 keeps `\uXXXX` as written.
      if (next === "u") out += "\\u";
      else out += ESCAPES[next] ?? next;
    }
    throw new Error("unterminated string");
  }

  private primitive(): JsonValue {
    const match = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(?![\w.])/.exec(
      this.text.slice(this.at),
    );
    if (!match) return this.reference();
    this.at += match[0].length;
    if (match[0] === "null") return null;
    if (match[0] === "true" || match[0] === "false") return match[0] === "true";
    return parsedJsonNumber(match[0], this.keepNumberText);
  }

  /** A bare variable reference, resolved by the lookup. */
  private reference(): JsonValue {
    const match = /^(?:[a-zA-Z0-9_]+\.)?[a-zA-Z0-9._]+(?:\[[^[\]]+\])?/.exec(this.text.slice(this.at));
    const found = match && this.lookup ? this.lookup(match[0]) : undefined;
    if (!match || found === undefined) throw new Error("expected a value");
    this.at += match[0].length;
    return found;
  }

  private skipSpace(): void {
    while (/\s/.test(this.text[this.at] ?? "")) this.at++;
  }
}

const ESCAPES: Record<string, string> = { b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/**
 * Pretty JSON as `storejson` writes it (3.21's JsonWrite: members sorted
 * by byte order, keys written unescaped, two spaces per level).
 */
export function renderPrettyJson(json: JsonValue): string {
  sortMembersInPlace(json);
  return writePrettyJson(toMustacheNode(json, jsonNumberText));
}

/** One-line JSON as `format("%S")` and string() write it (members sorted, keys unescaped). */
export function renderCompactJson(json: JsonValue): string {
  sortMembersInPlace(json);
  return writeCompactJson(toMustacheNode(json, jsonNumberText));
}

/**
 * 3.21 sorts an object's members in place when it writes it as JSON, so a
 * container listed after it was printed (getindices, a mustache section)
 * shows its keys sorted. Writing sorts tend's object the same way.
 */
function sortMembersInPlace(json: JsonValue): void {
  if (!isJsonContainer(json)) return;
  if (Array.isArray(json)) {
    for (const item of json) sortMembersInPlace(item);
    return;
  }
  const entries = Object.entries(json).sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  for (const [key] of entries) delete json[key];
  for (const [key, value] of entries) {
    json[key] = value;
    sortMembersInPlace(value);
  }
}
