/**
 * The declarative subset of Ruby that Chef's metadata.rb, roles/*.rb and
 * environments/*.rb are written in, read without evaluating Ruby: a file
 * is a list of method calls (`name 'web'`, `depends 'apt', '>= 2.0'`,
 * `run_list('recipe[a]', 'role[b]')`, `default_attributes 'a' => { b: 1 }`)
 * whose arguments are literals: strings (single and double quoted, without
 * `#{}` interpolation), symbols, integers, floats, true/false/nil, arrays,
 * `%w[]`/`%i[]` word lists and hashes (`'k' => v`, `k: v`; a trailing
 * hash may go without braces, as in Ruby). The one modifier read is
 * `if respond_to?(:method)`, true for the methods the caller knows (an old
 * metadata.rb idiom). Anything else (a variable, a method call on an
 * object, an operator, a block, a heredoc) is Ruby code: the parser stops
 * there with a diagnostic at its offset, never guessing.
 */

/** A literal as written, with the offset of its first character. */
export type RubyNode =
  | {
      readonly type: "scalar";
      readonly value: string | number | boolean | null;
      readonly symbol?: boolean;
      readonly offset: number;
    }
  | { readonly type: "array"; readonly items: readonly RubyNode[]; readonly offset: number }
  | {
      readonly type: "hash";
      readonly entries: readonly { readonly key: RubyNode; readonly value: RubyNode }[];
      readonly offset: number;
    };

/** One statement: a method called with literal arguments. */
export interface RubyCall {
  readonly name: string;
  readonly offset: number;
  readonly args: readonly RubyNode[];
  /** `if respond_to?(:m)`: the method asked about, and where. */
  readonly ifRespondTo?: { readonly method: string; readonly offset: number };
}

/** Where the subset ends and Ruby code begins (or the text is broken). */
export interface RubyProblem {
  readonly offset: number;
  readonly message: string;
}

export type RubyParse =
  | { readonly ok: true; readonly calls: readonly RubyCall[] }
  | { readonly ok: false; readonly problem: RubyProblem };

type Token =
  | { kind: "ident"; text: string; offset: number; spaceBefore: boolean }
  | { kind: "label"; text: string; offset: number; spaceBefore: boolean }
  | { kind: "literal"; node: RubyNode; offset: number; spaceBefore: boolean }
  | { kind: "punct"; text: string; offset: number; spaceBefore: boolean }
  | { kind: "newline"; text: "\n"; offset: number; spaceBefore: boolean }
  | { kind: "end"; offset: number; spaceBefore: boolean };

class Stop extends Error {
  constructor(readonly problem: RubyProblem) {
    super(problem.message);
  }
}

const CODE =
  "is Ruby code, not a literal: tend reads only method calls with literal arguments (strings, symbols, numbers, true/false/nil, arrays, hashes)";

function stop(offset: number, message: string): never {
  throw new Stop({ offset, message });
}

/** Parses `text`; the first problem ends the parse (a file with Ruby code is refused whole). */
export function parseRubyLiterals(text: string): RubyParse {
  try {
    return { ok: true, calls: new Parser(lex(text)).file() };
  } catch (error) {
    if (error instanceof Stop) return { ok: false, problem: error.problem };
    throw error;
  }
}

const IDENT = /[A-Za-z_][A-Za-z0-9_]*[?!]?/y;
const NUMBER = /-?(?:0|[1-9][0-9_]*)(?:\.[0-9][0-9_]*)?(?:[eE][+-]?[0-9]+)?/y;
const PUNCT = /=>|[()[\]{},;]/y;
const OPEN: Record<string, string> = { "(": ")", "[": "]", "{": "}", "<": ">" };

function lex(text: string): Token[] {
  const out: Token[] = [];
  let depth = 0;
  let i = 0;
  let space = false;
  const push = (t: Token): void => {
    out.push(t);
    space = false;
  };
  while (i < text.length) {
    const c = text[i] as string;
    if (c === " " || c === "\t" || c === "\r") {
      i++;
      space = true;
    } else if (c === "#") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (c === "\\" && text[i + 1] === "\n") {
      i += 2;
      space = true;
    } else if (c === "\n") {
      if (depth === 0 && !continues(out))
        push({ kind: "newline", text: "\n", offset: i, spaceBefore: space });
      i++;
      space = true;
    } else if (c === "=" && text.startsWith("=begin", i) && (i === 0 || text[i - 1] === "\n")) {
      const end = text.indexOf("\n=end", i);
      if (end < 0) stop(i, "=begin without =end");
      i = end + 5;
    } else if (c === "'" || c === '"') {
      const [value, next] = c === "'" ? singleQuoted(text, i) : doubleQuoted(text, i);
      if (text[next] === ":" && text[next + 1] !== ":") {
        push({ kind: "label", text: value, offset: i, spaceBefore: space });
        i = next + 1;
      } else {
        push({ kind: "literal", node: { type: "scalar", value, offset: i }, offset: i, spaceBefore: space });
        i = next;
      }
    } else if (c === ":" && /[A-Za-z_"']/.test(text[i + 1] ?? "")) {
      const [value, next] = symbol(text, i);
      push({
        kind: "literal",
        node: { type: "scalar", value, symbol: true, offset: i },
        offset: i,
        spaceBefore: space,
      });
      i = next;
    } else if (c === "%" && /[wi]/.test(text[i + 1] ?? "") && (text[i + 2] ?? "") in OPEN) {
      const [node, next] = wordList(text, i);
      push({ kind: "literal", node, offset: i, spaceBefore: space });
      i = next;
    } else if (/[0-9]/.test(c) || (c === "-" && /[0-9]/.test(text[i + 1] ?? ""))) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text) as RegExpExecArray;
      const raw = m[0].replaceAll("_", "");
      const value = Number(raw);
      push({ kind: "literal", node: { type: "scalar", value, offset: i }, offset: i, spaceBefore: space });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      IDENT.lastIndex = i;
      const word = (IDENT.exec(text) as RegExpExecArray)[0];
      const next = i + word.length;
      if (text[next] === ":" && text[next + 1] !== ":" && !word.endsWith("?")) {
        push({ kind: "label", text: word, offset: i, spaceBefore: space });
        i = next + 1;
      } else {
        push(keyword(word, i, space));
        i = next;
      }
    } else {
      PUNCT.lastIndex = i;
      const m = PUNCT.exec(text);
      if (!m) stop(i, `'${c}' ${CODE}`);
      const p = m[0];
      if (p === "(" || p === "[" || p === "{") depth++;
      if (p === ")" || p === "]" || p === "}") depth = Math.max(0, depth - 1);
      push({ kind: "punct", text: p, offset: i, spaceBefore: space });
      i += p.length;
    }
  }
  out.push({ kind: "end", offset: text.length, spaceBefore: space });
  return out;
}

/** A line ending in `,` or `=>` goes on (Ruby reads the next line as the rest). */
function continues(out: readonly Token[]): boolean {
  const last = out.at(-1);
  return last?.kind === "punct" && (last.text === "," || last.text === "=>");
}

function keyword(word: string, offset: number, spaceBefore: boolean): Token {
  const scalar = (value: boolean | null): Token => ({
    kind: "literal",
    node: { type: "scalar", value, offset },
    offset,
    spaceBefore,
  });
  if (word === "true") return scalar(true);
  if (word === "false") return scalar(false);
  if (word === "nil") return scalar(null);
  return { kind: "ident", text: word, offset, spaceBefore };
}

function singleQuoted(text: string, start: number): [string, number] {
  let out = "";
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i] as string;
    if (c === "'") return [out, i + 1];
    if (c === "\\" && (text[i + 1] === "'" || text[i + 1] === "\\")) out += text[++i];
    else out += c;
  }
  return stop(start, "unterminated string: a ' is missing");
}

const ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", s: " ", e: "\u001b", "0": "\0" };

function doubleQuoted(text: string, start: number): [string, number] {
  let out = "";
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '"') return [out, i + 1];
    if (c === "#" && text[i + 1] === "{")
      stop(i, "string interpolation (#{...}) is Ruby code: tend does not evaluate it; write the value");
    if (c === "\\") {
      const e = text[++i] ?? "";
      out += ESCAPES[e] ?? e;
    } else out += c;
  }
  return stop(start, 'unterminated string: a " is missing');
}

function symbol(text: string, start: number): [string, number] {
  const q = text[start + 1];
  if (q === '"' || q === "'")
    return q === "'" ? singleQuoted(text, start + 1) : doubleQuoted(text, start + 1);
  IDENT.lastIndex = start + 1;
  const word = (IDENT.exec(text) as RegExpExecArray)[0];
  return [word, start + 1 + word.length];
}

function wordList(text: string, start: number): [RubyNode, number] {
  const symbols = text[start + 1] === "i";
  const close = OPEN[text[start + 2] as string] as string;
  const end = text.indexOf(close, start + 3);
  if (end < 0) stop(start, `unterminated word list: a '${close}' is missing`);
  const items: RubyNode[] = [];
  const re = /\S+/g;
  const body = text.slice(start + 3, end);
  for (let m = re.exec(body); m; m = re.exec(body))
    items.push({ type: "scalar", value: m[0], symbol: symbols, offset: start + 3 + m.index });
  return [{ type: "array", items, offset: start }, end + 1];
}

class Parser {
  private at = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  private get token(): Token {
    return this.tokens[this.at] as Token;
  }

  private isPunct(text: string): boolean {
    const t = this.token;
    return t.kind === "punct" && t.text === text;
  }

  private expect(text: string, what: string): void {
    if (!this.isPunct(text)) this.unexpected(what);
    this.at++;
  }

  private unexpected(what: string): never {
    const t = this.token;
    if (t.kind === "end") stop(t.offset, `the file ends where ${what} was expected`);
    if (t.kind === "newline") stop(t.offset, `the line ends where ${what} was expected`);
    const shown = t.kind === "literal" ? "this value" : `'${t.kind === "label" ? `${t.text}:` : t.text}'`;
    return stop(t.offset, `${shown} ${CODE}; expected ${what}`);
  }

  file(): RubyCall[] {
    const calls: RubyCall[] = [];
    for (;;) {
      while (this.token.kind === "newline" || this.isPunct(";")) this.at++;
      if (this.token.kind === "end") return calls;
      calls.push(this.statement());
      if (!this.endsStatement() || this.isIf()) this.unexpected("the end of the line");
    }
  }

  private statement(): RubyCall {
    const t = this.token;
    if (t.kind !== "ident") return this.unexpected("a method call like `name 'value'`");
    this.at++;
    const args = this.arguments();
    const modifier = this.modifier();
    return { name: t.text, offset: t.offset, args, ...(modifier ? { ifRespondTo: modifier } : {}) };
  }

  private arguments(): RubyNode[] {
    const next = this.token;
    if (next.kind === "punct" && next.text === "(" && !next.spaceBefore) {
      this.at++;
      const args = this.list(")");
      this.expect(")", "')'");
      return args;
    }
    if (this.endsStatement()) return [];
    return this.list(undefined);
  }

  private isIf(): boolean {
    const t = this.token;
    return t.kind === "ident" && t.text === "if";
  }

  private endsStatement(): boolean {
    const t = this.token;
    return (
      t.kind === "end" || t.kind === "newline" || this.isPunct(";") || (t.kind === "ident" && t.text === "if")
    );
  }

  /** Comma-separated values; `k => v` / `k: v` pairs at the end gather into one hash, as Ruby's. */
  private list(close: string | undefined): RubyNode[] {
    const items: RubyNode[] = [];
    let hash: { key: RubyNode; value: RubyNode }[] | undefined;
    let hashAt = 0;
    while (close ? !this.isPunct(close) : !this.endsStatement()) {
      const start = this.token.offset;
      const pair = this.pairOrValue();
      if ("key" in pair) {
        if (!hash) {
          hash = [];
          hashAt = start;
        }
        hash.push(pair);
      } else if (hash) stop(start, "a plain argument after key => value pairs; move it before them");
      else items.push(pair);
      if (!this.isPunct(",")) break;
      this.at++;
    }
    if (hash) items.push({ type: "hash", entries: hash, offset: hashAt });
    return items;
  }

  private pairOrValue(): RubyNode | { key: RubyNode; value: RubyNode } {
    const t = this.token;
    if (t.kind === "label") {
      this.at++;
      return { key: { type: "scalar", value: t.text, symbol: true, offset: t.offset }, value: this.value() };
    }
    const value = this.value();
    if (!this.isPunct("=>")) return value;
    this.at++;
    return { key: value, value: this.value() };
  }

  private value(): RubyNode {
    const t = this.token;
    if (t.kind === "literal") {
      this.at++;
      return t.node;
    }
    if (t.kind === "punct" && t.text === "[") {
      this.at++;
      const items = this.list("]");
      this.expect("]", "']'");
      return { type: "array", items, offset: t.offset };
    }
    if (t.kind === "punct" && t.text === "{") return this.hash();
    return this.unexpected("a literal value");
  }

  private hash(): RubyNode {
    const start = this.token.offset;
    this.at++;
    const entries: { key: RubyNode; value: RubyNode }[] = [];
    while (!this.isPunct("}")) {
      const pair = this.pairOrValue();
      if (!("key" in pair)) stop(pair.offset, "a hash entry needs a key: `'key' => value` or `key: value`");
      entries.push(pair);
      if (!this.isPunct(",")) break;
      this.at++;
    }
    this.expect("}", "'}'");
    return { type: "hash", entries, offset: start };
  }

  /** `if respond_to?(:name)`, the one modifier read. */
  private modifier(): RubyCall["ifRespondTo"] {
    const t = this.token;
    if (!(t.kind === "ident" && t.text === "if")) return undefined;
    this.at++;
    const ask = this.token;
    if (!(ask.kind === "ident" && ask.text === "respond_to?"))
      stop(ask.offset, `this condition ${CODE}; the only modifier read is \`if respond_to?(:method)\``);
    this.at++;
    const paren = this.isPunct("(");
    if (paren) this.at++;
    const sym = this.value();
    if (sym.type !== "scalar" || typeof sym.value !== "string")
      stop(sym.offset, "respond_to? takes a method name");
    if (paren) this.expect(")", "')'");
    return { method: sym.value, offset: sym.offset };
  }
}

/** A node as JSON data: symbols become strings, hash keys strings (as Chef's Mash stores them). */
export function rubyToJson(node: RubyNode): unknown {
  if (node.type === "scalar") return node.value;
  if (node.type === "array") return node.items.map(rubyToJson);
  const out: Record<string, unknown> = {};
  for (const { key, value } of node.entries) out[hashKey(key)] = rubyToJson(value);
  return out;
}

function hashKey(key: RubyNode): string {
  if (key.type !== "scalar" || key.value === null || typeof key.value === "boolean")
    stop(key.offset, "a hash key must be a string, a symbol or a number");
  return String(key.value);
}

/**
 * The offsets of every value under `node`, by dotted path from `prefix`
 * (`default_attributes.nginx.port`, `run_list.2`), for diagnostics that
 * point at a value as the JSON documents do.
 */
export function collectOffsets(node: RubyNode, prefix: string, into: Map<string, number>): void {
  into.set(prefix, node.offset);
  const join = (k: string): string => (prefix === "" ? k : `${prefix}.${k}`);
  if (node.type === "array")
    node.items.forEach((item, i) => {
      collectOffsets(item, join(String(i)), into);
    });
  if (node.type === "hash")
    for (const { key, value } of node.entries) collectOffsets(value, join(hashKey(key)), into);
}

/** Converts with `rubyToJson`, turning a bad hash key into a problem instead of a throw. */
export function rubyValue(
  node: RubyNode,
): { ok: true; value: unknown } | { ok: false; problem: RubyProblem } {
  try {
    return { ok: true, value: rubyToJson(node) };
  } catch (error) {
    if (error instanceof Stop) return { ok: false, problem: error.problem };
    throw error;
  }
}
