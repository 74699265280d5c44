/**
 * A parser for PCRE 8 patterns (the dialect of cf-agent 3.21), producing the
 * tree of ast.ts. The pattern is a byte string (see bytes.ts). Errors carry
 * PCRE's wording and byte offset; constructs JavaScript cannot express
 * (recursion, conditionals, \G, callouts, backtracking verbs...) are
 * reported as "pcre-unsupported" with the construct and its offset.
 */
import {
  type ByteSet,
  type GroupKind,
  type ParsedPattern,
  PcreError,
  type PcreNode,
  addRange,
  caseClose,
  complement,
  emptySet,
  setOf,
  union,
} from "./ast.js";
import { characterType, posixClass, unicodeProperty } from "./classes.js";
import { fixedLength } from "./length.js";
import { MAX_COMPILED_SIZE, compiledSize } from "./size.js";

/** Options PCRE can be compiled with; inline `(?imsxU)` change them locally. */
export interface PcreFlags {
  caseless: boolean;
  multiline: boolean;
  dotall: boolean;
  extended: boolean;
  ungreedy: boolean;
}

const FLAG_LETTERS: Readonly<Record<string, keyof PcreFlags>> = {
  i: "caseless",
  m: "multiline",
  s: "dotall",
  x: "extended",
  U: "ungreedy",
};

const SIMPLE_ESCAPES: Readonly<Record<string, number>> = {
  a: 7,
  e: 27,
  f: 12,
  n: 10,
  r: 13,
  t: 9,
};

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,31}/;

/** PCRE's limit on nested parentheses (PARENS_NEST_LIMIT). */
const MAX_NESTING = 250;

export function parsePcre(pattern: string, flags: PcreFlags): ParsedPattern {
  return new Parser(pattern).parse(flags);
}

class Parser {
  private pos = 0;
  private groups = 0;
  /** Groups open around the current position. */
  private depth = 0;
  private readonly names = new Map<string, number>();
  private readonly backrefs: Extract<PcreNode, { t: "backref" }>[] = [];

  constructor(private readonly src: string) {}

  parse(flags: PcreFlags): ParsedPattern {
    const root = this.alternation({ ...flags });
    if (this.pos < this.src.length) this.fail("unmatched parentheses", this.pos);
    for (const ref of this.backrefs) {
      if (ref.name !== undefined) {
        const index = this.names.get(ref.name);
        if (index === undefined) this.fail("reference to non-existent subpattern", this.src.length);
        ref.index = index;
      }
      // PCRE finds these once the whole pattern is read, and reports its end.
      if (ref.index > this.groups) this.fail("reference to non-existent subpattern", this.src.length);
    }
    if (compiledSize(root) > MAX_COMPILED_SIZE) this.fail("regular expression is too large", this.src.length);
    return { root, groupCount: this.groups, names: this.names };
  }

  private fail(reason: string, offset = this.pos): never {
    throw new PcreError("pcre-syntax", reason, offset);
  }

  private unsupported(construct: string, offset: number): never {
    throw new PcreError("pcre-unsupported", `${construct} is not supported by tend`, offset);
  }

  private peek(k = 0): string {
    return this.src[this.pos + k] ?? "";
  }

  private startsWith(text: string): boolean {
    return this.src.startsWith(text, this.pos);
  }

  /** Branches up to `)` or the end; inline flag changes last to the group's end. */
  private alternation(flags: PcreFlags): PcreNode {
    const branches: PcreNode[] = [];
    for (;;) {
      branches.push(this.sequence(flags));
      if (this.peek() !== "|") break;
      this.pos++;
    }
    return branches.length === 1 ? branches[0] : { t: "alt", branches };
  }

  private sequence(flags: PcreFlags): PcreNode {
    const items: PcreNode[] = [];
    for (;;) {
      this.skipExtended(flags);
      const ch = this.peek();
      if (ch === "" || ch === "|" || ch === ")") break;
      const start = this.pos;
      const atom = this.atom(flags);
      if (atom === undefined) continue;
      // `\Q...\E` gives a run of literals: a quantifier after it binds the last one.
      const run = atom.t === "seq" ? atom.items : [atom];
      items.push(...run.slice(0, -1), this.quantified(run[run.length - 1], flags, start));
    }
    return items.length === 1 ? items[0] : { t: "seq", items };
  }

  private skipExtended(flags: PcreFlags): void {
    if (!flags.extended) return;
    for (;;) {
      const ch = this.peek();
      if (ch === " " || ch === "\t" || ch === "\n" || ch === "\r" || ch === "\f" || ch === "\v") this.pos++;
      else if (ch === "#") {
        const end = this.src.indexOf("\n", this.pos);
        this.pos = end === -1 ? this.src.length : end + 1;
      } else return;
    }
  }

  /** One atom, or undefined for things that match nothing (flag settings, comments, \E). */
  private atom(flags: PcreFlags): PcreNode | undefined {
    const ch = this.src[this.pos++];
    switch (ch) {
      case "(":
        return this.group(flags);
      case "[":
        return { t: "set", bytes: this.charClass(flags) };
      case ".":
        return { t: "set", bytes: flags.dotall ? complement(emptySet()) : complement(setOf(10)) };
      case "^":
        return { t: "assert", kind: flags.multiline ? "line-start" : "start" };
      case "$":
        return { t: "assert", kind: flags.multiline ? "line-end" : "end-or-newline" };
      case "\\":
        return this.escape(flags);
      case "*":
      case "+":
      case "?":
        return this.fail("nothing to repeat", this.pos - 1);
      case "{":
        if (this.isQuantifier(this.pos - 1)) this.fail("nothing to repeat", this.pos - 1);
        return this.literal(ch.charCodeAt(0), flags);
      default:
        return this.literal(ch.charCodeAt(0), flags);
    }
  }

  private literal(code: number, flags: PcreFlags): PcreNode {
    const bytes = setOf(code);
    return { t: "set", bytes: flags.caseless ? caseClose(bytes) : bytes };
  }

  private isQuantifier(at: number): boolean {
    return /^\{\d+(,\d*)?\}/.test(this.src.slice(at, at + 16));
  }

  private quantified(atom: PcreNode, flags: PcreFlags, start: number): PcreNode {
    this.skipExtended(flags);
    const bounds = this.readQuantifier();
    if (!bounds) return atom;
    if (atom.t === "assert") this.fail("nothing to repeat", start);
    let mode: "greedy" | "lazy" | "possessive" = flags.ungreedy ? "lazy" : "greedy";
    if (this.peek() === "?") {
      this.pos++;
      mode = flags.ungreedy ? "greedy" : "lazy";
    } else if (this.peek() === "+") {
      this.pos++;
      mode = "possessive";
    }
    const node: PcreNode = { t: "repeat", body: atom, min: bounds[0], max: bounds[1], mode };
    this.skipExtended(flags);
    const next = this.peek();
    if (next === "*" || next === "+" || next === "?" || (next === "{" && this.isQuantifier(this.pos))) {
      this.fail("nothing to repeat", this.pos);
    }
    return node;
  }

  private readQuantifier(): [number, number] | undefined {
    const ch = this.peek();
    if (ch === "*" || ch === "+" || ch === "?") {
      this.pos++;
      return ch === "*" ? [0, Number.POSITIVE_INFINITY] : ch === "+" ? [1, Number.POSITIVE_INFINITY] : [0, 1];
    }
    if (ch !== "{" || !this.isQuantifier(this.pos)) return undefined;
    const match = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.pos)) as RegExpExecArray;
    const min = Number(match[1]);
    const max = match[2] === undefined ? min : match[3] === "" ? Number.POSITIVE_INFINITY : Number(match[3]);
    const at = this.pos;
    this.pos += match[0].length;
    if (min > 65535 || (max !== Number.POSITIVE_INFINITY && max > 65535)) {
      this.fail("number too big in {} quantifier", at + match[0].length - 1);
    }
    if (max < min) this.fail("numbers out of order in {} quantifier", at + match[0].length - 1);
    return [min, max];
  }

  // --- groups ------------------------------------------------------------

  private group(flags: PcreFlags): PcreNode | undefined {
    const open = this.pos - 1;
    if (this.peek() === "*") return this.verb(open);
    if (this.peek() !== "?") return this.groupBody("capture", flags, open);
    this.pos++;
    const rest = this.src.slice(this.pos, this.pos + 3);
    if (rest.startsWith("#")) {
      const end = this.src.indexOf(")", this.pos);
      if (end === -1) this.fail("missing ) after comment", this.src.length);
      this.pos = end + 1;
      return undefined;
    }
    const kinds: [string, GroupKind][] = [
      [":", "plain"],
      ["=", "ahead"],
      ["!", "not-ahead"],
      ["<=", "behind"],
      ["<!", "not-behind"],
      [">", "atomic"],
    ];
    for (const [prefix, kind] of kinds) {
      if (rest.startsWith(prefix)) {
        this.pos += prefix.length;
        return this.groupBody(kind, flags, open);
      }
    }
    return this.specialGroup(flags, open);
  }

  private specialGroup(flags: PcreFlags, open: number): PcreNode | undefined {
    const ch = this.peek();
    if (ch === "<" || ch === "'" || this.startsWith("P<")) return this.namedGroup(flags, open);
    if (this.startsWith("P=")) return this.namedBackref(open);
    if (
      this.startsWith("P>") ||
      ch === "&" ||
      ch === "R" ||
      (/[0-9+-]/.test(ch) && /^[+-]?\d/.test(this.src.slice(this.pos)))
    ) {
      return this.unsupported("recursion or subroutine call", open);
    }
    if (ch === "(") return this.unsupported("conditional group (?(...)...)", open);
    if (ch === "C") return this.unsupported("callout (?C...)", open);
    if (ch === "|") return this.unsupported("branch reset group (?|...)", open);
    return this.flagGroup(flags, open);
  }

  private namedGroup(flags: PcreFlags, open: number): PcreNode {
    const close = this.peek() === "'" ? "'" : ">";
    this.pos += this.peek() === "P" ? 2 : 1;
    const name = this.readName(close);
    if (this.names.has(name)) this.fail("two named subpatterns have the same name", this.pos - 1);
    this.names.set(name, this.groups + 1);
    return this.groupBody("capture", flags, open);
  }

  private readName(close: string): string {
    const match = NAME.exec(this.src.slice(this.pos));
    if (!match) this.fail("group name must start with a non-digit");
    this.pos += match[0].length;
    if (this.peek() !== close) this.fail("syntax error in subpattern name (missing terminator)");
    this.pos++;
    return match[0];
  }

  private namedBackref(open: number): PcreNode {
    this.pos += 2;
    const name = this.readName(")");
    return this.backref(0, open, name);
  }

  /** `(?imsxU-imsxU)` or `(?imsxU-imsxU:...)`. */
  private flagGroup(flags: PcreFlags, open: number): PcreNode | undefined {
    const local = { ...flags };
    let on = true;
    for (;;) {
      const ch = this.src[this.pos++];
      if (ch === undefined) this.fail("missing )", this.src.length);
      if (ch === "-" && on) on = false;
      else if (ch === ")") {
        Object.assign(flags, local);
        return undefined;
      } else if (ch === ":") return this.groupBody("plain", local, open, true);
      else if (FLAG_LETTERS[ch]) local[FLAG_LETTERS[ch]] = on;
      else if (ch !== "J" && ch !== "X") this.fail("unrecognized character after (? or (?-", this.pos - 1);
    }
  }

  private groupBody(kind: GroupKind, flags: PcreFlags, open: number, ownFlags = false): PcreNode {
    const index = kind === "capture" ? ++this.groups : 0;
    if (++this.depth > MAX_NESTING) this.fail("parentheses are too deeply nested", this.pos);
    const body = this.alternation(ownFlags ? flags : { ...flags });
    this.depth--;
    if (this.peek() !== ")") this.fail("missing )", this.src.length);
    this.pos++;
    if ((kind === "behind" || kind === "not-behind") && !isFixedLookbehind(body)) {
      this.fail("lookbehind assertion is not fixed length", this.pos - 1);
    }
    void open;
    return { t: "group", kind, body, index };
  }

  private verb(open: number): PcreNode {
    const end = this.src.indexOf(")", this.pos);
    const name = end === -1 ? "" : this.src.slice(this.pos + 1, end);
    if (name === "FAIL" || name === "F") {
      this.pos = end + 1;
      return { t: "assert", kind: "fail" };
    }
    return this.unsupported(`backtracking control verb (*${name})`, open);
  }

  // --- escapes -----------------------------------------------------------

  private escape(flags: PcreFlags): PcreNode | undefined {
    const at = this.pos - 1;
    const ch = this.src[this.pos++];
    if (ch === undefined) this.fail("\\ at end of pattern", at + 1);
    const type = characterType(ch);
    if (type) return { t: "set", bytes: flags.caseless ? caseClose(type) : type };
    switch (ch) {
      case "A":
        return { t: "assert", kind: "start" };
      case "Z":
        return { t: "assert", kind: "end-or-newline" };
      case "z":
        return { t: "assert", kind: "end" };
      case "b":
        return { t: "assert", kind: "word" };
      case "B":
        return { t: "assert", kind: "not-word" };
      case "N":
        if (this.peek() === "{") this.fail("PCRE does not support \\L, \\l, \\N{name}, \\U, or \\u", at + 1);
        return { t: "set", bytes: complement(setOf(10)) };
      case "C":
        return { t: "set", bytes: complement(emptySet()) };
      case "R":
        return { t: "raw", source: "(?:\\r\\n|[\\n\\v\\f\\r\\x85])", length: null };
      case "Q":
        return this.quoted(flags);
      case "E":
        return undefined;
      case "G":
        return this.unsupported("\\G", at);
      case "K":
        return this.unsupported("\\K", at);
      case "X":
        return this.unsupported("\\X", at);
      case "p":
      case "P":
        return { t: "set", bytes: this.property(ch, at) };
      case "L":
      case "l":
      case "U":
      case "u":
        return this.fail("PCRE does not support \\L, \\l, \\N{name}, \\U, or \\u", at + 1);
      case "g":
        return this.gReference(at);
      case "k":
        return this.kReference(at);
      default:
        if (/[1-9]/.test(ch)) {
          const ref = this.numericReference(ch, at);
          if (ref) return ref;
        }
        return this.literal(this.escapedChar(ch, at), flags);
    }
  }

  /** `\pL`, `\p{Lu}`, `\p{^L}`, `\P{...}`: a property over bytes. */
  private property(letter: string, at: number): ByteSet {
    let name: string;
    if (this.peek() === "{") {
      const end = this.src.indexOf("}", this.pos);
      if (end === -1) this.fail("malformed \\P or \\p sequence", this.pos);
      name = this.src.slice(this.pos + 1, end);
      this.pos = end + 1;
    } else name = this.src[this.pos++] ?? "";
    const set = unicodeProperty(name);
    if (!set) this.fail("unknown property name after \\P or \\p", this.pos - 1);
    void at;
    return letter === "P" ? complement(set) : set;
  }

  private quoted(flags: PcreFlags): PcreNode | undefined {
    const end = this.src.indexOf("\\E", this.pos);
    const text = this.src.slice(this.pos, end === -1 ? undefined : end);
    this.pos = end === -1 ? this.src.length : end + 2;
    if (text === "") return undefined;
    return { t: "seq", items: [...text].map((c) => this.literal(c.charCodeAt(0), flags)) };
  }

  /** A single byte from an escape (`\n`, `\x41`, `\101`, `\cA`, `\.`...). */
  private escapedChar(ch: string, at: number): number {
    if (SIMPLE_ESCAPES[ch] !== undefined) return SIMPLE_ESCAPES[ch];
    if (ch === "x") return this.hexEscape(at);
    if (ch === "o" && this.peek() === "{") return this.braced(/^\{([0-7]+)\}/, 8, at);
    if (ch === "0") return this.octalDigits(0, 2);
    if (ch === "c") {
      const next = this.src[this.pos++];
      if (next === undefined) this.fail("\\c at end of pattern", at + 2);
      return next.toUpperCase().charCodeAt(0) ^ 0x40;
    }
    return ch.charCodeAt(0);
  }

  private hexEscape(at: number): number {
    if (this.peek() === "{") return this.braced(/^\{([0-9a-fA-F]+)\}/, 16, at);
    const match = /^[0-9a-fA-F]{0,2}/.exec(this.src.slice(this.pos)) as RegExpExecArray;
    this.pos += match[0].length;
    return match[0] === "" ? 0 : Number.parseInt(match[0], 16);
  }

  private braced(shape: RegExp, radix: number, at: number): number {
    const match = shape.exec(this.src.slice(this.pos));
    if (!match) this.fail("malformed number or name after \\x or \\o", at + 2);
    this.pos += match[0].length;
    const value = Number.parseInt(match[1], radix);
    if (value > 255) this.fail("character value in \\x{} or \\o{} is too large", this.pos - 1);
    return value;
  }

  private octalDigits(value: number, count: number): number {
    let out = value;
    for (let k = 0; k < count && /[0-7]/.test(this.peek()); k++) out = out * 8 + Number(this.src[this.pos++]);
    return out & 0xff;
  }

  /** `\1`..: a back reference, or an octal escape when there are not that many groups. */
  private numericReference(first: string, at: number): PcreNode | undefined {
    const digits = first + (/^\d*/.exec(this.src.slice(this.pos)) as RegExpExecArray)[0];
    const value = Number(digits);
    const literalDigit = (first === "8" || first === "9") && value < 10 && value > this.groups;
    if (!literalDigit && (value < 10 || value <= this.groups)) {
      this.pos += digits.length - 1;
      return this.backref(value, at);
    }
    if (first === "8" || first === "9") return undefined;
    this.pos--;
    return { t: "set", bytes: setOf(this.octalDigits(0, 3)) };
  }

  private gReference(at: number): PcreNode {
    const match = /^(?:\{(-?\d+)\}|(-?\d+)|\{([A-Za-z_]\w*)\})/.exec(this.src.slice(this.pos));
    if (!match) this.fail("a numbered reference must not be zero", at + 2);
    this.pos += match[0].length;
    if (match[3] !== undefined) return this.backref(0, at, match[3]);
    const n = Number(match[1] ?? match[2]);
    if (n === 0) this.fail("a numbered reference must not be zero", at + 2);
    const index = n < 0 ? this.groups + n + 1 : n;
    if (index <= 0) this.fail("reference to non-existent subpattern", this.pos - 1);
    return this.backref(index, at);
  }

  private kReference(at: number): PcreNode {
    const open = this.peek();
    const close = open === "<" ? ">" : open === "'" ? "'" : open === "{" ? "}" : "";
    if (!close) this.fail("\\k is not followed by a braced, angle-bracketed, or quoted name", at + 2);
    this.pos++;
    return this.backref(0, at, this.readName(close));
  }

  private backref(index: number, offset: number, name?: string): PcreNode {
    const node = { t: "backref" as const, index, name, offset };
    this.backrefs.push(node);
    return node;
  }

  // --- character classes -------------------------------------------------

  private charClass(flags: PcreFlags): ByteSet {
    const open = this.pos - 1;
    const negated = this.peek() === "^";
    if (negated) this.pos++;
    const set = emptySet();
    let first = true;
    for (;;) {
      const ch = this.peek();
      if (ch === "") this.fail("missing terminating ] for character class", this.src.length);
      if (ch === "]" && !first) break;
      first = false;
      if (ch === "[" && /^\[[:.=]/.test(this.src.slice(this.pos))) {
        union(set, this.posix());
        continue;
      }
      const low = this.classAtom(set);
      if (low === undefined) continue;
      if (this.peek() === "-" && this.peek(1) !== "]" && this.peek(1) !== "") {
        const save = this.pos;
        this.pos++;
        const high = this.classAtom(undefined);
        if (high === undefined) {
          // `[a-\d]`: the hyphen is literal and the type was not added yet.
          this.pos = save;
          set[low] = 1;
          continue;
        }
        if (high < low) this.fail("range out of order in character class", this.pos - 1);
        addRange(set, low, high);
      } else set[low] = 1;
    }
    this.pos++;
    void open;
    if (flags.caseless) caseClose(set);
    return negated ? complement(set) : set;
  }

  /**
   * One class member: a byte (returned, so it can start a range) or a type
   * such as `\d` (added to `into`, or when `into` is undefined the position
   * is left after it and undefined is returned).
   */
  private classAtom(into: ByteSet | undefined): number | undefined {
    const ch = this.src[this.pos++];
    if (ch !== "\\") return ch.charCodeAt(0);
    const at = this.pos - 1;
    const esc = this.src[this.pos++];
    if (esc === undefined) this.fail("\\ at end of pattern", at + 1);
    const type = characterType(esc);
    if (type) {
      if (into) union(into, type);
      return undefined;
    }
    if (esc === "b") return 8;
    if (esc === "Q") return this.quotedInClass(into);
    if (esc === "E") return into ? undefined : this.classAtom(into);
    if (/[LlUu]/.test(esc)) this.fail("PCRE does not support \\L, \\l, \\N{name}, \\U, or \\u", at + 1);
    if (esc === "p" || esc === "P") {
      union(into ?? emptySet(), this.property(esc, at));
      return undefined;
    }
    if (esc === "X") this.unsupported("\\X in a character class", at);
    if (/[1-7]/.test(esc)) {
      this.pos--;
      return this.octalDigits(0, 3);
    }
    return this.escapedChar(esc, at);
  }

  private quotedInClass(into: ByteSet | undefined): number | undefined {
    const end = this.src.indexOf("\\E", this.pos);
    const text = this.src.slice(this.pos, end === -1 ? undefined : end);
    this.pos = end === -1 ? this.src.length : end + 2;
    if (into) for (const c of text) into[c.charCodeAt(0)] = 1;
    return undefined;
  }

  private posix(): ByteSet {
    const match = /^\[([:.=])(\^?)([a-z]*)([:.=])\]/.exec(this.src.slice(this.pos));
    if (!match || match[1] !== match[4]) {
      // Not a POSIX class after all: `[` is an ordinary member.
      this.pos++;
      return setOf(91);
    }
    if (match[1] !== ":") this.fail("POSIX collating elements are not supported", this.pos + 1);
    const set = posixClass(match[3]);
    if (!set) this.fail("unknown POSIX class name", this.pos + 2);
    this.pos += match[0].length;
    return match[2] ? complement(set) : set;
  }
}

function isFixedLookbehind(body: PcreNode): boolean {
  const branches = body.t === "alt" ? body.branches : [body];
  return branches.every((b) => fixedLength(b) !== null);
}
