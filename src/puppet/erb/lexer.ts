/**
 * ERB's scanner (trim mode `-`, as Puppet creates its templates) and a lexer
 * for the Ruby subset. The template becomes one token stream: literal text
 * is a `text` token, `<%= e %>` an `out` token before the tokens of `e`, and
 * every tag boundary a statement separator (`nl`), as ERB joins the pieces
 * of the Ruby program it generates with `; `.
 *
 * Trim mode `-`: `<%-` at the start of a line (after spaces and tabs) drops
 * that indentation, `-%>` followed by a newline drops the newline, `<%%` is
 * a literal `<%` in text and `%%>` a literal `%>` inside a tag, `<%#` is a
 * comment.
 */
import { TemplateError } from "./errors.js";

export type TokenKind =
  | "text"
  | "out"
  | "nl"
  | "int"
  | "float"
  | "str"
  | "xstr"
  | "sym"
  | "dsym"
  | "regex"
  | "words"
  | "symbols"
  | "ivar"
  | "gvar"
  | "ident"
  | "const"
  | "label"
  | "kw"
  | "op"
  | "eof";

/** A piece of an interpolated string: literal text or the tokens of `#{...}`. */
export type StrPart = string | Token[];

export interface Token {
  readonly kind: TokenKind;
  /** The text: identifier, operator, keyword, literal text, number digits. */
  readonly value: string;
  readonly line: number;
  /** Whitespace precedes the token on its line (Ruby's `foo [1]` vs `foo[1]`). */
  readonly spaced: boolean;
  /** String, symbol and regexp contents. */
  readonly parts?: StrPart[];
  /** Regexp flags; %w words. */
  readonly extra?: string;
  readonly words?: string[];
}

const KEYWORDS = new Set(
  "if elsif else unless end case when then do while until and or not nil true false self begin rescue ensure return next break yield in for def class module __FILE__ __LINE__ defined?".split(
    " ",
  ),
);

const OPERATORS = [
  "**=",
  "<=>",
  "===",
  "...",
  "<<=",
  ">>=",
  "&&=",
  "||=",
  "**",
  "==",
  "!=",
  ">=",
  "<=",
  "&&",
  "||",
  "<<",
  ">>",
  "=~",
  "!~",
  "..",
  "::",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "|=",
  "&=",
  "^=",
  "=>",
  "->",
  "&.",
  "+",
  "-",
  "*",
  "/",
  "%",
  "=",
  "<",
  ">",
  "!",
  "&",
  "|",
  "^",
  "~",
  "?",
  ":",
  ",",
  ".",
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  ";",
];

/** Tokens after which `/` divides and `[` indexes (the previous token ends a value). */
function endsValue(t: Token | undefined): boolean {
  if (!t) return false;
  switch (t.kind) {
    case "int":
    case "float":
    case "str":
    case "sym":
    case "dsym":
    case "regex":
    case "words":
    case "symbols":
    case "ivar":
    case "gvar":
    case "ident":
    case "const":
      return true;
    case "kw":
      return (
        t.value === "end" ||
        t.value === "self" ||
        t.value === "nil" ||
        t.value === "true" ||
        t.value === "false"
      );
    case "op":
      return t.value === ")" || t.value === "]" || t.value === "}";
    default:
      return false;
  }
}

/** Tokenizes a whole template. */
export function lexTemplate(source: string, file: string): Token[] {
  const tokens: Token[] = [];
  const push = (kind: TokenKind, value: string, line: number): void => {
    tokens.push({ kind, value, line, spaced: false });
  };
  let i = 0;
  let line = 1;
  let text = "";
  let textLine = 1;
  const flushText = (): void => {
    if (text !== "") {
      push("text", text, textLine);
      push("nl", ";", textLine);
    }
    text = "";
  };
  const atLineStart = (pos: number): boolean => pos === 0 || source[pos - 1] === "\n";
  while (i < source.length) {
    // `<%-` at a line's start after blanks: the blanks go.
    if (atLineStart(i)) {
      const m = /^[ \t]*<%-/.exec(source.slice(i, i + 200));
      if (m) {
        i += m[0].length;
        flushText();
        i = lexTag(source, i, "", file, line, tokens, (l) => (line = l));
        textLine = line;
        continue;
      }
    }
    if (source.startsWith("<%", i)) {
      const next = source[i + 2];
      if (next === "%") {
        if (text === "") textLine = line;
        text += "<%";
        i += 3;
        continue;
      }
      flushText();
      let kind = "";
      i += 2;
      if (next === "-") i++;
      else if (next === "=" || next === "#") {
        kind = next;
        i++;
      }
      i = lexTag(source, i, kind, file, line, tokens, (l) => (line = l));
      textLine = line;
      continue;
    }
    if (text === "") textLine = line;
    const c = source[i] as string;
    if (c === "\n") line++;
    text += c;
    i++;
  }
  flushText();
  tokens.push({ kind: "eof", value: "", line, spaced: false });
  return tokens;
}

/** Lexes one tag's code from `start` to its `%>`; returns the position after the tag (and the trimmed newline). */
function lexTag(
  source: string,
  start: number,
  kind: string,
  file: string,
  line: number,
  tokens: Token[],
  setLine: (l: number) => void,
): number {
  // The tag ends at the first `%>` not written `%%>`.
  let j = start;
  let code = "";
  for (;;) {
    if (j >= source.length) throw new TemplateError("unterminated ERB tag: '%>' expected", file, line);
    if (source.startsWith("%%>", j)) {
      code += "%>";
      j += 3;
      continue;
    }
    if (source.startsWith("-%>", j)) {
      j += 3;
      if (source[j] === "\n") j++;
      else if (source.startsWith("\r\n", j)) j += 2;
      break;
    }
    if (source.startsWith("%>", j)) {
      j += 2;
      break;
    }
    code += source[j];
    j++;
  }
  const endLine = line + countNewlines(source.slice(start, j));
  if (kind !== "#") {
    if (kind === "=") tokens.push({ kind: "out", value: "=", line, spaced: false });
    new RubyLexer(code, file, line, tokens).run();
    tokens.push({ kind: "nl", value: ";", line: endLine, spaced: false });
  }
  setLine(endLine);
  return j;
}

function countNewlines(s: string): number {
  let n = 0;
  for (const c of s) if (c === "\n") n++;
  return n;
}

/** Lexes Ruby code into `out`. */
export class RubyLexer {
  private i = 0;
  constructor(
    private readonly src: string,
    private readonly file: string,
    private line: number,
    private readonly out: Token[],
  ) {}

  private fail(message: string): never {
    throw new TemplateError(message, this.file, this.line);
  }

  private push(kind: TokenKind, value: string, spaced: boolean, more?: Partial<Token>): void {
    this.out.push({ kind, value, line: this.line, spaced, ...more });
  }

  run(): void {
    const s = this.src;
    let spaced = false;
    while (this.i < s.length) {
      const c = s[this.i] as string;
      if (c === " " || c === "\t" || c === "\r") {
        this.i++;
        spaced = true;
        continue;
      }
      if (c === "\\" && s[this.i + 1] === "\n") {
        this.i += 2;
        this.line++;
        continue;
      }
      if (c === "\n") {
        this.push("nl", "\n", spaced);
        this.line++;
        this.i++;
        spaced = false;
        continue;
      }
      if (c === "#") {
        while (this.i < s.length && s[this.i] !== "\n") this.i++;
        continue;
      }
      this.token(c, spaced);
      spaced = false;
    }
  }

  private token(c: string, spaced: boolean): void {
    const s = this.src;
    const prev = this.out[this.out.length - 1];
    if (/[0-9]/.test(c)) {
      this.number(spaced);
      return;
    }
    if (/[A-Za-z_]/.test(c) || c.charCodeAt(0) > 127) {
      this.word(spaced);
      return;
    }
    if (c === "@") {
      const m = /^@@?[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(this.i));
      if (!m) this.fail("'@' must be followed by a variable name");
      this.i += m[0].length;
      this.push("ivar", m[0].replace(/^@+/, ""), spaced);
      return;
    }
    if (c === "$") {
      const m = /^\$([A-Za-z_][A-Za-z0-9_]*|[0-9~!@&`'+*$?:"<>,./\\;])/.exec(s.slice(this.i));
      if (!m) this.fail("'$' must be followed by a variable name");
      this.i += m[0].length;
      this.push("gvar", m[1] as string, spaced);
      return;
    }
    if (c === '"' || c === "`") {
      this.i++;
      const parts = this.quoted(c, c, true);
      this.push(c === "`" ? "xstr" : "str", "", spaced, { parts });
      return;
    }
    if (c === "'") {
      this.i++;
      this.push("str", "", spaced, { parts: [this.single("'", "'")] });
      return;
    }
    if (c === ":" && s[this.i + 1] !== ":") {
      const rest = s.slice(this.i + 1);
      const m = /^([A-Za-z_][A-Za-z0-9_]*[?!=]?|\[\]=?|<=>|===?|=~|[+\-*/%<>!]|<<|>>|<=|>=|\*\*)/.exec(rest);
      const valueContext = !endsValue(prev) || spaced;
      if (m && valueContext && !(prev?.kind === "op" && prev.value === "?" && false)) {
        this.i += 1 + (m[1] as string).length;
        this.push("sym", m[1] as string, spaced);
        return;
      }
      if (rest[0] === '"' && valueContext) {
        this.i += 2;
        this.push("dsym", "", spaced, { parts: this.quoted('"', '"', true) });
        return;
      }
    }
    if (c === "%" && (!endsValue(prev) || (spaced && !/[\s=]/.test(s[this.i + 1] ?? " ")))) {
      const m = /^%([wWiIqQr]?)([^A-Za-z0-9\s])/.exec(s.slice(this.i));
      if (m) {
        this.percent(m[1] as string, m[2] as string, spaced);
        return;
      }
    }
    if (
      c === "/" &&
      (!endsValue(prev) || (spaced && prev?.kind === "ident" && !/\s/.test(s[this.i + 1] ?? " ")))
    ) {
      this.i++;
      const parts = this.quoted("/", "/", true, true);
      const fm = /^[imxounse]*/.exec(s.slice(this.i));
      const flags = fm ? fm[0] : "";
      this.i += flags.length;
      this.push("regex", "", spaced, { parts, extra: flags });
      return;
    }
    if (c === "?" && /^\?[A-Za-z0-9_]\b/.test(s.slice(this.i)) && !endsValue(prev)) {
      this.i += 2;
      this.push("str", "", spaced, { parts: [s[this.i - 1] as string] });
      return;
    }
    if (s.startsWith("<<~", this.i) || s.startsWith("<<-", this.i)) {
      if (/^<<[~-]['"A-Z_]/.test(s.slice(this.i)) && !endsValue(prev))
        this.fail("heredocs are not in the ERB subset");
    }
    for (const op of OPERATORS) {
      if (s.startsWith(op, this.i)) {
        this.i += op.length;
        this.push("op", op, spaced);
        return;
      }
    }
    this.fail(`unexpected character '${c}'`);
  }

  private number(spaced: boolean): void {
    const rest = this.src.slice(this.i);
    let m = /^0[xX][0-9a-fA-F_]+|^0[bB][01_]+|^0[oO]?[0-7_]+(?![0-9.eE])/.exec(rest);
    if (m && m[0] !== "0") {
      this.i += m[0].length;
      let t = m[0].replace(/_/g, "").toLowerCase();
      if (/^0[0-7]/.test(t)) t = `0o${t.slice(1)}`;
      this.push("int", String(BigInt(t)), spaced);
      return;
    }
    m = /^[0-9][0-9_]*(\.[0-9][0-9_]*)?([eE][+-]?[0-9]+)?/.exec(rest);
    const text = (m as RegExpExecArray)[0];
    this.i += text.length;
    const clean = text.replace(/_/g, "");
    if ((m as RegExpExecArray)[1] || (m as RegExpExecArray)[2]) {
      this.push("float", clean, spaced);
      return;
    }
    this.push("int", clean, spaced);
    return;
  }

  private word(spaced: boolean): void {
    const s = this.src;
    const m = /^[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*/.exec(s.slice(this.i)) as RegExpExecArray;
    let w = m[0];
    this.i += w.length;
    const prev = this.out[this.out.length - 1];
    const afterDot = prev?.kind === "op" && (prev.value === "." || prev.value === "&.");
    const nx = s[this.i];
    if ((nx === "?" || nx === "!") && (s[this.i + 1] !== "=" || s.startsWith("==", this.i + 1))) {
      // `empty?`, `gsub!`; not `a ?b : c` (spaced) nor `x != y`.
      if (nx === "!" || !/^\?[A-Za-z0-9_]*\s*:[^:]/.test(s.slice(this.i)) || afterDot) {
        w += nx;
        this.i++;
      }
    }
    if (w === "defined" && s[this.i] === "?") {
      w = "defined?";
      this.i++;
    }
    if (!afterDot && s[this.i] === ":" && s[this.i + 1] !== ":" && !/[?!]$/.test(w)) {
      const before = this.out.slice(-3).some((t) => t.kind === "op" && t.value === "?");
      if (!before) {
        this.i++;
        this.push("label", w, spaced);
        return;
      }
    }
    if (!afterDot && KEYWORDS.has(w)) {
      this.push("kw", w, spaced);
      return;
    }
    if (/^[A-Z]/.test(w)) {
      this.push("const", w, spaced);
      return;
    }
    this.push("ident", w, spaced);
  }

  private percent(kind: string, open: string, spaced: boolean): void {
    const close = { "(": ")", "[": "]", "{": "}", "<": ">" }[open] ?? open;
    this.i += 1 + kind.length + 1;
    if (kind === "w" || kind === "i" || kind === "W" || kind === "I") {
      const body = this.single(open, close, true);
      const words = body.split(/\s+/).filter((x) => x !== "");
      this.push(kind.toLowerCase() === "w" ? "words" : "symbols", "", spaced, { words });
      return;
    }
    if (kind === "q") {
      this.push("str", "", spaced, { parts: [this.single(open, close, true)] });
      return;
    }
    if (kind === "r") {
      const parts = this.quoted(open, close, true, true);
      const fm = /^[imxounse]*/.exec(this.src.slice(this.i));
      const flags = fm ? fm[0] : "";
      this.i += flags.length;
      this.push("regex", "", spaced, { parts, extra: flags });
      return;
    }
    this.push("str", "", spaced, { parts: this.quoted(open, close, true) });
  }

  /** A single-quoted body: only `\\` and the closing quote are escapes. */
  private single(open: string, close: string, nests = false): string {
    const s = this.src;
    let out = "";
    let depth = 0;
    for (;;) {
      if (this.i >= s.length) this.fail("unterminated string meets end of tag");
      const c = s[this.i] as string;
      if (c === "\\" && (s[this.i + 1] === close || s[this.i + 1] === "\\" || s[this.i + 1] === open)) {
        out += s[this.i + 1];
        this.i += 2;
        continue;
      }
      if (nests && c === open && open !== close) depth++;
      else if (c === close) {
        if (depth === 0) {
          this.i++;
          return out;
        }
        depth--;
      }
      if (c === "\n") this.line++;
      out += c;
      this.i++;
    }
  }

  /** A double-quoted body with escapes and `#{}`; regexps keep their escapes for the regexp engine. */
  private quoted(open: string, close: string, nests: boolean, regex = false): StrPart[] {
    const s = this.src;
    const parts: StrPart[] = [];
    let text = "";
    let depth = 0;
    for (;;) {
      if (this.i >= s.length) this.fail("unterminated string meets end of tag");
      const c = s[this.i] as string;
      if (c === "\\") {
        const n = s[this.i + 1] ?? "";
        if (regex) {
          text += n === close && close === "/" ? "/" : c + n;
          this.i += 2;
        } else this.escape(n, (t) => (text += t));
        continue;
      }
      if (c === "#" && s[this.i + 1] === "{") {
        if (text !== "") parts.push(text);
        text = "";
        this.i += 2;
        parts.push(this.interpolation());
        continue;
      }
      if (c === "#" && s[this.i + 1] === "@") {
        const m = /^#@([A-Za-z_][A-Za-z0-9_]*)/.exec(s.slice(this.i));
        if (m) {
          if (text !== "") parts.push(text);
          text = "";
          this.i += m[0].length;
          parts.push([{ kind: "ivar", value: m[1] as string, line: this.line, spaced: false }]);
          continue;
        }
      }
      if (nests && c === open && open !== close) depth++;
      else if (c === close) {
        if (depth === 0) {
          this.i++;
          if (text !== "") parts.push(text);
          return parts;
        }
        depth--;
      }
      if (c === "\n") this.line++;
      text += c;
      this.i++;
    }
  }

  private escape(n: string, add: (t: string) => void): void {
    const s = this.src;
    const simple: Record<string, string> = {
      n: "\n",
      t: "\t",
      s: " ",
      r: "\r",
      "0": "\0",
      e: "\u001b",
      a: "\u0007",
      b: "\b",
      f: "\f",
      v: "\v",
      "\n": "",
    };
    if (n in simple) {
      add(simple[n] as string);
      this.i += 2;
      return;
    }
    if (n === "u") {
      const m = /^\\u(?:\{([0-9a-fA-F ]+)\}|([0-9a-fA-F]{4}))/.exec(s.slice(this.i));
      if (!m) this.fail("invalid Unicode escape");
      const cps = (m[1] ?? m[2] ?? "").trim().split(/\s+/);
      add(cps.map((h) => String.fromCodePoint(Number.parseInt(h, 16))).join(""));
      this.i += m[0].length;
      return;
    }
    if (n === "x") {
      const m = /^\\x([0-9a-fA-F]{1,2})/.exec(s.slice(this.i));
      if (!m) this.fail("invalid hex escape");
      add(String.fromCharCode(Number.parseInt(m[1] as string, 16)));
      this.i += m[0].length;
      return;
    }
    add(n);
    this.i += 2;
  }

  /** `#{ ... }`: the tokens up to the matching brace. */
  private interpolation(): Token[] {
    const s = this.src;
    const start = this.i;
    let depth = 0;
    let j = this.i;
    // Find the matching brace, skipping nested strings.
    while (j < s.length) {
      const c = s[j];
      if (c === "{") depth++;
      else if (c === "}") {
        if (depth === 0) break;
        depth--;
      } else if (c === '"' || c === "'") {
        const q = c;
        j++;
        while (j < s.length && s[j] !== q) j += s[j] === "\\" ? 2 : 1;
      }
      j++;
    }
    if (j >= s.length) this.fail("unterminated '#{' in a string");
    const inner: Token[] = [];
    new RubyLexer(s.slice(start, j), this.file, this.line, inner).run();
    this.line += countNewlines(s.slice(start, j));
    this.i = j + 1;
    return inner;
  }
}
