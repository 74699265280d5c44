/**
 * The lexer of CFEngine 3.21 policy.
 *
 * It reproduces the tokenisation of cf-promises' flex scanner: the longest
 * match wins, and on a tie the keyword, then the identifier, wins. That is
 * what decides, for example, that `vars:` is a promise type, `any::` a class
 * guard and `bundles` a plain identifier. The `@if`/`@else`/`@endif` macros
 * are handled here, so the parser never sees the lines they exclude.
 *
 * The lexer never throws: problems become diagnostics and the offending text
 * becomes an `error` token the parser skips.
 */
import type { Span } from "./ast.js";
import { type Diagnostic, type DiagnosticCode, makeDiagnostic } from "./diagnostics.js";

export type TokenKind =
  | "bundle"
  | "body"
  | "promise"
  | "identifier"
  | "promise-guard"
  | "class-guard"
  | "var-class-guard"
  | "string"
  | "nakedvar"
  | "=>"
  | "->"
  | "{"
  | "}"
  | "("
  | ")"
  | ","
  | ";"
  | "char"
  | "error"
  | "eof";

export interface Token {
  readonly kind: TokenKind;
  readonly start: number;
  readonly end: number;
  /**
   * The token's meaning: the de-escaped value of a string, the expression of
   * a class guard, the name of a promise type, the text of anything else.
   */
  readonly value: string;
}

/** The version `@if minimum_version(...)` and friends compare against. */
export const LANGUAGE_VERSION = "3.21.0";

/** Features `@if feature(...)` knows, as a 3.21.0 built on Debian has them. */
export const KNOWN_FEATURES: ReadonlySet<string> = new Set([
  "yaml",
  "xml",
  "curl",
  "tls_1_0",
  "tls_1_1",
  "tls_1_2",
  "tls_1_3",
  "def_json_preparse",
  "host_specific_data_load",
  "copyfrom_restrict_keys",
]);

/** cf-promises rejects identifiers of this length and longer. */
const MAX_IDENTIFIER = 1023;

// flex takes the longest of these alternatives, so the plain and the
// indexed forms are matched separately and the longer match wins.
const NAKEDVAR_PLAIN_RE = /[$@](?:\([a-zA-Z0-9_[\]\u0080-\uffff.:]+\)|\{[a-zA-Z0-9_[\]\u0080-\uffff.:]+\})/y;
const NAKEDVAR_INDEXED_RE =
  /[$@](?:\([a-zA-Z0-9_\u0080-\uffff.:]+\[[a-zA-Z0-9_$(){}\u0080-\uffff.:]+\]+\)|\{[a-zA-Z0-9_\u0080-\uffff.:]+\[[a-zA-Z0-9_$(){}\u0080-\uffff.:]+\]+\})/y;
const MACRO_IF_RE =
  /@if (?:(minimum_version|maximum_version|before_version|at_version|after_version)\((\d{1,5}(?:\.\d{1,5}){0,2})\)|between_versions\((\d{1,5}(?:\.\d{1,5}){0,2}) *, *(\d{1,5}(?:\.\d{1,5}){0,2})\)|feature\(([a-zA-Z0-9_]+)\))/y;

function isIdentifierChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c >= 0x80;
}

/** Characters a class guard may start with. */
function isGuardStart(c: number): boolean {
  return (
    isIdentifierChar(c) || c === 46 || c === 124 || c === 38 || c === 33 || c === 40 || c === 41 || c === 58
  );
}

/** Characters a class guard may contain (whitespace between operators included). */
function isGuardChar(c: number): boolean {
  return isGuardStart(c) || c === 32 || c === 9;
}

function isGuardLetter(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}

/** Compares two dotted versions over the components the second one names. */
export function compareVersion(actual: string, wanted: string): number {
  const a = actual.split(".").map(Number);
  const w = wanted.split(".").map(Number);
  for (let i = 0; i < w.length; i++) {
    const x = a[i] ?? 0;
    if (x !== w[i]) return x < w[i] ? -1 : 1;
  }
  return 0;
}

function macroAccepts(match: RegExpExecArray): boolean {
  const [, kind, version, from, to, feature] = match;
  if (feature !== undefined) return KNOWN_FEATURES.has(feature);
  if (from !== undefined) {
    return compareVersion(LANGUAGE_VERSION, from) >= 0 && compareVersion(LANGUAGE_VERSION, to) <= 0;
  }
  const order = compareVersion(LANGUAGE_VERSION, version);
  switch (kind) {
    case "minimum_version":
      return order >= 0;
    case "maximum_version":
      return order <= 0;
    case "before_version":
      return order < 0;
    case "at_version":
      return order === 0;
    default:
      return order > 0;
  }
}

export class Lexer {
  private pos = 0;
  /** Offset where the current line starts; macros must begin there. */
  private lineStart = 0;
  private ifDepth = 0;
  /** The current run of class-guard characters and the last `::` in it (see classGuardEnd). */
  private runStart = 0;
  private runEnd = 0;
  private runLastColons = -1;
  private ifStart = 0;
  readonly diagnostics: Diagnostic[] = [];

  constructor(
    private readonly text: string,
    private readonly file: string,
  ) {}

  /** Reads the next token; after the end it keeps returning `eof`. */
  next(): Token {
    const text = this.text;
    for (;;) {
      const start = this.pos;
      if (start >= text.length) return this.endOfInput();
      const c = text.charCodeAt(start);
      if (c === 32 || c === 9) {
        this.pos++;
        continue;
      }
      if (c === 10) {
        this.pos++;
        this.lineStart = this.pos;
        continue;
      }
      if (c === 13 && text.charCodeAt(start + 1) === 10) {
        this.pos += 2;
        this.lineStart = this.pos;
        continue;
      }
      if (c === 35) {
        this.skipComment();
        continue;
      }
      if (c === 64 && this.tryMacro()) continue;
      return this.scanToken(c, start);
    }
  }

  private scanToken(c: number, start: number): Token {
    const text = this.text;
    if (c === 34 || c === 39) return this.scanQuoted(c, start);
    if (c === 96) return this.scanBacktick(start);
    if ((c === 36 || c === 64) && (text[start + 1] === "(" || text[start + 1] === "{")) {
      const naked = Math.max(
        this.matchAt(NAKEDVAR_PLAIN_RE, start),
        this.matchAt(NAKEDVAR_INDEXED_RE, start),
      );
      if (naked > start) return this.token("nakedvar", start, naked, text.slice(start, naked));
    }
    const ident = this.identifierEnd(start);
    const guard = this.classGuardEnd(c, start);
    if (ident > start || guard > start) return this.scanWord(start, ident, guard);
    if (c === 61 && text.charCodeAt(start + 1) === 62) return this.token("=>", start, start + 2, "=>");
    if (c === 45 && text.charCodeAt(start + 1) === 62) return this.token("->", start, start + 2, "->");
    switch (c) {
      case 123:
        return this.token("{", start, start + 1, "{");
      case 125:
        return this.token("}", start, start + 1, "}");
      case 40:
        return this.token("(", start, start + 1, "(");
      case 41:
        return this.token(")", start, start + 1, ")");
      case 44:
        return this.token(",", start, start + 1, ",");
      case 59:
        return this.token(";", start, start + 1, ";");
    }
    // Anything else is a character the grammar has no place for.
    const end = start + (c >= 0xd800 && c <= 0xdbff ? 2 : 1);
    return this.token("char", start, end, text.slice(start, end));
  }

  /** An identifier, a keyword, `ns:name`, a promise type or a class guard. */
  private scanWord(start: number, ident: number, guard: number): Token {
    const text = this.text;
    let end = ident;
    let kind: TokenKind = "identifier";
    // `ns:name` is one identifier.
    if (ident > start && text.charCodeAt(ident) === 58) {
      const after = this.identifierEnd(ident + 1);
      if (after > ident + 1) end = after;
    }
    const promiseGuard = this.promiseGuardEnd(start);
    if (guard > end && guard >= promiseGuard) {
      return this.classGuard(start, guard);
    }
    if (promiseGuard > end) {
      this.pos = promiseGuard;
      return { kind: "promise-guard", start, end: promiseGuard, value: text.slice(start, promiseGuard - 1) };
    }
    const word = text.slice(start, end);
    if (end === ident && (word === "bundle" || word === "body" || word === "promise")) kind = word;
    if (end - start > MAX_IDENTIFIER) {
      this.report(
        [start, end],
        "identifier-too-long",
        `identifier is ${end - start} characters long; the limit is ${MAX_IDENTIFIER}`,
      );
    }
    return this.token(kind, start, end, word);
  }

  private classGuard(start: number, end: number): Token {
    const expression = this.text.slice(start, end - 2);
    this.pos = end;
    return { kind: "class-guard", start, end, value: expression };
  }

  private identifierEnd(start: number): number {
    const text = this.text;
    let i = start;
    while (i < text.length && isIdentifierChar(text.charCodeAt(i))) i++;
    return i;
  }

  /** `[a-zA-Z_]+:` */
  private promiseGuardEnd(start: number): number {
    const text = this.text;
    let i = start;
    while (i < text.length && isGuardLetter(text.charCodeAt(i))) i++;
    return i > start && text.charCodeAt(i) === 58 ? i + 1 : start;
  }

  /**
   * The end of the class guard starting at `start`, or `start` if none.
   * flex's longest match is the last `::` within the run of characters a
   * guard may contain; the run is computed once and reused by every start
   * inside it, so scanning stays linear however long the line.
   */
  private classGuardEnd(c: number, start: number): number {
    // Only characters that may start a class expression can start a guard.
    if (!isGuardStart(c)) return start;
    if (start < this.runStart || start >= this.runEnd) {
      const text = this.text;
      let end = start;
      let lastColons = -1;
      for (; end < text.length; end++) {
        const ch = text.charCodeAt(end);
        if (!isGuardChar(ch)) break;
        if (ch === 58 && end > start && text.charCodeAt(end - 1) === 58) lastColons = end - 1;
      }
      this.runStart = start;
      this.runEnd = end;
      this.runLastColons = lastColons;
    }
    return this.runLastColons >= start + 1 ? this.runLastColons + 2 : start;
  }

  private matchAt(re: RegExp, start: number): number {
    re.lastIndex = start;
    return re.test(this.text) ? re.lastIndex : start;
  }

  /**
   * A double- or single-quoted string. A backslash protects the next
   * character from ending the string; 3.21 then removes the backslash only
   * before `\`, `"`, `'` and a line break, and keeps it everywhere else.
   */
  private scanQuoted(quote: number, start: number): Token {
    const text = this.text;
    // `"expr"::` (no escapes, no NUL inside) is a quoted class guard.
    const close = text.indexOf(quote === 34 ? '"' : "'", start + 1);
    if (close !== -1 && text.charCodeAt(close + 1) === 58 && text.charCodeAt(close + 2) === 58) {
      const value = text.slice(start + 1, close);
      if (!value.includes("\0")) {
        this.pos = close + 3;
        return { kind: "var-class-guard", start, end: close + 3, value };
      }
    }
    let value = "";
    let chunk = start + 1;
    let i = start + 1;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === quote) {
        value += text.slice(chunk, i);
        this.pos = i + 1;
        return { kind: "string", start, end: i + 1, value };
      }
      if (c === 92 && i + 1 < text.length) {
        const n = text.charCodeAt(i + 1);
        if (n === 92 || n === 34 || n === 39) {
          value += text.slice(chunk, i);
          chunk = i + 1;
        } else if (n === 10) {
          // A backslash-newline is a line continuation: both go.
          value += text.slice(chunk, i);
          chunk = i + 2;
        }
        i += 2;
        continue;
      }
      i++;
    }
    return this.unterminated(start);
  }

  /** A backtick string: no escapes end it, but the de-escaping still applies. */
  private scanBacktick(start: number): Token {
    const text = this.text;
    const close = text.indexOf("`", start + 1);
    if (close === -1) return this.unterminated(start);
    const raw = text.slice(start + 1, close);
    this.pos = close + 1;
    return { kind: "string", start, end: close + 1, value: deEscape(raw) };
  }

  private unterminated(start: number): Token {
    const quote = this.text[start];
    this.report(
      [start, start + 1],
      "unterminated-string",
      `string starting here is never closed: expected a closing ${quote}`,
    );
    this.pos = this.text.length;
    return { kind: "error", start, end: this.text.length, value: this.text.slice(start) };
  }

  private skipComment(): void {
    const end = this.text.indexOf("\n", this.pos);
    this.pos = end === -1 ? this.text.length : end;
  }

  /** Handles `@if`, `@else` and `@endif`; false if `@` starts something else. */
  private tryMacro(): boolean {
    const text = this.text;
    const start = this.pos;
    if (text.startsWith("@if ", start)) {
      MACRO_IF_RE.lastIndex = start;
      const match = MACRO_IF_RE.exec(text);
      if (!match) return false;
      const end = MACRO_IF_RE.lastIndex;
      if (!this.atLineStart(start, end, "@if")) return true;
      if (this.ifDepth > 0) {
        this.report(
          [start, end],
          "macro-error",
          "@if cannot be nested inside another @if; close the first with @endif",
        );
        this.pos = end;
        return true;
      }
      this.ifDepth++;
      this.ifStart = start;
      this.pos = end;
      if (!macroAccepts(match)) this.skipExcluded();
      return true;
    }
    if (text.startsWith("@else", start)) {
      if (this.ifDepth === 0) {
        this.report([start, start + 5], "macro-error", "@else without a matching @if");
        this.pos = start + 5;
        return true;
      }
      this.pos = start + 5;
      this.skipExcluded();
      return true;
    }
    if (text.startsWith("@endif", start)) {
      if (!this.atLineStart(start, start + 6, "@endif")) return true;
      this.endIf(start);
      return true;
    }
    return false;
  }

  private endIf(start: number): void {
    if (this.ifDepth === 0) {
      this.report([start, start + 6], "macro-error", "@endif without a matching @if");
      this.pos = start + 6;
      return;
    }
    this.ifDepth--;
    this.pos = start + 6;
  }

  private atLineStart(start: number, end: number, macro: string): boolean {
    if (start === this.lineStart) return true;
    this.report([start, end], "macro-error", `${macro} must start at the beginning of a line`);
    this.pos = end;
    return false;
  }

  /**
   * Skips lines excluded by an `@if` until a line starting with `@else`
   * (back to normal text) or `@endif`. A nested `@if` here is just text.
   */
  private skipExcluded(): void {
    const text = this.text;
    let i = text.indexOf("\n", this.pos);
    while (i !== -1) {
      const line = i + 1;
      if (text.startsWith("@else", line)) {
        this.pos = line + 5;
        this.lineStart = line;
        return;
      }
      if (text.startsWith("@endif", line)) {
        this.lineStart = line;
        this.endIf(line);
        return;
      }
      i = text.indexOf("\n", line);
    }
    this.pos = text.length;
  }

  private endOfInput(): Token {
    if (this.ifDepth > 0) {
      this.report(
        [this.ifStart, this.ifStart + 3],
        "macro-error",
        "@if is never closed: expected @endif before the end of the file",
      );
      this.ifDepth = 0;
    }
    return { kind: "eof", start: this.text.length, end: this.text.length, value: "" };
  }

  private token(kind: TokenKind, start: number, end: number, value: string): Token {
    this.pos = end;
    return { kind, start, end, value };
  }

  private report(span: Span, code: DiagnosticCode, message: string): void {
    this.diagnostics.push(makeDiagnostic(this.file, span, "error", code, message));
  }
}

/** 3.21's de-escaping: `\\`, `\"`, `\'` lose the backslash; `\`+newline vanishes. */
export function deEscape(raw: string): string {
  if (!raw.includes("\\")) return raw;
  let out = "";
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === "\\" && i + 1 < raw.length) {
      const n = raw[i + 1];
      if (n === "\\" || n === '"' || n === "'") {
        out += n;
        i++;
        continue;
      }
      if (n === "\n") {
        i++;
        continue;
      }
    }
    out += c;
  }
  return out;
}

/** Every token of a text, for `tend lex` and tests. */
export function tokenize(text: string, file = "<input>"): { tokens: Token[]; diagnostics: Diagnostic[] } {
  const lexer = new Lexer(text, file);
  const tokens: Token[] = [];
  for (let t = lexer.next(); t.kind !== "eof"; t = lexer.next()) tokens.push(t);
  return { tokens, diagnostics: lexer.diagnostics };
}
