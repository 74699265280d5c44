/**
 * The Puppet 7 lexer: source text to tokens, with Puppet's context rules —
 * `[` after whitespace starts a list (LISTSTART), `(` first on its line is a
 * WSLPAREN (never a call), `{` after `?` is a SELBRACE, `/` is a regex only
 * where a value may start, `"…"` and heredocs are split into DQPRE/DQMID/
 * DQPOST around the tokens of each `${…}` (a lone name in `${x}` becomes a
 * variable), heredoc text is taken from the lines after the current one, and
 * in EPP templates text outside the tags becomes RENDER_STRING tokens.
 * The whole input is lexed up front; the first error throws a
 * `PuppetSyntaxError` (the parser turns it into a diagnostic).
 */
import { PuppetSyntaxError, type PuppetDiagnostic, type PuppetIssueCode } from "./diagnostics.js";
import { KEYWORD_KINDS, KEYWORDS, type Token, type TokenKind, token } from "./tokens.js";

export interface LexOptions {
  /** Lex an EPP template (text with `<% %>` tags) rather than a manifest. */
  epp?: boolean;
}

export interface LexResult {
  /** The tokens up to the end, or up to the first error. */
  tokens: Token[];
  warnings: PuppetDiagnostic[];
  /** The first error: Puppet's lexer runs only as far as its parser asks, so
   * a parser error in the tokens before it is reported first. */
  error?: PuppetSyntaxError;
}

/** Lexes a whole source, stopping at the first error. */
export function lex(text: string, options: LexOptions = {}): LexResult {
  const lexer = new Lexer(text, undefined, options.epp === true);
  try {
    lexer.run();
  } catch (error) {
    if (!(error instanceof PuppetSyntaxError)) throw error;
    return { tokens: lexer.out, warnings: lexer.warnings, error };
  }
  return { tokens: lexer.out, warnings: lexer.warnings };
}

const DQ_ESCAPES = ["\\", "$", "'", '"', "r", "n", "t", "s", "u", "\r\n", "\n"];
type Slurp = "all" | "uq" | "uqne";

function isWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}
function isLower(c: number): boolean {
  return (c >= 97 && c <= 122) || c === 95;
}
function isUpper(c: number): boolean {
  return c >= 65 && c <= 90;
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
/** The number of entries of a lexer's cache of names (Lexer.recent). */
const RECENT_SIZE = 128;

/** The entry of Lexer.recent for the text from `from` to `to` (not empty). */
function recentSlot(text: string, from: number, to: number): number {
  return ((to - from) * 61 + text.charCodeAt(from) * 31 + text.charCodeAt(to - 1)) & (RECENT_SIZE - 1);
}

function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === 13;
}

const NUMBER_PATTERN = /(?:0[xX][0-9A-Fa-f]+|0?\d+(?:\.\d+)?(?:[eE]-?\d+)?)(?![0-9A-Za-z_])/y;
/** Ruby's [[:blank:]] on UTF-8 text: space, tab and the Unicode space separators. */
const BLANK = "[ \\t\\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000]";
const HEREDOC_PATTERN = new RegExp(
  `@\\(([^:/\\r\\n)]+)(?::${BLANK}*([a-z][a-zA-Z0-9_+]+)${BLANK}*)?(?:/((?:\\w|[$])*)${BLANK}*)?\\)`,
);
const NAME_PATTERN = /^(?:::)?[a-z]\w*(?:::[a-z]\w*)*$/;

/** Whether text[from, end), a bare word, is a NAME (NAME_PATTERN): no `-`, each segment begins with a-z. */
function isPlainName(text: string, from: number, end: number): boolean {
  let p = from;
  if (text.charCodeAt(p) === 58) p += 2;
  let segmentStart = true;
  for (; p < end; p++) {
    const c = text.charCodeAt(p);
    if (segmentStart) {
      if (c < 97 || c > 122) return false;
      segmentStart = false;
    } else if (c === 45) return false;
    else if (c === 58) {
      p++;
      segmentStart = true;
    }
  }
  return !segmentStart;
}

/** Where a sub-lexer's offsets land in the original source (heredoc text). */
type OffsetMap = (offset: number) => number;

export class Lexer {
  out: Token[] = [];
  warnings: PuppetDiagnostic[] = [];
  pos = 0;
  private after: TokenKind | undefined;
  private braceCount = 0;
  private lineStart = 0;
  private newlineJump: number | undefined;
  private eppMode: "text" | "epp" | "expr" | undefined;
  private eppOpen: number | undefined;
  private escapes: readonly string[] = [];
  /**
   * The text Puppet's scanner last matched: its "Unclosed quote after X"
   * names it when a string's tail is unterminated (undefined: no match).
   */
  private matchedText: string | undefined;
  /** Blanks and comments, the most frequent matches, are kept as a range and sliced only when asked for. */
  private matchedFrom = -1;
  private matchedTo = -1;

  private get matched(): string | undefined {
    if (this.matchedFrom !== -1) {
      this.matchedText = this.text.slice(this.matchedFrom, this.matchedTo);
      this.matchedFrom = -1;
    }
    return this.matchedText;
  }

  private set matched(text: string | undefined) {
    this.matchedFrom = -1;
    this.matchedText = text;
  }

  private matchRange(from: number, to: number): void {
    this.matchedFrom = from;
    this.matchedTo = to;
  }
  private slurpMode: Slurp = "all";
  /** What ended the text `slurp` last returned: `"`, `$`, `${`, or "" (the end). */
  private terminator = "";

  constructor(
    readonly text: string,
    private readonly map: OffsetMap | undefined,
    private readonly epp: boolean,
    /**
     * Names and short single-quoted strings already seen (ParseOptions.names):
     * one string for each spelling, whichever file it was in.
     */
    private readonly names?: Map<string, string>,
  ) {}

  /**
   * Names and short strings lexed lately, by a hash of their length and
   * end characters (a direct-mapped cache): met again (every resource
   * repeats its attribute names), one is found by comparing its characters,
   * with no slice made, hashed and looked up in `names`. Made at first use
   * (a heredoc's own lexer seldom needs one).
   */
  private recent: string[] | undefined;
  /** The token kind of each name in `recent` (a keyword's, NAME or WORD). */
  private recentKind: TokenKind[] | undefined;

  /** The entry `slot` of `recent` when it is the text from `from` to `to`. */
  private recentText(from: number, to: number, slot: number): string | undefined {
    const recent = this.recent;
    if (recent === undefined) return undefined;
    const known = recent[slot] as string;
    const length = to - from;
    if (known.length !== length) return undefined;
    const text = this.text;
    for (let i = 0; i < length; i++) if (text.charCodeAt(from + i) !== known.charCodeAt(i)) return undefined;
    return known;
  }

  private remember(slot: number, value: string, kind: TokenKind): void {
    if (this.recent === undefined) {
      this.recent = new Array<string>(RECENT_SIZE).fill("");
      this.recentKind = new Array<TokenKind>(RECENT_SIZE).fill("NAME");
    }
    this.recent[slot] = value;
    (this.recentKind as TokenKind[])[slot] = kind;
  }

  /** `value` itself, or the same text seen before (when the lexer keeps names). */
  intern(value: string): string {
    const names = this.names;
    if (names === undefined) return value;
    const known = names.get(value);
    if (known !== undefined) return known;
    names.set(value, value);
    return value;
  }

  /**
   * Lexes on demand (the parser pulls tokens, so that each dies young):
   * `start` once, then `lexTo` until `done`. Each lexical element adds its
   * tokens (none for blanks and comments, several for a string); the end
   * adds EOF. The first error ends the tokens (those of the element that
   * failed are dropped, as `run` drops them) and is kept in `error`.
   */
  done = false;
  error: PuppetSyntaxError | undefined;

  start(): undefined {
    try {
      this.begin();
    } catch (error) {
      this.stop(error, this.out.length);
    }
  }

  /** Lexes until there are `length` tokens, or to the end. */
  lexTo(length: number): undefined {
    if (this.done) return;
    const out = this.out;
    const text = this.text;
    let size = out.length;
    try {
      while (out.length < length) {
        size = out.length;
        if (this.pos >= text.length) {
          this.end();
          this.done = true;
          out.push(token("EOF", "", text.length, 0));
          return;
        }
        this.lexToken();
      }
    } catch (error) {
      this.stop(error, size);
    }
  }

  private stop(error: unknown, size: number): undefined {
    if (!(error instanceof PuppetSyntaxError)) throw error;
    this.out.length = size;
    this.error = error;
    this.done = true;
    this.out.push(token("EOF", "", this.text.length, 0));
  }

  private begin(): undefined {
    if (this.text.charCodeAt(0) === 0xfeff) {
      throw new PuppetSyntaxError(
        "ILLEGAL_BOM",
        "Illegal UTF-8 Byte Order mark at beginning of input: [EF BB BF] - remove these from the puppet source",
        undefined,
      );
    }
    if (this.epp) {
      this.eppMode = "text";
      this.push("EPP_START", "", 0, 0);
      this.interpolateEpp(false);
    }
    this.skipBlanks();
  }

  private end(): undefined {
    if (this.epp && this.eppOpen !== undefined) {
      this.fail("EPP_UNBALANCED_TAG", "Unbalanced epp tag, reached <eof> without closing tag.", this.pos);
    }
  }

  run(): undefined {
    this.begin();
    let size = 0;
    try {
      while (this.pos < this.text.length) {
        size = this.out.length;
        this.lexToken();
      }
    } catch (error) {
      // Puppet lexes a string or heredoc as one step: none of its tokens
      // reach the parser when it fails.
      this.out.length = size;
      throw error;
    }
    this.end();
  }

  // --- helpers ---------------------------------------------------------

  private global(offset: number): number {
    return this.map ? this.map(offset) : offset;
  }

  private push(kind: TokenKind, value: string, offset: number, length: number, setAfter = true): undefined {
    const map = this.map;
    if (map === undefined) this.out.push(token(kind, value, offset, length));
    else {
      const start = map(offset);
      const end = length === 0 ? start : map(offset + length - 1) + 1;
      this.out.push(token(kind, value, start, end - start));
    }
    if (setAfter) this.after = kind;
  }

  /** A single-character (or fixed-length) token at the current position. */
  private emit(kind: TokenKind, length: number): undefined {
    const at = this.pos;
    this.pos += length;
    this.push(kind, length === 1 ? (this.text[at] as string) : this.text.slice(at, at + length), at, length);
  }

  /** A token of fixed text (no string made for it). */
  private emitText(kind: TokenKind, value: string): undefined {
    const at = this.pos;
    this.pos += value.length;
    this.push(kind, value, at, value.length);
  }

  fail(code: PuppetIssueCode, message: string, offset: number | undefined): never {
    throw new PuppetSyntaxError(code, message, offset === undefined ? undefined : this.global(offset));
  }

  private warn(code: PuppetIssueCode, message: string, offset: number): undefined {
    this.warnings.push({ severity: "warning", code, message, offset: this.global(offset) });
  }

  private followedBy(at: number): string {
    if (at >= this.text.length) return "<eof>";
    return `${this.text.slice(at, at + 5)}...`
      .replace(/\t/g, "\\t")
      .replace(/\n/g, "\\n")
      .replace(/\r/g, "\\r");
  }

  private skipBlanks(): undefined {
    const text = this.text;
    const start = this.pos;
    while (this.pos < text.length && isBlank(text.charCodeAt(this.pos))) this.pos++;
    if (this.pos > start) this.matchRange(start, this.pos);
    else this.matched = undefined;
  }

  // --- the token dispatcher ---------------------------------------------

  lexToken(): undefined {
    // Names, references and numbers first: most tokens are one, and the
    // switch below would compare their character with every case first.
    const code = this.text.charCodeAt(this.pos);
    if ((code >= 97 && code <= 122) || code === 95) return this.name();
    if (code >= 65 && code <= 90) return this.classRef();
    if (code >= 48 && code <= 57) return this.number();
    // On the character's code: V8 makes a jump table of a switch on small
    // integers (one on one-character strings compares them case by case in
    // code not yet optimized, and the dispatcher runs for every token).
    const next = this.text[this.pos + 1];
    switch (code) {
      case 32: // " "
      case 9: // "\t"
      case 13: // "\r"
        this.skipBlanks();
        return;
      case 10: // "\n"
        if (this.newlineJump !== undefined) {
          this.pos = this.newlineJump;
          this.newlineJump = undefined;
        } else this.pos++;
        this.lineStart = this.pos;
        return;
      case 35: {
        // "#"
        const end = this.text.indexOf("\n", this.pos);
        this.matchRange(this.pos, end === -1 ? this.text.length : end);
        this.pos = end === -1 ? this.text.length : end;
        return;
      }
      case 46: // "."
        return this.emit("DOT", 1);
      case 44: // ","
        return this.emit("COMMA", 1);
      case 91: {
        // "["
        const before = this.pos === 0 ? 32 : this.text.charCodeAt(this.pos - 1);
        return this.emit(isBlank(before) || before === 10 ? "LISTSTART" : "LBRACK", 1);
      }
      case 93: // "]"
        return this.emit("RBRACK", 1);
      case 40: {
        // "("
        let p = this.pos - 1;
        while (p >= this.lineStart && isBlank(this.text.charCodeAt(p))) p--;
        return this.emit(p < this.lineStart ? "WSLPAREN" : "LPAREN", 1);
      }
      case 41: // ")"
        return this.emit("RPAREN", 1);
      case 59: // ";"
        return this.emit("SEMIC", 1);
      case 63: // "?"
        return this.emit("QMARK", 1);
      case 42: // "*"
        return this.emit("TIMES", 1);
      case 37: // "%"
        if (next === ">" && this.eppMode !== undefined) return this.eppEnd(2, "EPP_END", false);
        return this.emit("MODULO", 1);
      case 123: // "{"
        this.braceCount++;
        return this.emit(this.after === "QMARK" ? "SELBRACE" : "LBRACE", 1);
      case 125: // "}"
        this.braceCount--;
        return this.emit("RBRACE", 1);
      case 64: // "@"
        if (next === "@") return this.emitText("ATAT", "@@");
        if (next === "(") return this.heredoc();
        return this.emit("AT", 1);
      case 124: // "|"
        if (next === ">")
          return this.text[this.pos + 2] === ">"
            ? this.emitText("RRCOLLECT", "|>>")
            : this.emitText("RCOLLECT", "|>");
        return this.emit("PIPE", 1);
      case 61: // "="
        if (next === "=") return this.emitText("ISEQUAL", "==");
        if (next === ">") return this.emitText("FARROW", "=>");
        if (next === "~") return this.emitText("MATCH", "=~");
        return this.emit("EQUALS", 1);
      case 43: // "+"
        if (next === "=") return this.emitText("APPENDS", "+=");
        if (next === ">") return this.emitText("PARROW", "+>");
        return this.emit("PLUS", 1);
      case 45: // "-"
        if (this.eppMode !== undefined && next === "%" && this.text[this.pos + 2] === ">") {
          return this.eppEnd(3, "EPP_END_TRIM", true);
        }
        if (next === ">") return this.emitText("IN_EDGE", "->");
        if (next === "=") return this.emitText("DELETES", "-=");
        return this.emit("MINUS", 1);
      case 33: // "!"
        if (next === "=") return this.emitText("NOTEQUAL", "!=");
        if (next === "~") return this.emitText("NOMATCH", "!~");
        return this.emit("NOT", 1);
      case 126: // "~"
        return this.emit(next === ">" ? "IN_EDGE_SUB" : "TILDE", next === ">" ? 2 : 1);
      case 47: // "/"
        return this.slash();
      case 60: // "<"
        if (next === "<")
          return this.text[this.pos + 2] === "|"
            ? this.emitText("LLCOLLECT", "<<|")
            : this.emitText("LSHIFT", "<<");
        if (next === "=") return this.emitText("LESSEQUAL", "<=");
        if (next === "|") return this.emitText("LCOLLECT", "<|");
        if (next === "-") return this.emitText("OUT_EDGE", "<-");
        if (next === "~") return this.emitText("OUT_EDGE_SUB", "<~");
        return this.emit("LESSTHAN", 1);
      case 62: // ">"
        if (next === ">") return this.emitText("RSHIFT", ">>");
        if (next === "=") return this.emitText("GREATEREQUAL", ">=");
        return this.emit("GREATERTHAN", 1);
      case 58: // ":"
        return this.colon();
      case 36: // "$"
        return this.dollar();
      case 34: // '"'
        return this.doubleQuoted();
      case 39: // "'"
        return this.singleQuoted();
    }
    if (/\s/.test(this.text[this.pos] as string)) {
      this.pos++;
      return;
    }
    // Puppet shows an unknown character as '' in its syntax error.
    this.push("OTHER", "", this.pos, 1);
    this.pos++;
  }

  // --- names, references, variables, numbers ------------------------------

  /** Puppet's bare word: `::`-separated segments of [a-z_][\w-]*, none ending in `-`. */
  private scanBareWord(from: number): number {
    const text = this.text;
    let at = from;
    let end = from;
    for (;;) {
      let p = at;
      if (text.startsWith("::", p)) p += 2;
      if (!isLower(text.charCodeAt(p))) return end;
      p++;
      let last = p;
      while (p < text.length) {
        const c = text.charCodeAt(p);
        if (isWordChar(c)) last = ++p;
        else if (c === 45) p++;
        else break;
      }
      end = last;
      at = last;
    }
  }

  private scanClassRef(from: number): number {
    const text = this.text;
    let at = from;
    let end = from;
    for (;;) {
      let p = at;
      if (text.startsWith("::", p)) p += 2;
      if (!isUpper(text.charCodeAt(p))) return end;
      p++;
      while (p < text.length && isWordChar(text.charCodeAt(p))) p++;
      end = p;
      at = p;
    }
  }

  private name(): undefined {
    const before = this.pos;
    const text = this.text;
    let p = before + 1;
    // isWordChar written out: a call per character costs until V8 inlines it, and most tokens are names.
    for (; p < text.length; p++) {
      const c = text.charCodeAt(p);
      if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95)) break;
    }
    const stop = text.charCodeAt(p);
    if (stop !== 45 && stop !== 58) {
      // One segment without `-` (most names): a NAME unless it starts with `_`.
      const slot = recentSlot(text, before, p);
      const seen = this.recentText(before, p, slot);
      if (seen !== undefined && (this.recentKind as TokenKind[])[slot] !== "STRING") {
        this.pos = p;
        this.matched = seen;
        return this.push((this.recentKind as TokenKind[])[slot] as TokenKind, seen, before, p - before);
      }
      const value = this.intern(text.slice(before, p));
      this.pos = p;
      this.matched = value;
      const kind =
        text.charCodeAt(before) === 95
          ? "WORD"
          : ((value.length <= 8 ? KEYWORDS.get(value) : undefined) ?? "NAME");
      this.remember(slot, value, kind);
      return this.push(kind, value, before, p - before);
    }
    const end = this.scanBareWord(before);
    const value = this.text.slice(before, end);
    this.pos = end;
    this.matched = value;
    if (isPlainName(this.text, before, end)) {
      const keyword = value.length <= 8 ? KEYWORDS.get(value) : undefined;
      this.push(keyword ?? "NAME", value, before, end - before);
    } else this.push("WORD", value, before, end - before);
  }

  private classRef(): undefined {
    const before = this.pos;
    const end = this.scanClassRef(before);
    if (end === before || this.text.startsWith("::", end)) {
      this.fail("ILLEGAL_CLASS_REFERENCE", "Illegal class reference", end + 1);
    }
    this.pos = end;
    this.matched = this.text.slice(before, end);
    this.push("CLASSREF", this.matched, before, end - before);
  }

  private colon(): undefined {
    const before = this.pos;
    if (this.text[before + 1] !== ":") return this.emit("COLON", 1);
    const c = this.text.charCodeAt(before + 2);
    if (isUpper(c)) {
      const end = this.scanClassRef(before);
      if (end === before || this.text.startsWith("::", end)) {
        this.fail(
          "ILLEGAL_FULLY_QUALIFIED_CLASS_REFERENCE",
          "Illegal fully qualified class reference",
          end + 3,
        );
      }
      this.pos = end;
      return this.push("CLASSREF", this.text.slice(before, end), before, end - before);
    }
    const end = this.scanBareWord(before);
    if (end === before) this.fail("ILLEGAL_FULLY_QUALIFIED_NAME", "Illegal fully qualified name", before + 2);
    const value = this.text.slice(before, end);
    this.pos = end;
    this.push(NAME_PATTERN.test(value) ? "NAME" : "WORD", value, before, end - before);
  }

  /** The end of `(::)?(\w+::)*\w+` from `from`, or `from` when there is none. */
  private scanVariableName(from: number): number {
    const text = this.text;
    let p = from;
    if (text.startsWith("::", p) && isWordChar(text.charCodeAt(p + 2))) p += 2;
    if (!isWordChar(text.charCodeAt(p))) return from;
    for (;;) {
      while (p < text.length && isWordChar(text.charCodeAt(p))) p++;
      if (text.startsWith("::", p) && isWordChar(text.charCodeAt(p + 2))) p += 2;
      else return p;
    }
  }

  private dollar(): undefined {
    const before = this.pos;
    const end = this.scanVariableName(before + 1);
    this.pos = end === before + 1 ? before + 1 : end;
    if (end === before + 1) this.matched = undefined;
    else this.matchRange(before, end);
    this.push("VARIABLE", this.text.slice(before + 1, end), before, this.pos - before);
  }

  private number(): undefined {
    const before = this.pos;
    NUMBER_PATTERN.lastIndex = before;
    const match = NUMBER_PATTERN.exec(this.text);
    if (match) {
      const value = match[0];
      this.matched = value;
      this.assertNumeric(value, before);
      this.pos = before + value.length;
      return this.push("NUMBER", value, before, value.length);
    }
    // Puppet reports the whole word, widened back over "digits." before it.
    const word = /\w+/y;
    word.lastIndex = before;
    const after = before + (word.exec(this.text)?.[0].length ?? 1);
    let start = before;
    if (start > 1 && this.text[start - 1] === ".") {
      let p = start - 2;
      while (p >= 0 && isDigit(this.text.charCodeAt(p))) {
        start = p;
        if (p === 0) break;
        p--;
      }
    }
    const invalid = this.text.slice(start, after);
    this.assertNumeric(invalid, start);
    this.fail("ILLEGAL_NUMBER", `Illegal number '${invalid}'`, start + 1);
  }

  private assertNumeric(value: string, at: number): undefined {
    if (/^0[xX]/.test(value)) {
      if (!/^0[xX][0-9A-Fa-f]+$/.test(value)) {
        this.fail("INVALID_HEX_NUMBER", `Not a valid hex number ${value}`, at);
      }
    } else if (/^0[^.]/.test(value)) {
      if (!/^0[0-7]+$/.test(value))
        this.fail("INVALID_OCTAL_NUMBER", `Not a valid octal number ${value}`, at);
    } else if (/^\d+[eE.]/.test(value)) {
      if (!/^\d+(?:\.\d+)?(?:[eE]-?\d+)?$/.test(value)) {
        this.fail("INVALID_DECIMAL_NUMBER", `Not a valid decimal number ${value}`, at);
      }
    } else if (!/^\d+$/.test(value)) this.fail("ILLEGAL_NUMBER", `Illegal number '${value}'`, at);
  }

  // --- comments, division and regular expressions -----------------------

  private regexAcceptable(): boolean {
    switch (this.after) {
      case "RPAREN":
      case "RBRACK":
      case "RRCOLLECT":
      case "RCOLLECT":
      case "NAME":
      case "CLASSREF":
      case "NUMBER":
      case "STRING":
      case "BOOLEAN":
      case "DQPRE":
      case "DQMID":
      case "DQPOST":
      case "HEREDOC":
      case "REGEX":
      case "VARIABLE":
      case "WORD":
        return false;
      default:
        return true;
    }
  }

  private slash(): undefined {
    const before = this.pos;
    if (this.text[before + 1] === "*") {
      const end = this.text.indexOf("*/", before + 2);
      if (end === -1) this.fail("UNCLOSED_MLCOMMENT", "Unclosed multiline comment", before);
      this.pos = end + 2;
      return;
    }
    if (this.regexAcceptable()) {
      let end = this.text.indexOf("/", before + 1);
      if (end !== -1) {
        while (escapedEnd(this.text, before, end)) {
          end = this.text.indexOf("/", end + 1);
          if (end === -1) return this.emit("DIV", 1);
        }
        const pattern = this.text.slice(before + 1, end).replace(/\\\//g, "/");
        this.pos = end + 1;
        return this.push("REGEX", pattern, before, end + 1 - before);
      }
    }
    this.emit("DIV", 1);
  }

  // --- strings ----------------------------------------------------------------

  private singleQuoted(): undefined {
    const before = this.pos;
    const text = this.text;
    let p = before + 1;
    while (p < text.length) {
      const c = text.charCodeAt(p);
      if (c === 92) p += 2;
      else if (c === 39) break;
      else p++;
    }
    if (p >= text.length) {
      this.fail(
        "UNCLOSED_QUOTE",
        `Unclosed quote after "'" followed by '${this.followedBy(before + 1)}'`,
        before + 1,
      );
    }
    this.pos = p + 1;
    // Short strings repeat (`'0644'`, `'root'`); titles and the like do not.
    if (p - before - 1 <= 12) {
      const slot = recentSlot(text, before + 1, p);
      const seen = this.recentText(before + 1, p, slot);
      if (seen !== undefined && (this.recentKind as TokenKind[])[slot] === "STRING")
        return this.push("STRING", seen, before, this.pos - before);
      const raw = text.slice(before + 1, p);
      if (raw.includes("\\"))
        return this.push("STRING", this.intern(raw.replace(/\\([\\'])/g, "$1")), before, this.pos - before);
      const value = this.intern(raw);
      this.remember(slot, value, "STRING");
      return this.push("STRING", value, before, this.pos - before);
    }
    const raw = text.slice(before + 1, p);
    const value = raw.includes("\\") ? raw.replace(/\\([\\'])/g, "$1") : raw;
    this.push("STRING", value, before, this.pos - before);
  }

  /**
   * Scans string text up to an unescaped terminator: `"` (double quoted),
   * `$` or `${` (interpolation), or the end (heredoc text). Returns the
   * decoded text; the terminator ("" at the end) is left in `terminator`,
   * the position after it in `pos`. (Not a pair: a string's pieces are
   * slurped once per resource or more, and the destructuring of a returned
   * array goes through the iterator protocol until V8 optimizes the caller.)
   */
  private slurp(dq: boolean, quote?: string): string {
    const text = this.text;
    const start = this.pos;
    const backslashes = dq || this.slurpMode === "uq";
    const dollars = dq || this.slurpMode !== "all";
    const escapes = dq ? DQ_ESCAPES : this.escapes;
    let p = start;
    // Puppet's pattern needs one character before a terminator and takes the
    // first character of the text for it: a terminator there is text when
    // another follows (after pairs of backslashes), as in `"$x"$y`.
    if (backslashes && isTerminator(text.charCodeAt(start), dq)) {
      let q = start + 1;
      while (text.charCodeAt(q) === 92 && text.charCodeAt(q + 1) === 92) q += 2;
      if (isTerminator(text.charCodeAt(q), dq)) p = start + 1;
    }
    for (;;) {
      if (p >= text.length) {
        if (dq) {
          // What was matched before this text (nothing is matched while scanning it).
          const after = quote ?? this.matched;
          this.fail(
            "UNCLOSED_QUOTE",
            `Unclosed quote after ${after === "'" ? `"'"` : `'${after ?? ""}'`} followed by '${this.followedBy(start)}'`,
            start,
          );
        }
        this.pos = text.length;
        this.terminator = "";
        return this.unescape(text.slice(start), escapes, true);
      }
      const c = text.charCodeAt(p);
      if (c === 92 && backslashes) p += 2;
      else if (dq && c === 34) {
        this.pos = p + 1;
        this.matchRange(Math.max(start, p - 1), p + 1);
        this.terminator = '"';
        return this.unescape(text.slice(start, p), escapes, false);
      } else if (c === 36 && dollars) {
        const terminator = text[p + 1] === "{" ? "${" : "$";
        this.pos = p + terminator.length;
        this.matchRange(Math.max(start, p - 1), this.pos);
        this.terminator = terminator;
        return this.unescape(text.slice(start, p), escapes, !dq);
      } else p++;
    }
  }

  /** Puppet's escape processing of one slurped piece of string text. */
  private unescape(raw: string, escapes: readonly string[], ignoreInvalid: boolean): string {
    if (!raw.includes("\\")) return raw;
    let str = raw;
    if (escapes.includes("u") && str.includes("\\u")) {
      const unicode = /((?:[^\\]|^)(?:\\\\)*)\\u(?:([\da-fA-F]{4})|\{([\da-fA-F]{1,6})\})/gm;
      for (;;) {
        let bad = false;
        const next = str.replace(unicode, (_m, lead: string, four?: string, braced?: string) => {
          const cp = Number.parseInt((four ?? braced) as string, 16);
          if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
            bad = true;
            return _m;
          }
          return lead + String.fromCodePoint(cp);
        });
        if (bad) this.fail("ILLEGAL_UNICODE_ESCAPE", ILLEGAL_UNICODE, this.pos);
        if (next === str) break;
        str = next;
      }
    }
    // Each backslash and what it escapes (one character, or a line break:
    // a backslash before a lone \r escapes nothing).
    let out = "";
    let last = 0;
    let i = str.indexOf("\\");
    while (i !== -1 && i + 1 < str.length) {
      let ch = str[i + 1] as string;
      let length = 2;
      if (ch === "\r") {
        if (str[i + 2] !== "\n") {
          i = str.indexOf("\\", i + 1);
          continue;
        }
        ch = "\r\n";
        length = 3;
      }
      out += str.slice(last, i) + this.escaped(ch, escapes, ignoreInvalid);
      last = i + length;
      i = str.indexOf("\\", last);
    }
    return last === 0 ? str : out + str.slice(last);
  }

  /** What a backslash and `ch` become. */
  private escaped(ch: string, escapes: readonly string[], ignoreInvalid: boolean): string {
    if (escapes.includes(ch)) {
      switch (ch) {
        case "r":
          return "\r";
        case "n":
          return "\n";
        case "t":
          return "\t";
        case "s":
          return " ";
        case "u":
          this.warn("ILLEGAL_UNICODE_ESCAPE", ILLEGAL_UNICODE, this.pos);
          return "\\u";
        case "\n":
        case "\r\n":
          return "";
        default:
          return ch;
      }
    }
    if (!ignoreInvalid) this.warn("UNRECOGNIZED_ESCAPE", `Unrecognized escape sequence '\\${ch}'`, this.pos);
    return `\\${ch}`;
  }

  private doubleQuoted(): undefined {
    const before = this.pos;
    this.pos++;
    this.interpolate(before, true);
  }

  /**
   * The segments of an interpolating string from `before` (its opening
   * quote, or the start of heredoc text): a STRING when nothing is
   * interpolated, else DQPRE, the tokens of each `${…}` or `$name`, DQMIDs
   * between and a DQPOST.
   */
  private interpolate(before: number, dq: boolean): undefined {
    const endKind = dq ? '"' : "";
    let segmentStart = before;
    let first = true;
    let text = this.slurp(dq, '"');
    let terminator = this.terminator;
    let after = this.pos;
    for (;;) {
      if (terminator === endKind) {
        this.push(first ? "STRING" : "DQPOST", text, segmentStart, this.pos - segmentStart);
        return;
      }
      if (terminator === "${") {
        const count = this.braceCount++;
        this.push(first ? "DQPRE" : "DQMID", text, segmentStart, this.pos - segmentStart, false);
        this.lexUntil(count);
      } else {
        const end = this.scanVariableName(this.pos);
        if (end === this.pos) {
          this.matched = undefined;
          const more = this.slurp(dq);
          text += terminator + more;
          terminator = this.terminator;
          after = this.pos;
          continue;
        }
        this.push(first ? "DQPRE" : "DQMID", text, segmentStart, after - segmentStart - 1, false);
        this.matched = this.text.slice(this.pos, end);
        this.push("VARIABLE", this.matched, after - 1, end - after + 1, false);
        this.pos = end;
      }
      first = false;
      segmentStart = this.pos;
      text = this.slurp(dq);
      terminator = this.terminator;
      after = this.pos;
    }
  }

  /** Lexes the tokens of `${…}` up to the `}` that brings the brace count back to `count`. */
  private lexUntil(count: number): undefined {
    const start = this.out.length;
    this.skipBlanks();
    while (this.pos < this.text.length) {
      const size = this.out.length;
      this.lexToken();
      if (this.out.length === size) {
        this.skipBlanks();
        continue;
      }
      const last = this.out[this.out.length - 1];
      if (this.out.length > size && last?.kind === "RBRACE" && this.braceCount === count) {
        this.out.pop();
        const inner = this.out.length - start;
        const second = this.out[start + 1]?.kind;
        if (inner === 1 || (inner > 1 && (second === "DOT" || second === "LBRACK"))) {
          toVariable(this.out[start] as Token);
        }
        return;
      }
    }
    // Unclosed: the parser reports the end of input.
  }

  // --- heredocs ------------------------------------------------------------

  private heredoc(): undefined {
    const before = this.pos;
    const text = this.text;
    const close = text.indexOf(")", before);
    if (close === -1) {
      this.fail(
        "HEREDOC_UNCLOSED_PARENTHESIS",
        `Unclosed parenthesis after '@(' followed by '${this.followedBy(before)}'`,
        before,
      );
    }
    const afterParen = close + 1;
    const spec = HEREDOC_PATTERN.exec(text.slice(before, afterParen));
    if (!spec) {
      this.fail(
        "HEREDOC_INVALID_SYNTAX",
        "Invalid syntax in heredoc expected @(endtag[:syntax][/escapes])",
        afterParen,
      );
    }
    let endTag = (spec[1] as string).trim();
    let interpolating = false;
    const quoted = /^"(.*)"$/.exec(endTag);
    if (quoted) {
      interpolating = true;
      endTag = (quoted[1] as string).trim();
    }
    if (endTag.length < 1) this.fail("HEREDOC_EMPTY_ENDTAG", "Heredoc with an empty endtag", afterParen);
    const escapes = this.heredocEscapes(spec[3], afterParen);
    this.push("HEREDOC", spec[2] ?? "", before, afterParen - before);

    let p: number;
    if (this.newlineJump !== undefined) p = this.newlineJump;
    else {
      const nl = text.indexOf("\n", afterParen);
      if (nl === -1)
        this.fail("HEREDOC_WITHOUT_TEXT", "Heredoc without any following lines of text", afterParen);
      p = nl + 1;
    }
    const unterminated = p;
    const bodyStart = p;
    const endLine = new RegExp(
      `(${BLANK}*)(?:(\\|)${BLANK}*)?(?:(-)${BLANK}*)?${endTag.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&")}${BLANK}*\\r?(?:\\n|$)`,
    );
    const lines: string[] = [];
    const lineStarts: number[] = [];
    while (p < text.length) {
      const nl = text.indexOf("\n", p);
      const lineEnd = nl === -1 ? text.length : nl + 1;
      const line = text.slice(p, lineEnd);
      const m = endLine.exec(line);
      if (m) {
        this.newlineJump = lineEnd;
        this.heredocText(lines, lineStarts, m, escapes, interpolating, bodyStart);
        this.pos = afterParen;
        return;
      }
      lines.push(line);
      lineStarts.push(p);
      p = lineEnd;
    }
    this.fail("HEREDOC_WITHOUT_END_TAGGED_LINE", "Heredoc without end-tagged line", unterminated);
  }

  private heredocEscapes(spec: string | undefined, at: number): string[] {
    if (spec === undefined) return [];
    const letters = (spec.length < 1 ? "trnsuL$" : spec).split("");
    if (new Set(letters).size !== letters.length) {
      this.fail(
        "HEREDOC_MULTIPLE_AT_ESCAPES",
        `An escape char for @() may only appear once. Got '${letters.join(", ")}'`,
        at,
      );
    }
    const result = ["\\"];
    for (const e of letters) {
      if ("trnsu$".includes(e)) result.push(e);
      else if (e === "L") result.push("\n", "\r\n");
      else {
        this.fail(
          "HEREDOC_INVALID_ESCAPE",
          `Invalid heredoc escape char. Only t, r, n, s,  u, L, $ allowed. Got '${e}'`,
          at,
        );
      }
    }
    return result;
  }

  private heredocText(
    lines: string[],
    lineStarts: number[],
    m: RegExpExecArray,
    escapes: string[],
    interpolating: boolean,
    bodyStart: number,
  ): undefined {
    const leading = m[1] as string;
    const margins = lines.map((l) =>
      m[2] === "|" && leading.length > 0 && l.startsWith(leading) ? leading.length : 0,
    );
    let str = lines.map((l, i) => l.slice(margins[i])).join("");
    if (m[3] === "-") str = str.replace(/\r?\n$/, "");
    // Map an offset in the margin-stripped text back to the source.
    const starts: number[] = [];
    let at = 0;
    for (let i = 0; i < lines.length; i++) {
      starts.push(at);
      at += (lines[i] as string).length - (margins[i] as number);
    }
    const outer = this.map;
    const map: OffsetMap = (offset) => {
      let i = starts.length - 1;
      while (i > 0 && (starts[i] as number) > offset) i--;
      const local =
        starts.length === 0
          ? bodyStart + offset
          : (lineStarts[i] as number) + (margins[i] as number) + offset - (starts[i] as number);
      return outer ? outer(local) : local;
    };
    const sub = new Lexer(str, map, false, this.names);
    sub.escapes = escapes;
    sub.slurpMode = interpolating ? (escapes.includes("$") ? "uq" : "uqne") : "all";
    sub.after = this.after;
    sub.interpolate(0, false);
    for (const token of sub.out) this.out.push(token);
    for (const w of sub.warnings) this.warnings.push(w);
  }

  // --- EPP -------------------------------------------------------------------

  private eppEnd(length: number, kind: TokenKind, trim: boolean): undefined {
    const before = this.pos;
    this.pos += length;
    if (this.eppMode === "expr") this.push(kind, this.text.slice(before, this.pos), before, length);
    if (!trim) this.eppMode = "text";
    this.interpolateEpp(trim);
  }

  /** Template text up to the next tag: a RENDER_STRING, then the tag's mode. */
  private interpolateEpp(skipLeading: boolean): undefined {
    const before = this.pos;
    const scanned = scanEppText(this.text, this.pos, skipLeading);
    if (scanned.error) this.fail(scanned.error[0], scanned.error[1], scanned.end);
    this.pos = scanned.end;
    const s = scanned.text;
    if (scanned.mode === "text") {
      if (s !== undefined) this.push("RENDER_STRING", s, before, this.pos - before);
      this.eppOpen = undefined;
      return;
    }
    if (s !== undefined && s.length > 0) this.push("RENDER_STRING", s, before, this.pos - before);
    if (scanned.mode === "expr") this.push("RENDER_EXPR", "", before, 0);
    this.eppMode = scanned.mode;
    this.eppOpen = this.pos;
  }
}

const ILLEGAL_UNICODE =
  "Unicode escape '\\u' was not followed by 4 hex digits or 1-6 hex digits in {} or was > 10ffff";

/** Whether `c` ends a piece of string text: `$`, or `"` in a double-quoted string. */
function isTerminator(c: number, dq: boolean): boolean {
  return c === 36 || (dq && c === 34);
}

/** Whether the `/` at `end` is escaped (an odd run of backslashes before it, after `start`). */
function escapedEnd(text: string, start: number, end: number): boolean {
  if (text[end - 1] !== "\\") return false;
  let escaped = false;
  for (let i = start + 1; i < end; i++) escaped = text[i] === "\\" ? !escaped : false;
  return escaped;
}

/** A lone name, number or keyword inside `${}` names a variable. */
function toVariable(token: Token): void {
  if (
    token.kind === "NUMBER" ||
    token.kind === "NAME" ||
    token.kind === "WORD" ||
    KEYWORD_KINDS.has(token.kind)
  ) {
    token.kind = "VARIABLE";
  } else if (token.kind === "BOOLEAN") {
    // Puppet keeps the boolean: "${true}" reads a variable named true (the value, not the text).
    token.kind = "VARIABLE";
    token.boolean = true;
  }
}

interface EppScan {
  mode: "text" | "epp" | "expr";
  text: string | undefined;
  end: number;
  error?: [PuppetIssueCode, string];
}

/** EPP text from `pos` to the next `<%` tag (Puppet's EppScanner). */
export function scanEppText(src: string, pos: number, skip: boolean): EppScan {
  if (pos >= src.length) return { mode: "text", text: undefined, end: pos };
  let skipLeading = skip;
  let s = "";
  let p = pos;
  while (p < src.length) {
    const tag = src.indexOf("<%", p);
    let part = tag === -1 ? src.slice(p) : src.slice(p, tag + 2);
    p = tag === -1 ? src.length : tag + 2;
    if (skipLeading) {
      part = part.replace(/^[ \t]*\r?(?:\n|$)?/, "");
      skipLeading = false;
    }
    s += part.replace(/%%>/g, "%>");
    const c = src[p];
    if (c === undefined) {
      if (s.endsWith("<%")) {
        return {
          mode: "text",
          text: s,
          end: p,
          error: [
            "EPP_UNBALANCED_EXPRESSION",
            "Unbalanced embedded expression - opening <% and reaching end of input",
          ],
        };
      }
      return { mode: "text", text: s, end: p };
    }
    if (c === "-") return { mode: "epp", text: s.replace(/[ \t]*<%$/, ""), end: p + 1 };
    if (c === "%") {
      p++;
      continue;
    }
    if (c === "=") return { mode: "expr", text: s.slice(0, -2), end: p + 1 };
    if (c === "#") {
      s = s.slice(0, -2);
      const close = /[^%]%>/g;
      close.lastIndex = p;
      const m = close.exec(src);
      if (!m) {
        return {
          mode: "text",
          text: s,
          end: p,
          error: ["EPP_UNBALANCED_COMMENT", "Reaching end after opening <%# without seeing %>"],
        };
      }
      const comment = src.slice(p, m.index + 3);
      p = m.index + 3;
      if (comment[1] === "-") s = s.replace(/[ \t]*$/, "");
      if (comment.endsWith("-%>")) skipLeading = true;
      continue;
    }
    return { mode: "epp", text: s.slice(0, -2), end: p };
  }
  return { mode: "text", text: s, end: p };
}
