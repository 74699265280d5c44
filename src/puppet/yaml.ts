/**
 * YAML written as Ruby's Psych (over libyaml) writes it, for Puppet's
 * report files: block mappings indented by two, sequences in a mapping not
 * indented, `nil` as nothing, strings plain where libyaml allows it, else
 * quoted as Psych chooses (double quotes for text starting with a
 * non-word character, single quotes for text that would read as another
 * type), long lines folded at spaces past column 80, text of several lines
 * as a literal block. Tools that read Puppet's reports read these; the
 * bytes follow Psych's closely so that a diff against Puppet's is small.
 */

/** What can be written: JSON's values (undefined is written as nil too). */
export type YamlValue =
  | string
  | number
  | boolean
  | null
  | undefined
  | readonly YamlValue[]
  | { readonly [key: string]: YamlValue };

const BEST_WIDTH = 80;

/** Where the emitter writes its text, piece by piece, in order. */
export type YamlOut = (text: string) => void;

/** A YAML document (`--- TAG` then the value), ending with a newline. */
export function dumpYaml(value: YamlValue, tag?: string): string {
  const parts: string[] = [];
  writeYaml(value, (text) => parts.push(text), tag);
  return parts.join("");
}

/** A YAML document written to `out` as it is made: nothing but the pieces is held. */
export function writeYaml(value: YamlValue, out: YamlOut, tag?: string): void {
  const head = tag ? `--- ${tag}` : "---";
  if (isMapping(value) && !isEmptyCollection(value)) {
    out(`${head}\n`);
    writeMapping(value, 0, out);
  } else if (Array.isArray(value) && value.length > 0) {
    out(`${head}\n`);
    writeSequence(value, 0, out);
  } else out(`${head} ${scalar(value, head.length + 1, 0)}\n`);
}

function isMapping(value: YamlValue): value is { readonly [key: string]: YamlValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isEmptyCollection(value: YamlValue): boolean {
  if (Array.isArray(value)) return value.length === 0;
  return isMapping(value) && Object.keys(value).length === 0;
}

const PADS: string[] = [];

/** `indent` spaces, made once per width. */
function pad(indent: number): string {
  let text = PADS[indent];
  if (text === undefined) {
    text = " ".repeat(indent);
    PADS[indent] = text;
  }
  return text;
}

/**
 * The entries of a block mapping at `indent`, each line ending with a
 * newline. Entries written by several calls at the same indent make one
 * mapping: a document can be written a part at a time.
 */
export function writeMapping(
  value: { readonly [key: string]: YamlValue },
  indent: number,
  out: YamlOut,
  firstInline = false,
): void {
  let first = firstInline;
  for (const key of Object.keys(value)) {
    const keyText = scalar(key, indent, indent);
    out(first ? `${keyText}:` : `${pad(indent)}${keyText}:`);
    first = false;
    valueAfterKey(value[key], indent, indent + keyText.length + 1, out);
  }
}

/** What follows `key:`: a scalar on the same line, or a nested block on the next. */
function valueAfterKey(item: YamlValue, indent: number, column: number, out: YamlOut): void {
  if (item === null || item === undefined) out("\n");
  else if (isEmptyCollection(item)) out(Array.isArray(item) ? " []\n" : " {}\n");
  else if (Array.isArray(item)) {
    out("\n");
    writeSequence(item, indent, out);
  } else if (isMapping(item)) {
    out("\n");
    writeMapping(item, indent + 2, out);
  } else out(` ${scalar(item, column + 1, indent + 2)}\n`);
}

/**
 * A block sequence at `indent`; `firstInline` when its first `- ` follows a
 * `- ` already written. Items written by several calls make one sequence.
 */
export function writeSequence(
  items: readonly YamlValue[],
  indent: number,
  out: YamlOut,
  firstInline = false,
): void {
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    const dash = index === 0 && firstInline ? "-" : `${pad(indent)}-`;
    if (item === null || item === undefined) out(`${dash}\n`);
    else if (isEmptyCollection(item)) out(Array.isArray(item) ? `${dash} []\n` : `${dash} {}\n`);
    else if (Array.isArray(item)) {
      out(`${dash} `);
      writeSequence(item, indent + 2, out, true);
    } else if (isMapping(item)) {
      out(`${dash} `);
      writeMapping(item, indent + 2, out, true);
    } else out(`${dash} ${scalar(item, indent + 2, indent + 2)}\n`);
  }
}

/** A value written on its key's line. */
export type YamlScalar = string | number | boolean | null | undefined;

/**
 * One `key: value` line of a block mapping at `indent`, as writeMapping
 * writes it, made without a mapping object: for documents of many
 * records (a report's statuses). The key must be a word YAML writes plain
 * (`title`, `out_of_sync`); `lead` replaces the indentation (`- ` for the
 * first entry of a mapping in a sequence).
 */
export function scalarEntry(indent: number, key: string, value: YamlScalar, lead = pad(indent)): string {
  if (value === null || value === undefined) return `${lead}${key}:\n`;
  if (typeof value === "boolean") return value ? `${lead}${key}: true\n` : `${lead}${key}: false\n`;
  if (typeof value === "number") return `${lead}${key}: ${rubyNumber(value)}\n`;
  return `${lead}${key}: ${stringScalar(value, indent + key.length + 2, indent + 2)}\n`;
}

/**
 * The `key: value` line of scalarEntry for a key whose value often stays
 * the same from one record to the next (a type, a provider, a time to the
 * millisecond, the manifest's path): the last line is kept and given
 * again while the value does not change. One per key and document.
 */
export class RepeatedEntry {
  private last: YamlScalar = undefined;
  private lastLine: string;

  constructor(
    private readonly indent: number,
    private readonly key: string,
    private readonly lead = pad(indent),
  ) {
    this.lastLine = `${lead}${key}:\n`;
  }

  line(value: YamlScalar): string {
    if (value === this.last) return this.lastLine;
    this.last = value;
    this.lastLine = scalarEntry(this.indent, this.key, value, this.lead);
    return this.lastLine;
  }
}

/**
 * stringsEntry for a key whose items often stay the same from one record
 * to the next (tags, the containment path but its last item): each
 * position keeps its last item's line.
 */
export class RepeatedStrings {
  private readonly items: string[] = [];
  private readonly lines: string[] = [];
  private readonly lead: string;
  private readonly head: string;
  private readonly empty: string;

  constructor(
    private readonly indent: number,
    key: string,
  ) {
    this.lead = pad(indent);
    this.head = `${this.lead}${key}:\n`;
    this.empty = `${this.lead}${key}: []\n`;
  }

  entry(items: readonly string[]): string {
    if (items.length === 0) return this.empty;
    let text = this.head;
    for (let i = 0; i < items.length; i++) {
      const item = items[i] as string;
      if (this.items[i] !== item) {
        this.items[i] = item;
        this.lines[i] = `${this.lead}- ${stringScalar(item, this.indent + 2, this.indent + 2)}\n`;
      }
      text += this.lines[i];
    }
    return text;
  }
}

/** `key:` and a sequence of strings under it at `indent` (`key: []` when empty), as writeMapping writes it. */
export function stringsEntry(indent: number, key: string, items: readonly string[]): string {
  const lead = pad(indent);
  if (items.length === 0) return `${lead}${key}: []\n`;
  let text = `${lead}${key}:\n`;
  for (const item of items) text += `${lead}- ${scalar(item, indent + 2, indent + 2)}\n`;
  return text;
}

/** A scalar starting at `column`; continuation lines are indented by `indent`. */
export function scalar(value: YamlValue, column: number, indent: number): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") return rubyNumber(value);
  if (typeof value !== "string") return "";
  return stringScalar(value, column, indent);
}

/** A number as Ruby prints it: integers bare, floats with `.0` or `e-05`. */
export function rubyNumber(value: number): string {
  if (Number.isInteger(value) && !Object.is(value, -0) && Math.abs(value) < 1e16) {
    return String(value);
  }
  if (!Number.isFinite(value)) return Number.isNaN(value) ? ".nan" : value > 0 ? ".inf" : "-.inf";
  const abs = Math.abs(value);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e16)) {
    // `3.5e-5` (JavaScript) is `3.5e-05` (Ruby): a report's evaluation times, one per resource.
    const text = value.toExponential();
    const e = text.indexOf("e");
    const mantissa = text.slice(0, e);
    const digits = text.slice(e + 2);
    return `${mantissa.includes(".") ? mantissa : `${mantissa}.0`}e${text[e + 1]}${digits.length < 2 ? `0${digits}` : digits}`;
  }
  const text = String(value);
  return text.includes(".") ? text : `${text}.0`;
}

type Style = "plain" | "single" | "double" | "literal";

/**
 * The last text found plain, with no space (written as it is wherever it
 * starts): a status's reference comes three times in a row (its key, its
 * `resource`, the end of its containment path).
 */
let lastPlainWord = "";

function stringScalar(text: string, column: number, indent: number): string {
  if (text === lastPlainWord) return text;
  // Messages: plain, and written as they are (no character outside ASCII to count as one column).
  if (isPlainAscii(text)) {
    if (text.indexOf(" ") === -1) {
      lastPlainWord = text;
      return text;
    }
    return column + text.length <= BEST_WIDTH ? text : foldAsIs(text, column, indent);
  }
  const style = styleOf(text);
  if (style === "literal") return literal(text, indent);
  // Most scalars are short or have no space: nothing to fold, nothing to escape.
  const unfolded = text.indexOf(" ") === -1 || column + text.length <= BEST_WIDTH;
  if (style === "double") {
    return unfolded && !DOUBLE_ESCAPED.test(text) ? `"${text}"` : doubleQuoted(text, column, indent);
  }
  if (style === "single") {
    return unfolded && !text.includes("'") ? `'${text}'` : singleQuoted(text, column, indent);
  }
  return unfolded ? text : plain(text, column, indent);
}

/** What doubleQuoted writes other than as itself. */
const DOUBLE_ESCAPED = /[\u0000-\u001f"\\\u007f\u0085\u00a0\u2028\u2029\ufeff]/;

/** Styles of the texts seen: keys, tags, levels and paths come again and again. */
const STYLES = new Map<string, Style>();
const STYLES_KEPT = 4096;

/** Longer than five characters, a word start, no space, colon, quote or indicator: plain, as chooseStyle says. */
const PLAIN_WORDS = /^[A-Za-z_][\w[\]/.-]{5,}$/;

/**
 * Text chooseStyle finds plain without looking further: more than five
 * characters, the first an ASCII letter (no other type reads so), all
 * printable ASCII (nothing libyaml escapes, no tab), with no `: `, `:` at
 * the end, ` #` or space at the end (what libyaml's analysis refuses).
 * Log and event messages are such, one of each per resource in a first run.
 */
const PLAIN_ASCII = /^[A-Za-z][ -~]{5,}$/;
const NOT_PLAIN = /: |:$| #| $/;
/**
 * Shorter words are plain too, but those that read as booleans or null;
 * and versions of three numbers or more (`7.23.0`: no float, no octal).
 * Keys and a summary's values are such: a run that meets nothing else
 * never compiles the analysis's regular expressions (~1.5 ms at start).
 */
const SHORT_WORD = /^[A-Za-z][A-Za-z0-9_]{0,4}$/;
const BOOLEANISH = /^(?:y|n|yes|no|on|off|true|false|null)$/i;
const VERSION = /^[1-9]\d*(?:\.\d+){2,}$/;
/**
 * A UUID in lower case (a report's transaction_uuid and catalog_uuid):
 * plain, as chooseStyle finds it, but one that starts with `0` (read as
 * an octal number when an 8 or 9 follows the first digits: quoted), which
 * isPlainAscii leaves to the analysis. Six runs in ten start with a digit,
 * and the analysis compiles its regular expressions for it (~0.8 ms).
 */
const UUID = /^[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}$/;

export function isPlainAscii(text: string): boolean {
  // Each form starts with a letter or a digit: paths, quotes, braces need no regular expression.
  const first = text.charCodeAt(0) | 0x20;
  if ((first < 0x61 || first > 0x7a) && (first < 0x31 || first > 0x39)) return false;
  if (PLAIN_ASCII.test(text)) return !NOT_PLAIN.test(text);
  if (SHORT_WORD.test(text)) return !BOOLEANISH.test(text);
  return VERSION.test(text) || UUID.test(text);
}

/** A time as the report writes them (`2026-11-27T00:40:16.733011005+00:00`): one form of readsAsOtherType's timestamps. */
export const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+[-+]\d\d:\d\d$/;

function styleOf(text: string): Style {
  // Paths and references, unique in each record, skip the analysis (and the cache):
  // a word that cannot read as another type is plain, a path is double-quoted.
  if (PLAIN_WORDS.test(text)) return "plain";
  if (text.charCodeAt(0) === 0x2f && !text.includes("\n") && !text.includes('"')) return "double";
  // The report's times (new every millisecond) read as timestamps: single-quoted, as chooseStyle says.
  if (ISO_TIME.test(text)) return "single";
  let style = STYLES.get(text);
  if (style === undefined) {
    style = chooseStyle(text);
    if (STYLES.size >= STYLES_KEPT) STYLES.clear();
    STYLES.set(text, style);
  }
  return style;
}

/** Psych's choice of style, then libyaml's veto of plain text it could not read back (exported for the tests). */
export function chooseStyle(text: string): Style {
  if (/\n(?!$)/.test(text)) return "literal";
  if (text === "y" || text === "n") return "double";
  if (/^[^\p{L}\p{N}_][^"]*$/u.test(text)) return "double";
  if (readsAsOtherType(text)) return needsDouble(text) ? "double" : "single";
  if (!plainAllowed(text)) return needsDouble(text) ? "double" : "single";
  return "plain";
}

/** Characters libyaml writes only in double quotes. */
function needsDouble(text: string): boolean {
  return /[\u0000-\u0008\u000b-\u001f\u007f\u0085\u2028\u2029\ufeff]|\n/.test(text);
}

/** Whether Psych's scalar scanner would read the text as something other than a string. */
function readsAsOtherType(text: string): boolean {
  if (text === "") return true;
  if (/^[^\d.:-]?[\p{L}_\s!@#$%^&*(){}<>|/\\~;=]+/u.test(text)) {
    if (text.length > 5 || /^[^ytonf~]/i.test(text)) return false;
    return /^(~|null|yes|true|on|no|false|off)$/i.test(text);
  }
  if (
    /^-?\d{4}-\d{1,2}-\d{1,2}(?:[Tt]|\s+)\d{1,2}:\d\d:\d\d(?:\.\d*)?(?:\s*(?:Z|[-+]\d{1,2}:?(?:\d\d)?))?$/.test(
      text,
    )
  )
    return true;
  if (/^\d{4}-(?:1[012]|0\d|\d)-(?:[12]\d|3[01]|0\d|\d)$/.test(text)) return true;
  if (/^[-+]?\.(inf|nan)$/i.test(text) || /^:./.test(text)) return true;
  if (/^[-+]?[0-9][0-9_]*(:[0-5]?[0-9]){1,2}(\.[0-9_]*)?$/.test(text)) return true;
  if (/^(?:[-+]?([0-9][0-9_,]*)?\.[0-9]*([eE][-+][0-9]+)?)$/.test(text) && !/^[-+]?\.$/.test(text))
    return true;
  if (
    /^(?:[-+]?0b[0-1_,]+|[-+]?0[0-7_,]+|[-+]?(?:0|[1-9](?:[0-9]|,[0-9]|_[0-9])*)|[-+]?0x[0-9a-fA-F_,]+)$/.test(
      text,
    )
  )
    return true;
  return /^0[0-7]*[89]/.test(text);
}

/** libyaml's analysis: may the text be written plain in a block context? */
function plainAllowed(text: string): boolean {
  if (/^\s|\s$/.test(text)) return false;
  if (/^[-?:,[\]{}#&*!|>'"%@`]/.test(text)) {
    if (!/^[-?:]/.test(text) || text.length === 1 || /^[-?:]\s/.test(text)) return false;
  }
  if (text.startsWith("---") || text.startsWith("...")) return false;
  if (/: |:$| #/.test(text)) return false;
  if (/\t/.test(text)) return false;
  return !needsDouble(text);
}

/** Plain text, folded at a space once past the best width. */
function plain(text: string, column: number, indent: number): string {
  return SURROGATE.test(text) ? fold(text, column, indent, (c) => c) : foldAsIs(text, column, indent);
}

function singleQuoted(text: string, column: number, indent: number): string {
  if (!text.includes("'") && !SURROGATE.test(text)) return `'${foldAsIs(text, column + 1, indent)}'`;
  return `'${fold(text, column + 1, indent, (c) => (c === "'" ? "''" : c))}'`;
}

/** A character outside the Basic Multilingual Plane (two UTF-16 units, one column). */
const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * fold() of text written as it is, one column per UTF-16 unit (no
 * surrogate pairs): the same breaks, found from the spaces alone. Log
 * messages and event messages past the best width come through here by
 * the thousand in a first run.
 */
function foldAsIs(text: string, column: number, indent: number): string {
  // Nothing breaks before the first space past the best width: a message
  // whose spaces all come early (`defined content as '{sha256}…'`) is kept
  // as it is without a look at each character.
  if (text.indexOf(" ", Math.max(1, BEST_WIDTH - column + 1)) === -1) return text;
  const last = text.length - 1;
  let out = "";
  let start = 0;
  let col = column;
  let previousSpace = false;
  for (let i = 0; i <= last; i++) {
    if (text.charCodeAt(i) !== 0x20) {
      previousSpace = false;
      col += 1;
      continue;
    }
    if (!previousSpace && col > BEST_WIDTH && i !== 0 && i !== last && text.charCodeAt(i + 1) !== 0x20) {
      out += `${text.slice(start, i)}\n${pad(indent)}`;
      start = i + 1;
      col = indent;
    } else col += 1;
    previousSpace = true;
  }
  return start === 0 ? text : out + text.slice(start);
}

/**
 * Writes `text` char by char, breaking at a single space (not the first
 * or last character, not before another space) when past the best width,
 * as libyaml's writers do; the break replaces the space.
 */
function fold(text: string, column: number, indent: number, escapeChar: (c: string) => string): string {
  const chars = [...text];
  let out = "";
  let col = column;
  let previousSpace = false;
  for (const [i, c] of chars.entries()) {
    if (c === " ") {
      const next = chars[i + 1];
      if (!previousSpace && col > BEST_WIDTH && i !== 0 && i !== chars.length - 1 && next !== " ") {
        out += `\n${" ".repeat(indent)}`;
        col = indent;
      } else {
        out += " ";
        col += 1;
      }
      previousSpace = true;
      continue;
    }
    previousSpace = false;
    const written = escapeChar(c);
    out += written;
    col += written.length;
  }
  return out;
}

const DOUBLE_ESCAPES: Readonly<Record<string, string>> = {
  "\0": "\\0",
  "\u0007": "\\a",
  "\b": "\\b",
  "\t": "\\t",
  "\n": "\\n",
  "\u000b": "\\v",
  "\f": "\\f",
  "\r": "\\r",
  "\u001b": "\\e",
  '"': '\\"',
  "\\": "\\\\",
  "\u0085": "\\N",
  "\u00a0": "\\_",
  "\u2028": "\\L",
  "\u2029": "\\P",
};

function doubleQuoted(text: string, column: number, indent: number): string {
  const chars = [...text];
  let out = '"';
  let col = column + 1;
  let previousSpace = false;
  for (const [i, c] of chars.entries()) {
    if (c === " ") {
      if (!previousSpace && col > BEST_WIDTH && i !== 0 && i !== chars.length - 1) {
        out += `\n${" ".repeat(indent)}`;
        col = indent;
        if (chars[i + 1] === " ") {
          out += "\\";
          col += 1;
        }
      } else {
        out += " ";
        col += 1;
      }
      previousSpace = true;
      continue;
    }
    previousSpace = false;
    const code = c.codePointAt(0) ?? 0;
    let written = c;
    if (Object.hasOwn(DOUBLE_ESCAPES, c)) written = DOUBLE_ESCAPES[c];
    else if (code < 0x20 || code === 0x7f || code === 0xfeff)
      written = `\\x${code.toString(16).toUpperCase().padStart(2, "0")}`;
    out += written;
    col += written.length;
  }
  return `${out}"`;
}

/** Text of several lines as a literal block (`|-`, `|` or `|+` for its trailing newlines). */
function literal(text: string, indent: number): string {
  const trailing = /\n*$/.exec(text)?.[0].length ?? 0;
  const chomp = trailing === 0 ? "-" : trailing === 1 ? "" : "+";
  const indicator = /^[ \n]/.test(text) ? "2" : "";
  const body = trailing === 0 ? text : text.slice(0, text.length - (trailing === 1 ? 1 : 0));
  const lines = body.split("\n");
  if (chomp === "+") lines.pop();
  const pad = " ".repeat(indent);
  return `|${indicator}${chomp}\n${lines.map((l) => (l === "" ? "" : `${pad}${l}`)).join("\n")}`;
}
