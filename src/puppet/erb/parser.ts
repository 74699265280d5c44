/**
 * A parser for the Ruby subset of templates: a recursive descent over the
 * token stream of lexer.ts with Ruby's operator precedence, statement
 * modifiers, blocks (`{ |a| }`, `do |a| end`), commands without parentheses
 * (`x.join ', '`) and Ruby's rule that a bare name is a local variable once
 * assigned (or a block parameter), else a method call.
 */
import { TemplateError } from "./errors.js";
import type { StrPart, Token } from "./lexer.js";

export type Param = string | Param[];

export interface Block {
  readonly params: Param[];
  readonly body: Node[];
}

export type Node = { readonly line: number } & (
  | { k: "text"; s: string }
  | { k: "out"; e: Node | null }
  | { k: "nil" }
  | { k: "self" }
  | { k: "bool"; v: boolean }
  | { k: "int"; v: bigint }
  | { k: "float"; v: number }
  | { k: "str"; parts: (string | Node)[] }
  | { k: "xstr" }
  | { k: "sym"; name: string }
  | { k: "dsym"; parts: (string | Node)[] }
  | { k: "regex"; parts: (string | Node)[]; flags: string }
  | { k: "array"; items: Node[] }
  | { k: "hash"; pairs: [Node, Node][] }
  | { k: "range"; from: Node; to: Node; excl: boolean }
  | { k: "ivar"; name: string }
  | { k: "gvar"; name: string }
  | { k: "lvar"; name: string }
  | { k: "const"; name: string; scope?: Node }
  | {
      k: "call";
      recv: Node | null;
      name: string;
      args: Node[];
      block?: Block;
      safe?: boolean;
      parens?: boolean;
    }
  | { k: "and"; l: Node; r: Node }
  | { k: "or"; l: Node; r: Node }
  | { k: "not"; e: Node }
  | { k: "if"; cond: Node; yes: Node[]; no: Node[] }
  | { k: "case"; subj: Node | null; whens: { conds: Node[]; body: Node[] }[]; else: Node[] }
  | { k: "while"; cond: Node; body: Node[]; until: boolean }
  | { k: "for"; vars: string[]; iter: Node; body: Node[] }
  | { k: "assign"; target: Node; value: Node }
  | { k: "opassign"; target: Node; op: string; value: Node }
  | { k: "masgn"; targets: Node[]; value: Node }
  | { k: "defined"; e: Node }
  | { k: "seq"; body: Node[] }
  | { k: "jump"; kind: "next" | "break" | "return"; e: Node | null }
  | { k: "splat"; e: Node }
  | { k: "blockpass"; e: Node }
  | { k: "begin"; body: Node[]; rescue: Node[] | null; rescueVar: string | null; ensure: Node[] | null }
);

type NodeOf<K extends Node["k"]> = Extract<Node, { k: K }>;

const ASSIGN_OPS = new Set([
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "**=",
  "||=",
  "&&=",
  "|=",
  "&=",
  "^=",
  "<<=",
  ">>=",
]);

/** Parses the token stream of a whole template into statements. */
export function parseTemplate(tokens: Token[], file: string): Node[] {
  const p = new Parser(tokens, file, [new Set()]);
  const body = p.statements(["eof"]);
  p.expect("eof");
  return body;
}

class Parser {
  private pos = 0;
  /** Parsing a `while`/`until` condition or command arguments: `do` is not a block there. */
  private noDo = 0;

  constructor(
    private readonly toks: Token[],
    private readonly file: string,
    private readonly locals: Set<string>[],
  ) {}

  private get t(): Token {
    return this.toks[this.pos] as Token;
  }
  private peek(n = 1): Token {
    return this.toks[Math.min(this.pos + n, this.toks.length - 1)] as Token;
  }
  private next(): Token {
    const t = this.t;
    if (this.pos < this.toks.length - 1) this.pos++;
    return t;
  }
  private fail(message: string, tok: Token = this.t): never {
    throw new TemplateError(message, this.file, tok.line);
  }
  private is(kind: Token["kind"], value?: string): boolean {
    return this.t.kind === kind && (value === undefined || this.t.value === value);
  }
  private isOp(v: string): boolean {
    return this.t.kind === "op" && this.t.value === v;
  }
  private isKw(v: string): boolean {
    return this.t.kind === "kw" && this.t.value === v;
  }
  private accept(kind: Token["kind"], value?: string): boolean {
    if (this.is(kind, value)) {
      this.next();
      return true;
    }
    return false;
  }
  expect(kind: Token["kind"], value?: string): Token {
    if (!this.is(kind, value))
      this.fail(`syntax error, unexpected ${describe(this.t)}, expecting ${value ?? kind}`);
    return this.next();
  }
  private skipNl(): void {
    while (this.t.kind === "nl" || this.isOp(";")) this.next();
  }
  private skipNewlines(): void {
    while (this.t.kind === "nl" && this.t.value === "\n") this.next();
  }
  private isLocal(name: string): boolean {
    return this.locals.some((s) => s.has(name));
  }
  private declare(name: string): void {
    (this.locals[this.locals.length - 1] as Set<string>).add(name);
  }

  /** Statements up to one of the keywords in `ends` (not consumed). */
  statements(ends: string[]): Node[] {
    const out: Node[] = [];
    for (;;) {
      this.skipNl();
      if (this.t.kind === "eof" || (this.t.kind === "kw" && ends.includes(this.t.value))) return out;
      if (this.isOp("}") && ends.includes("}")) return out;
      out.push(this.statement());
      const after = this.t.kind as Token["kind"];
      if (!(after === "nl" || this.isOp(";") || after === "eof")) {
        if (this.t.kind === "kw" && ends.includes(this.t.value)) continue;
        if (this.isOp("}") && ends.includes("}")) continue;
        this.fail(`syntax error, unexpected ${describe(this.t)}`);
      }
    }
  }

  private statement(): Node {
    const t = this.t;
    if (t.kind === "text") {
      this.next();
      return { k: "text", s: t.value, line: t.line };
    }
    if (t.kind === "out") {
      this.next();
      if (this.t.kind === "nl" && this.t.value === ";") return { k: "out", e: null, line: t.line };
      return { k: "out", e: this.statement(), line: t.line };
    }
    let e = this.exprStmt();
    for (;;) {
      const m = this.t;
      if (m.kind !== "kw") return e;
      if (m.value === "if" || m.value === "unless") {
        this.next();
        const cond = this.exprStmt();
        e =
          m.value === "if"
            ? { k: "if", cond, yes: [e], no: [], line: m.line }
            : { k: "if", cond, yes: [], no: [e], line: m.line };
      } else if (m.value === "while" || m.value === "until") {
        this.next();
        e = { k: "while", cond: this.exprStmt(), body: [e], until: m.value === "until", line: m.line };
      } else if (m.value === "rescue") {
        this.next();
        e = { k: "begin", body: [e], rescue: [this.exprStmt()], rescueVar: null, ensure: null, line: m.line };
      } else return e;
    }
  }

  /** `not`, `and`, `or`. */
  private exprStmt(): Node {
    let l = this.notExpr();
    while (this.isKw("and") || this.isKw("or")) {
      const op = this.next();
      this.skipNewlines();
      const r = this.notExpr();
      l = op.value === "and" ? { k: "and", l, r, line: op.line } : { k: "or", l, r, line: op.line };
    }
    return l;
  }

  private notExpr(): Node {
    if (this.isKw("not")) {
      const t = this.next();
      return { k: "not", e: this.notExpr(), line: t.line };
    }
    return this.expr();
  }

  /** An expression with assignment (right associative). */
  expr(): Node {
    const start = this.pos;
    const t = this.t;
    // `a, b = ...`
    if ((t.kind === "ident" || t.kind === "ivar") && this.peek().kind === "op" && this.peek().value === ",") {
      const m = this.tryMasgn();
      if (m) return m;
      this.pos = start;
    }
    const l = this.ternary();
    if (this.isOp("=") && assignable(l)) {
      const op = this.next();
      this.skipNewlines();
      const target = this.toTarget(l);
      let value = this.expr();
      if (this.isOp(",")) {
        const items = [value];
        while (this.accept("op", ",")) items.push(this.ternary());
        value = { k: "array", items, line: op.line };
      }
      return { k: "assign", target, value, line: op.line };
    }
    if (this.t.kind === "op" && ASSIGN_OPS.has(this.t.value) && assignable(l)) {
      const op = this.next();
      this.skipNewlines();
      const target = this.toTarget(l);
      return { k: "opassign", target, op: op.value.slice(0, -1), value: this.expr(), line: op.line };
    }
    return l;
  }

  private tryMasgn(): Node | null {
    const targets: Node[] = [];
    for (;;) {
      const t = this.t;
      if (t.kind === "ident") targets.push({ k: "lvar", name: t.value, line: t.line });
      else if (t.kind === "ivar") targets.push({ k: "ivar", name: t.value, line: t.line });
      else return null;
      this.next();
      if (this.accept("op", ",")) continue;
      if (!this.isOp("=")) return null;
      break;
    }
    const eq = this.next();
    for (const x of targets) if (x.k === "lvar") this.declare(x.name);
    let value = this.ternary();
    if (this.isOp(",")) {
      const items = [value];
      while (this.accept("op", ",")) items.push(this.ternary());
      value = { k: "array", items, line: eq.line };
    }
    return { k: "masgn", targets, value, line: eq.line };
  }

  private toTarget(l: Node): Node {
    if (l.k === "call" && l.recv === null && l.args.length === 0 && !l.block) {
      this.declare(l.name);
      return { k: "lvar", name: l.name, line: l.line };
    }
    if (l.k === "lvar") this.declare(l.name);
    return l;
  }

  private ternary(): Node {
    const cond = this.range();
    if (this.isOp("?")) {
      const q = this.next();
      this.skipNewlines();
      const a = this.ternary();
      this.skipNewlines();
      if (this.t.kind === "label") {
        // `x ? a :b` lexed `a:` as a label is not possible here; `b:` label means `b :`.
        this.fail("syntax error in ternary: write spaces around ':'");
      }
      this.expect("op", ":");
      this.skipNewlines();
      const b = this.ternary();
      return { k: "if", cond, yes: [a], no: [b], line: q.line };
    }
    return cond;
  }

  private range(): Node {
    const l = this.binary(0);
    if (this.isOp("..") || this.isOp("...")) {
      const op = this.next();
      const r = this.binary(0);
      return { k: "range", from: l, to: r, excl: op.value === "...", line: op.line };
    }
    return l;
  }

  private static readonly LEVELS: string[][] = [
    ["||"],
    ["&&"],
    ["<=>", "==", "===", "!=", "=~", "!~"],
    ["<", "<=", ">", ">="],
    ["|", "^"],
    ["&"],
    ["<<", ">>"],
    ["+", "-"],
    ["*", "/", "%"],
  ];

  private binary(level: number): Node {
    if (level >= Parser.LEVELS.length) return this.unaryMinus();
    if (level === 2 && this.isKw("defined?")) return this.unaryMinus();
    let l = this.binary(level + 1);
    const ops = Parser.LEVELS[level] as string[];
    while (this.t.kind === "op" && ops.includes(this.t.value)) {
      const op = this.next();
      this.skipNewlines();
      const r = this.binary(level + 1);
      l = makeBinary(op.value, l, r, op.line);
      if (level === 2) break; // non-associative
    }
    return l;
  }

  private unaryMinus(): Node {
    if (this.isOp("-") && !(this.peek().kind === "int" || this.peek().kind === "float")) {
      const t = this.next();
      return { k: "call", recv: this.unaryMinus(), name: "-@", args: [], line: t.line };
    }
    return this.power();
  }

  private power(): Node {
    const l = this.unary();
    if (this.isOp("**")) {
      const op = this.next();
      const r = this.unaryMinus();
      return { k: "call", recv: l, name: "**", args: [r], line: op.line };
    }
    return l;
  }

  private unary(): Node {
    const t = this.t;
    if (this.isOp("!")) {
      this.next();
      return { k: "not", e: this.unary(), line: t.line };
    }
    if (this.isOp("-") && (this.peek().kind === "int" || this.peek().kind === "float")) {
      this.next();
      const n = this.next();
      const lit: Node =
        n.kind === "int"
          ? { k: "int", v: -BigInt(n.value), line: n.line }
          : { k: "float", v: -Number(n.value), line: n.line };
      return this.postfix(lit);
    }
    if (this.isOp("+")) {
      this.next();
      return this.unary();
    }
    if (this.isOp("~")) {
      this.next();
      return { k: "call", recv: this.unary(), name: "~", args: [], line: t.line };
    }
    if (this.isKw("defined?")) {
      this.next();
      const paren = this.accept("op", "(");
      const e = paren ? this.exprStmt() : this.unary();
      if (paren) {
        this.expect("op", ")");
        return this.postfix({ k: "defined", e, line: t.line });
      }
      return { k: "defined", e, line: t.line };
    }
    return this.postfix(this.primary());
  }

  private postfix(e: Node): Node {
    for (;;) {
      const t = this.t;
      // A method chain continued on the next line: `x\n  .map`.
      if (t.kind === "nl" && t.value === "\n") {
        let j = this.pos;
        while (this.toks[j]?.kind === "nl" && this.toks[j]?.value === "\n") j++;
        const n = this.toks[j];
        if (n?.kind === "op" && (n.value === "." || n.value === "&.")) {
          this.pos = j;
          continue;
        }
        return e;
      }
      if (t.kind === "op" && (t.value === "." || t.value === "&.")) {
        this.next();
        this.skipNewlines();
        const name = this.t;
        if (name.kind === "op" && name.value === "(") {
          e = this.callRest(e, "call", name.line, t.value === "&.");
          continue;
        }
        if (!(name.kind === "ident" || name.kind === "const" || name.kind === "kw" || name.kind === "label"))
          this.fail(`syntax error, unexpected ${describe(name)} after '.'`);
        this.next();
        if (name.kind === "label") {
          // `x.y:` cannot happen in the subset; treat as `x.y :`.
          this.fail("syntax error, unexpected ':'");
        }
        // `x.y = v` is an attribute assignment: leave it to expr().
        e = this.callRest(e, name.value, name.line, t.value === "&.");
        continue;
      }
      if (t.kind === "op" && t.value === "::") {
        this.next();
        const name = this.next();
        if (name.kind === "const" && !this.isOp("("))
          e = { k: "const", name: name.value, scope: e, line: name.line };
        else e = this.callRest(e, name.value, name.line, false);
        continue;
      }
      if (t.kind === "op" && t.value === "[" && !t.spaced) {
        this.next();
        this.skipNl();
        const args = this.args("]");
        this.expect("op", "]");
        e = { k: "call", recv: e, name: "[]", args, line: t.line };
        continue;
      }
      return e;
    }
  }

  /** After `recv.name`: arguments in parentheses or as a command, and a block. */
  private callRest(recv: Node | null, name: string, line: number, safe: boolean): Node {
    let args: Node[] = [];
    let parens = false;
    if (this.isOp("(") && !this.t.spaced) {
      this.next();
      this.skipNl();
      args = this.args(")");
      this.expect("op", ")");
      parens = true;
    } else if (this.startsCommandArg()) {
      this.noDo++;
      try {
        args = this.commandArgs();
      } finally {
        this.noDo--;
      }
    }
    const block = this.block();
    const call: NodeOf<"call"> = { k: "call", recv, name, args, line, safe, parens };
    if (block) call.block = block;
    return call;
  }

  private startsCommandArg(): boolean {
    const t = this.t;
    if (!t.spaced) return false;
    switch (t.kind) {
      case "str":
      case "xstr":
      case "int":
      case "float":
      case "sym":
      case "dsym":
      case "ivar":
      case "gvar":
      case "ident":
      case "const":
      case "words":
      case "symbols":
      case "label":
      case "regex":
        return true;
      case "kw":
        return ["nil", "true", "false", "self", "not", "defined?", "__FILE__", "__LINE__"].includes(t.value);
      case "op": {
        const n = this.peek();
        if (t.value === "[" || t.value === "!" || t.value === "->") return true;
        if ((t.value === "-" || t.value === "*" || t.value === "&" || t.value === "::") && !n.spaced)
          return true;
        return false;
      }
      default:
        return false;
    }
  }

  private commandArgs(): Node[] {
    const args: Node[] = [];
    let pairs: [Node, Node][] | null = null;
    do {
      this.skipNewlinesAfterComma(args.length > 0 || pairs !== null);
      const pair = this.maybePair();
      if (pair) {
        if (!pairs) {
          pairs = [];
          args.push({ k: "hash", pairs, line: pair[0].line });
        }
        pairs.push(pair);
      } else args.push(this.argument());
    } while (this.accept("op", ","));
    return args;
  }

  private skipNewlinesAfterComma(after: boolean): void {
    if (after) this.skipNewlines();
  }

  /** Arguments up to `close`: expressions, `*splat`, `&block`, and trailing `k => v` / `k: v` pairs as one Hash. */
  private args(close: string): Node[] {
    const args: Node[] = [];
    let pairs: [Node, Node][] | null = null;
    while (!this.isOp(close)) {
      const pair = this.maybePair();
      if (pair) {
        if (!pairs) {
          pairs = [];
          args.push({ k: "hash", pairs, line: pair[0].line });
        }
        pairs.push(pair);
      } else args.push(this.argument());
      this.skipNl();
      if (!this.accept("op", ",")) break;
      this.skipNl();
    }
    return args;
  }

  private argument(): Node {
    const t = this.t;
    if (this.isOp("*") || this.isOp("**")) {
      this.next();
      return { k: "splat", e: this.ternary(), line: t.line };
    }
    if (this.isOp("&")) {
      this.next();
      return { k: "blockpass", e: this.ternary(), line: t.line };
    }
    return this.notExprNoStmt();
  }

  private notExprNoStmt(): Node {
    if (this.isKw("not")) {
      const t = this.next();
      return { k: "not", e: this.expr(), line: t.line };
    }
    return this.expr();
  }

  /** `key => value` or `key: value`, else null (position unchanged). */
  private maybePair(): [Node, Node] | null {
    const t = this.t;
    if (t.kind === "label") {
      this.next();
      this.skipNl();
      return [{ k: "sym", name: t.value, line: t.line }, this.expr()];
    }
    if (t.kind === "str" && this.peek().kind === "op" && this.peek().value === ":" && !this.peek().spaced) {
      const key = this.primary();
      this.next();
      this.skipNl();
      const k: Node = key.k === "str" ? { k: "dsym", parts: key.parts, line: key.line } : key;
      return [k, this.expr()];
    }
    const save = this.pos;
    if (this.isOp("*") || this.isOp("&") || this.isOp("**")) return null;
    const key = this.ternary();
    if (this.isOp("=>")) {
      this.next();
      this.skipNl();
      return [key, this.expr()];
    }
    this.pos = save;
    return null;
  }

  private block(): Block | undefined {
    if (this.isOp("{")) {
      this.next();
      return this.blockBody("}");
    }
    if (this.isKw("do") && this.noDo === 0) {
      this.next();
      return this.blockBody("end");
    }
    return undefined;
  }

  private blockBody(close: "}" | "end"): Block {
    this.locals.push(new Set());
    try {
      this.skipNewlines();
      let params: Param[] = [];
      if (this.isOp("||")) this.next();
      else if (this.accept("op", "|")) {
        params = this.blockParams();
        this.expect("op", "|");
      }
      const saved = this.noDo;
      this.noDo = 0;
      const body = this.statements(close === "end" ? ["end"] : ["}"]);
      this.noDo = saved;
      if (close === "end") this.expect("kw", "end");
      else this.expect("op", "}");
      return { params, body };
    } finally {
      this.locals.pop();
    }
  }

  private blockParams(): Param[] {
    const params: Param[] = [];
    do {
      if (this.accept("op", "(")) {
        const inner = this.blockParams();
        this.expect("op", ")");
        params.push(inner);
        continue;
      }
      const splat = this.accept("op", "*");
      const t = this.expect("ident");
      this.declare(t.value);
      params.push(splat ? `*${t.value}` : t.value);
    } while (this.accept("op", ","));
    return params;
  }

  private primary(): Node {
    const t = this.t;
    switch (t.kind) {
      case "int":
        this.next();
        return { k: "int", v: BigInt(t.value), line: t.line };
      case "float":
        this.next();
        return { k: "float", v: Number(t.value), line: t.line };
      case "str":
      case "xstr": {
        this.next();
        if (t.kind === "xstr") this.fail("backticks (shell commands) are not in the ERB subset", t);
        let node: Node = { k: "str", parts: this.parts(t.parts ?? []), line: t.line };
        // Adjacent literals concatenate: "a" "b".
        while (this.t.kind === "str") {
          const n = this.next();
          node = {
            k: "str",
            parts: [...(node as NodeOf<"str">).parts, ...this.parts(n.parts ?? [])],
            line: t.line,
          };
        }
        return node;
      }
      case "sym":
        this.next();
        return { k: "sym", name: t.value, line: t.line };
      case "dsym":
        this.next();
        return { k: "dsym", parts: this.parts(t.parts ?? []), line: t.line };
      case "regex":
        this.next();
        return { k: "regex", parts: this.parts(t.parts ?? []), flags: t.extra ?? "", line: t.line };
      case "words":
        this.next();
        return {
          k: "array",
          items: (t.words ?? []).map((w) => ({ k: "str", parts: [w], line: t.line })),
          line: t.line,
        };
      case "symbols":
        this.next();
        return {
          k: "array",
          items: (t.words ?? []).map((w) => ({ k: "sym", name: w, line: t.line })),
          line: t.line,
        };
      case "ivar":
        this.next();
        return { k: "ivar", name: t.value, line: t.line };
      case "gvar":
        this.next();
        return { k: "gvar", name: t.value, line: t.line };
      case "const":
        this.next();
        if (this.isOp("(") && !this.t.spaced) return this.callRest(null, t.value, t.line, false);
        return { k: "const", name: t.value, line: t.line };
      case "ident":
        this.next();
        if (this.isLocal(t.value) && !(this.isOp("(") && !this.t.spaced))
          return { k: "lvar", name: t.value, line: t.line };
        return this.callRest(null, t.value, t.line, false);
      case "label":
        this.fail(`syntax error, unexpected label '${t.value}:'`);
        break;
      case "kw":
        return this.keyword(t);
      case "op":
        return this.opPrimary(t);
      default:
        break;
    }
    this.fail(`syntax error, unexpected ${describe(t)}`);
  }

  private opPrimary(t: Token): Node {
    if (t.value === "(") {
      this.next();
      this.skipNl();
      const body: Node[] = [];
      while (!this.isOp(")")) {
        body.push(this.statement());
        this.skipNl();
      }
      this.next();
      return body.length === 1 ? (body[0] as Node) : { k: "seq", body, line: t.line };
    }
    if (t.value === "[") {
      this.next();
      this.skipNl();
      const items = this.args("]");
      this.skipNl();
      this.expect("op", "]");
      return { k: "array", items, line: t.line };
    }
    if (t.value === "{") {
      this.next();
      this.skipNl();
      const pairs: [Node, Node][] = [];
      while (!this.isOp("}")) {
        const pair = this.maybePair();
        if (!pair) this.fail("syntax error in hash literal: 'key => value' expected");
        pairs.push(pair);
        this.skipNl();
        if (!this.accept("op", ",")) break;
        this.skipNl();
      }
      this.expect("op", "}");
      return { k: "hash", pairs, line: t.line };
    }
    if (t.value === "::") {
      this.next();
      const c = this.expect("const");
      return { k: "const", name: c.value, line: c.line };
    }
    if (t.value === "->") this.fail("lambdas are not in the ERB subset");
    this.fail(`syntax error, unexpected ${describe(t)}`);
  }

  private keyword(t: Token): Node {
    switch (t.value) {
      case "nil":
        this.next();
        return { k: "nil", line: t.line };
      case "true":
      case "false":
        this.next();
        return { k: "bool", v: t.value === "true", line: t.line };
      case "self":
        this.next();
        return { k: "self", line: t.line };
      case "__LINE__":
        this.next();
        return { k: "int", v: BigInt(t.line), line: t.line };
      case "__FILE__":
        this.next();
        return { k: "str", parts: [this.file], line: t.line };
      case "if":
      case "unless":
        this.next();
        return this.ifRest(t);
      case "while":
      case "until": {
        this.next();
        this.noDo++;
        const cond = this.exprStmt();
        this.noDo--;
        this.accept("kw", "do");
        const body = this.statements(["end"]);
        this.expect("kw", "end");
        return { k: "while", cond, body, until: t.value === "until", line: t.line };
      }
      case "case":
        this.next();
        return this.caseRest(t);
      case "begin":
        this.next();
        return this.beginRest(t);
      case "next":
      case "break":
      case "return": {
        this.next();
        const e =
          this.t.kind === "nl" || this.isKw("if") || this.isKw("unless") || this.isKw("end") || this.isOp("}")
            ? null
            : this.expr();
        return { k: "jump", kind: t.value as "next" | "break" | "return", e, line: t.line };
      }
      case "for": {
        this.next();
        const vars: string[] = [];
        do {
          const v = this.expect("ident").value;
          this.declare(v);
          vars.push(v);
        } while (this.accept("op", ","));
        this.expect("kw", "in");
        this.noDo++;
        const iter = this.exprStmt();
        this.noDo--;
        this.accept("kw", "do");
        const body = this.statements(["end"]);
        this.expect("kw", "end");
        return { k: "for", vars, iter, body, line: t.line };
      }
      case "def":
      case "class":
      case "module":
        this.fail(`'${t.value}' is not in the ERB subset`, t);
        break;
      case "yield":
        this.fail("'yield' is not in the ERB subset", t);
        break;
      default:
        break;
    }
    this.fail(`syntax error, unexpected '${t.value}'`);
  }

  private thenSep(): void {
    this.noDo = Math.max(0, this.noDo);
    if (this.accept("kw", "then")) return;
    if (this.t.kind === "nl" || this.isOp(";")) {
      this.skipNl();
      this.accept("kw", "then");
      return;
    }
    this.fail(`syntax error, unexpected ${describe(this.t)}, expecting 'then' or a new line`);
  }

  private ifRest(t: Token): Node {
    const cond = this.exprStmt();
    this.thenSep();
    const body = this.statements(["elsif", "else", "end"]);
    let other: Node[] = [];
    const e = this.t;
    if (this.accept("kw", "elsif")) {
      if (t.value === "unless") this.fail("syntax error, unexpected 'elsif' in unless", e);
      other = [this.ifRest({ ...e, value: "if" })];
      const n: Node = { k: "if", cond, yes: body, no: other, line: t.line };
      return n;
    }
    if (this.accept("kw", "else")) other = this.statements(["end"]);
    this.expect("kw", "end");
    return t.value === "if"
      ? { k: "if", cond, yes: body, no: other, line: t.line }
      : { k: "if", cond, yes: other, no: body, line: t.line };
  }

  private caseRest(t: Token): Node {
    const subj = this.t.kind === "nl" ? null : this.exprStmt();
    this.skipNl();
    const whens: { conds: Node[]; body: Node[] }[] = [];
    while (this.accept("kw", "when")) {
      const conds: Node[] = [];
      do {
        this.skipNewlines();
        conds.push(this.argument());
      } while (this.accept("op", ","));
      this.thenSep();
      whens.push({ conds, body: this.statements(["when", "else", "end"]) });
    }
    let other: Node[] = [];
    if (this.accept("kw", "else")) other = this.statements(["end"]);
    this.expect("kw", "end");
    return { k: "case", subj, whens, else: other, line: t.line };
  }

  private beginRest(t: Token): Node {
    const body = this.statements(["rescue", "ensure", "end"]);
    let rescue: Node[] | null = null;
    let rescueVar: string | null = null;
    let ensure: Node[] | null = null;
    if (this.accept("kw", "rescue")) {
      while (this.t.kind === "const" || this.isOp(",")) this.next();
      if (this.accept("op", "=>")) {
        rescueVar = this.expect("ident").value;
        this.declare(rescueVar);
      }
      rescue = this.statements(["ensure", "end"]);
    }
    if (this.accept("kw", "ensure")) ensure = this.statements(["end"]);
    this.expect("kw", "end");
    return { k: "begin", body, rescue, rescueVar, ensure, line: t.line };
  }

  private parts(parts: StrPart[]): (string | Node)[] {
    return parts.map((p) => {
      if (typeof p === "string") return p;
      const toks = [...p, { kind: "eof" as const, value: "", line: p[0]?.line ?? 0, spaced: false }];
      const sub = new Parser(toks, this.file, this.locals);
      const body = sub.statements(["eof"]);
      return { k: "seq", body, line: p[0]?.line ?? 0 };
    });
  }
}

function assignable(n: Node): boolean {
  return (
    n.k === "lvar" ||
    n.k === "ivar" ||
    (n.k === "call" && n.recv === null && n.args.length === 0 && !n.block && !n.parens) ||
    (n.k === "call" && n.name === "[]") ||
    (n.k === "call" && n.recv !== null && n.args.length === 0 && !n.parens && /^[a-z_]\w*$/.test(n.name))
  );
}

function makeBinary(op: string, l: Node, r: Node, line: number): Node {
  if (op === "&&") return { k: "and", l, r, line };
  if (op === "||") return { k: "or", l, r, line };
  if (op === "!=") return { k: "not", e: { k: "call", recv: l, name: "==", args: [r], line }, line };
  if (op === "!~") return { k: "not", e: { k: "call", recv: l, name: "=~", args: [r], line }, line };
  return { k: "call", recv: l, name: op, args: [r], line };
}

function describe(t: Token): string {
  switch (t.kind) {
    case "eof":
      return "end-of-input";
    case "nl":
      return t.value === "\n" ? "'\\n'" : "end of tag";
    case "text":
      return "template text";
    case "out":
      return "'<%='";
    case "str":
      return "string literal";
    case "int":
    case "float":
      return "number";
    default:
      return `'${t.value}'`;
  }
}
