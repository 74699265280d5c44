/**
 * The Puppet 7 parser: tokens to the syntax tree of ast.ts, accepting what
 * Puppet's LALR grammar (pops/parser/egrammar.ra) accepts. It is a
 * recursive-descent parser whose levels follow the grammar's rules
 * (statements, assignment, relationship, resource, expression) and whose
 * expression level climbs Puppet's precedence table; postfix forms (calls,
 * `.method`, `[access]`, collectors) bind tighter than any operator, as the
 * grammar's precedences make them. Syntax errors name the token Puppet's
 * parser would stop at ("Syntax error at 'x'"); the first one ends parsing.
 */
import type * as A from "./ast.js";
import { PuppetSyntaxError } from "./diagnostics.js";
import { Lexer } from "./lexer.js";
import { Locator } from "./locator.js";
import { KEYWORD_KINDS, type Token, type TokenKind } from "./tokens.js";
import type { PuppetDiagnostic } from "./diagnostics.js";

export interface ParseOptions {
  /** The file name shown in diagnostics ("" for -e). */
  file?: string;
  /** Parse an EPP template instead of a manifest. */
  epp?: boolean;
  /**
   * Names (and short single-quoted strings) met so far, by their text: a
   * compile passes one table for all its files, so that what its catalog
   * keeps (attribute names, `'0644'`...) is one string per spelling, not
   * one per occurrence. The parser adds to it.
   */
  names?: Map<string, string>;
}

export type ParseResult =
  | { ok: true; program: A.Program; warnings: PuppetDiagnostic[]; locator: Locator }
  | { ok: false; error: PuppetDiagnostic; warnings: PuppetDiagnostic[]; locator: Locator };

/** Parses a manifest (or, with `epp`, a template). Never throws on bad input. */
export function parsePuppet(text: string, options: ParseOptions = {}): ParseResult {
  const locator = new Locator(text, options.file ?? "");
  const lexer = new Lexer(text, undefined, options.epp === true, options.names);
  const warnings = lexer.warnings;
  let parser: Parser | undefined;
  try {
    lexer.start();
    parser = new Parser(lexer);
    const program = parser.program(locator);
    return { ok: true, program, warnings, locator };
  } catch (error) {
    // The whole input is lexed, as when lexing came first: its warnings are all reported.
    lexer.lexTo(Number.POSITIVE_INFINITY);
    if (error instanceof RangeError && parser !== undefined) {
      // Hundreds of nested brackets exhaust the stack (Puppet's own limit is near 1,000).
      const offset = parser.offset();
      const diagnostic: PuppetDiagnostic = {
        severity: "error",
        code: "PARSE_ERROR",
        message: TOO_DEEP,
        offset,
      };
      return { ok: false, error: diagnostic, warnings, locator };
    }
    if (!(error instanceof PuppetSyntaxError)) throw error;
    const diagnostic: PuppetDiagnostic = {
      severity: "error",
      code: error.code,
      message: error.message,
      offset: error.offset,
    };
    return { ok: false, error: diagnostic, warnings, locator };
  }
}

export const TOO_DEEP = "Expressions nested too deeply for tend's parser";

/** Calls that may be written without parentheses as statements (`include a, b`). */
const STATEMENT_CALLS = new Set([
  "require",
  "realize",
  "include",
  "contain",
  "tag",
  "debug",
  "info",
  "notice",
  "warning",
  "err",
  "fail",
  "import",
  "break",
  "next",
  "return",
]);

/*
 * The operator tables are switches, not objects indexed by the token's
 * kind: every expression asks all three whether the token after it is an
 * operator (mostly it is not), and an object indexed by ever other kinds
 * is a megamorphic lookup, a hash probe each time (~40M instructions of
 * the 10,000 resources' parse). A switch on the kind compares interned
 * strings.
 */

/** A binary operator's precedence (higher binds tighter; all left associative), or undefined. */
function binaryPrecedence(kind: TokenKind): number | undefined {
  switch (kind) {
    case "OR":
      return 1;
    case "AND":
      return 2;
    case "QMARK":
      return 3;
    case "GREATEREQUAL":
    case "GREATERTHAN":
    case "LESSTHAN":
    case "LESSEQUAL":
      return 4;
    case "NOTEQUAL":
    case "ISEQUAL":
      return 5;
    case "LSHIFT":
    case "RSHIFT":
      return 6;
    case "MINUS":
    case "PLUS":
      return 7;
    case "TIMES":
    case "DIV":
    case "MODULO":
      return 8;
    case "MATCH":
    case "NOMATCH":
      return 9;
    case "IN":
      return 10;
    default:
      return undefined;
  }
}
const UMINUS = 11;
const SPLAT = 12;
const NOT = 13;

function relationshipOperator(kind: TokenKind): A.RelationshipOperator | undefined {
  switch (kind) {
    case "IN_EDGE":
      return "->";
    case "IN_EDGE_SUB":
      return "~>";
    case "OUT_EDGE":
      return "<-";
    case "OUT_EDGE_SUB":
      return "<~";
    default:
      return undefined;
  }
}

function assignmentOperator(kind: TokenKind): A.AssignmentOperator | undefined {
  switch (kind) {
    case "EQUALS":
      return "=";
    case "APPENDS":
      return "+=";
    case "DELETES":
      return "-=";
    default:
      return undefined;
  }
}

/** Tokens that can start an expression (and so a statement). */
const EXPRESSION_START = new Set<TokenKind>([
  "MINUS",
  "TIMES",
  "NOT",
  "LPAREN",
  "WSLPAREN",
  "VARIABLE",
  "NAME",
  "WORD",
  "CLASSREF",
  "NUMBER",
  "BOOLEAN",
  "DEFAULT",
  "UNDEF",
  "STRING",
  "DQPRE",
  "HEREDOC",
  "REGEX",
  "LISTSTART",
  "LBRACK",
  "LBRACE",
  "CASE",
  "IF",
  "UNLESS",
  "DEFINE",
  "CLASS",
  "NODE",
  "FUNCTION",
  "TYPE",
  "PRIVATE",
  "ATTR",
  "RENDER_STRING",
  "RENDER_EXPR",
]);
const STATEMENT_START = new Set<TokenKind>([...EXPRESSION_START, "AT", "ATAT"]);

/** A statement with a comma-separated tail, before calls are formed. */
interface ArgList {
  kind: "ArgList";
  items: A.Expression[];
  commas: Token[];
}

type Positioned = { offset: number; length: number };

function span(from: Positioned, to: Positioned = from): { offset: number; length: number } {
  return { offset: from.offset, length: to.offset + to.length - from.offset };
}

/** The length from the start of `from` to the end of `to`. */
function extent(from: Positioned, to: Positioned): number {
  return to.offset + to.length - from.offset;
}

function tokenDisplay(token: Token): string {
  // Ruby shows a Regexp with its slashes escaped.
  if (token.kind === "REGEX") return `(?-mix:${token.value.replace(/\//g, "\\/")})`;
  return token.value;
}

class Parser {
  private i = 0;
  private readonly namestack: string[] = [];
  private readonly definitions: A.Definition[] = [];
  /** The tokens lexed and not yet dropped: `tokens[0]` is token number `base`. */
  private readonly tokens: Token[];
  private base = 0;

  constructor(private readonly lexer: Lexer) {
    this.tokens = lexer.out;
    this.fill();
  }

  // --- token access ------------------------------------------------------------

  /** Where the parser is (for a diagnostic raised outside it). */
  offset(): number {
    const tokens = this.tokens;
    return (tokens[Math.min(this.i - this.base, tokens.length - 1)] as Token).offset;
  }

  /**
   * Lexes on, 32 tokens ahead (the parser looks three ahead at most), or to
   * the end; first drops the tokens already parsed.
   */
  private fill(): undefined {
    const lexer = this.lexer;
    const tokens = this.tokens;
    const parsed = this.i - this.base;
    if (parsed > 64) {
      tokens.splice(0, parsed);
      this.base = this.i;
    }
    if (!lexer.done) lexer.lexTo(this.i - this.base + 32);
  }

  /** The token `ahead` (0 to 2) of the current one; reaching a lexing error raises it. */
  private at(ahead: number): Token {
    const t = this.tokens[this.i + ahead - this.base];
    return t === undefined || t.kind === "EOF" ? this.end() : t;
  }

  /** The end of the tokens: EOF, or the lexing error that ended them. */
  private end(): Token {
    if (this.lexer.error) throw this.lexer.error;
    return this.tokens[this.tokens.length - 1] as Token;
  }
  private get tok(): Token {
    return this.at(0);
  }
  /** The kind of the token `ahead`: `at` written out, for the parser asks this most, often before V8 optimizes. */
  private kind(ahead = 0): TokenKind {
    const t = this.tokens[this.i + ahead - this.base];
    if (t !== undefined) {
      const kind = t.kind;
      if (kind !== "EOF") return kind;
    }
    return this.end().kind;
  }
  private advance(): Token {
    const t = this.tokens[this.i - this.base] as Token;
    if (t.kind !== "EOF") {
      this.i++;
      if (this.tokens.length - (this.i - this.base) < 3 && !this.lexer.done) this.fill();
    }
    return t;
  }
  private accept(kind: TokenKind): Token | undefined {
    return this.kind() === kind ? this.advance() : undefined;
  }
  private expect(kind: TokenKind): Token {
    if (this.kind() !== kind) this.syntaxError();
    return this.advance();
  }

  private syntaxError(token: Token = this.tok): never {
    if (token.kind === "EOF")
      throw new PuppetSyntaxError("SYNTAX_ERROR", "Syntax error at end of input", undefined);
    throw new PuppetSyntaxError("SYNTAX_ERROR", `Syntax error at '${tokenDisplay(token)}'`, token.offset);
  }

  private error(at: Positioned, message: string): never {
    throw new PuppetSyntaxError("PARSE_ERROR", message, at.offset);
  }

  // --- program and statements ----------------------------------------------

  program(locator: Locator): A.Program {
    const all = { offset: 0, length: locator.text.length };
    let body: A.Expression;
    if (this.kind() === "EPP_START") body = this.eppProgram();
    else if (this.kind() === "EOF") body = { kind: "Nop", offset: locator.text.length, length: 0 };
    else body = this.blockOrExpression(this.statements());
    if (this.kind() !== "EOF") this.syntaxError();
    return {
      kind: "Program",
      body,
      definitions: this.definitions,
      locator,
      offset: all.offset,
      length: all.length,
    };
  }

  /** `statements`: one or more statements, calls without parentheses formed. */
  private statements(): A.Expression[] {
    const raw: (A.Expression | ArgList)[] = [];
    raw.push(this.syntacticStatement());
    for (;;) {
      if (this.kind() === "SEMIC") {
        this.advance();
        if (!STATEMENT_START.has(this.kind())) this.syntaxError();
        raw.push(this.syntacticStatement());
      } else if (STATEMENT_START.has(this.kind())) raw.push(this.syntacticStatement());
      else break;
    }
    return this.transformCalls(raw);
  }

  /** Statements if any start here (for bodies that may be empty). */
  private optionalStatements(): A.Expression[] | undefined {
    return STATEMENT_START.has(this.kind()) ? this.statements() : undefined;
  }

  private syntacticStatement(): A.Expression | ArgList {
    const first = this.assignment();
    if (this.kind() !== "COMMA") return first;
    const list: ArgList = { kind: "ArgList", items: [first], commas: [] };
    while (this.kind() === "COMMA") {
      list.commas.push(this.advance());
      list.items.push(this.assignment());
    }
    return list;
  }

  private transformCalls(raw: (A.Expression | ArgList)[]): A.Expression[] {
    const memo: A.Expression[] = [];
    // Indexed: for-of makes an iterator result per step in code not yet optimized.
    for (let i = 0; i < raw.length; i++) {
      const expr = raw[i] as A.Expression | ArgList;
      const name = memo[memo.length - 1];
      if (name?.kind === "QualifiedName" && STATEMENT_CALLS.has(name.value)) {
        const args = expr.kind === "ArgList" ? expr.items : [expr];
        const last = args[args.length - 1] as A.Expression;
        memo[memo.length - 1] = {
          kind: "CallNamedFunction",
          functor: name,
          args,
          rvalRequired: false,
          offset: name.offset,
          length: extent(name, last),
        };
      } else if (expr.kind === "ArgList") {
        const comma = expr.commas[0] as Token;
        if (name?.kind === "QualifiedName") {
          this.error(
            comma,
            `attempt to pass argument list to the function '${name.value}' which cannot be called without parentheses`,
          );
        }
        this.error(comma, "illegal comma separated argument list");
      } else {
        if (expr.kind === "CallNamedFunction") expr.rvalRequired = false;
        memo.push(expr);
      }
    }
    return memo;
  }

  private blockOrExpression(statements: A.Expression[], open?: Token, close?: Token): A.Expression {
    if (statements.length === 1) return statements[0] as A.Expression;
    const first = statements[0] as A.Expression;
    const last = statements[statements.length - 1] as A.Expression;
    const where = open && close ? span(open, close) : span(first, last);
    return { kind: "Block", statements, offset: where.offset, length: where.length };
  }

  /** A body (class, lambda, case option...): always a block when present. */
  private body(statements: A.Expression[] | undefined, open: Token, close: Token): A.Expression | undefined {
    if (statements === undefined) return undefined;
    return { kind: "Block", statements, offset: open.offset, length: extent(open, close) };
  }

  // --- assignment, relationship, resource ---------------------------------------

  private assignment(): A.Expression {
    const left = this.relationship();
    const operator = assignmentOperator(this.kind());
    if (operator === undefined) return left;
    const op = this.advance();
    const right = this.assignment();
    return { kind: "Assignment", operator, left, right, offset: op.offset, length: op.length };
  }

  private relationship(): A.Expression {
    let left = this.resource();
    for (;;) {
      const operator = relationshipOperator(this.kind());
      if (operator === undefined) return left;
      const op = this.advance();
      const right = this.resource();
      left = { kind: "Relationship", operator, left, right, offset: op.offset, length: op.length };
    }
  }

  private resource(): A.Expression {
    const kind = this.kind();
    if (kind === "AT" || kind === "ATAT") {
      const at = this.advance();
      const inner = this.resource();
      if (
        inner.kind !== "Resource" &&
        inner.kind !== "ResourceDefaults" &&
        inner.kind !== "ResourceOverride"
      ) {
        this.error(
          at,
          kind === "AT"
            ? "Virtual (@) can only be applied to a Resource Expression"
            : "Exported (@@) can only be applied to a Resource Expression",
        );
      }
      inner.form = kind === "AT" ? "virtual" : "exported";
      Object.assign(inner, span(at, inner));
      return inner;
    }
    let left: A.Expression;
    if (kind === "CLASS" && this.kind(1) === "LBRACE") {
      const keyword = this.advance();
      this.advance();
      const bodies = this.resourceBodies();
      this.accept("SEMIC");
      const close = this.expect("RBRACE");
      const typeName: A.QualifiedName = {
        kind: "QualifiedName",
        value: "class",
        offset: keyword.offset,
        length: keyword.length,
      };
      left = {
        kind: "Resource",
        typeName,
        bodies,
        form: "regular",
        offset: keyword.offset,
        length: extent(keyword, close),
      };
    } else left = this.expression(0);
    while (this.kind() === "LBRACE") left = this.resourceBody(left);
    return left;
  }

  private isOperationStart(ahead = 0): boolean {
    const k = this.kind(ahead);
    const next = this.kind(ahead + 1);
    if (k === "TIMES") return next === "FARROW";
    return (k === "NAME" || KEYWORD_KINDS.has(k)) && (next === "FARROW" || next === "PARROW");
  }

  /** What follows `resource {`: titled bodies, or attributes alone (defaults, override...). */
  private resourceBody(left: A.Expression): A.Expression {
    const lbrace = this.advance();
    const k = this.kind();
    if (k === "RBRACE" || k === "COMMA" || this.isOperationStart()) {
      const operations = this.attributeOperations();
      this.accept("COMMA");
      const rbrace = this.expect("RBRACE");
      return this.untitled(left, operations, lbrace, rbrace);
    }
    const title = this.expression(0);
    this.expect("COLON");
    const operations = this.attributeOperations();
    const bodies: A.ResourceBody[] = [this.resourceBodyNode(title, operations)];
    this.accept("COMMA");
    if (this.accept("SEMIC") && this.kind() !== "RBRACE") {
      bodies.push(...this.resourceBodies());
      this.accept("SEMIC");
    }
    const rbrace = this.expect("RBRACE");
    return {
      kind: "Resource",
      typeName: left,
      bodies,
      form: "regular",
      offset: left.offset,
      length: extent(left, rbrace),
    };
  }

  private resourceBodyNode(title: A.Expression, operations: A.Operation[]): A.ResourceBody {
    const last = operations[operations.length - 1] ?? title;
    return { kind: "ResourceBody", title, operations, offset: title.offset, length: extent(title, last) };
  }

  /** `resource_bodies`: titled bodies separated by `;`. */
  private resourceBodies(): A.ResourceBody[] {
    const bodies: A.ResourceBody[] = [];
    for (;;) {
      const title = this.expression(0);
      this.expect("COLON");
      const operations = this.attributeOperations();
      this.accept("COMMA");
      bodies.push(this.resourceBodyNode(title, operations));
      if (this.kind() !== "SEMIC" || this.kind(1) === "RBRACE") return bodies;
      this.advance();
    }
  }

  private untitled(
    left: A.Expression,
    operations: A.Operation[],
    lbrace: Token,
    rbrace: Token,
  ): A.Expression {
    const where = span(left, rbrace);
    if (left.kind === "QualifiedName") {
      // `name { a => 1 }`: a call of name with a hash (or a name then a hash).
      if (operations.some((o) => o.kind === "AttributeOperation" && o.operator === "+>")) {
        this.error(lbrace, "Syntax error resource body without title or hash with +>");
      }
      const entries: A.KeyedEntry[] = operations.map((o) => {
        if (o.kind !== "AttributeOperation")
          this.error(lbrace, "Syntax error resource body without title or hash with +>");
        const key: A.LiteralString = {
          kind: "LiteralString",
          value: o.name,
          offset: o.offset,
          length: o.length,
        };
        return { kind: "KeyedEntry", key, value: o.value, offset: o.offset, length: o.length };
      });
      const hash: A.LiteralHash = {
        kind: "LiteralHash",
        entries,
        unfolded: false,
        offset: lbrace.offset,
        length: extent(lbrace, rbrace),
      };
      return this.blockOrExpression(this.transformCalls([left, hash]));
    }
    if (left.kind === "QualifiedReference") {
      return {
        kind: "ResourceDefaults",
        typeRef: left,
        operations,
        form: "regular",
        offset: where.offset,
        length: where.length,
      };
    }
    if (left.kind === "Access") {
      // Puppet means `Resource[file] {…}` to set defaults, but its test reads a
      // value its factory never sets: every access is an override.
      return {
        kind: "ResourceOverride",
        resources: left,
        operations,
        form: "regular",
        offset: where.offset,
        length: where.length,
      };
    }
    this.error(left, "Expression is not valid as a resource, resource-default, or resource-override");
  }

  /** Where an attribute operation may stand, an attribute name or `*` starts one. */
  private isAttributeName(ahead = 0): boolean {
    const k = this.kind(ahead);
    return k === "NAME" || k === "TIMES" || KEYWORD_KINDS.has(k);
  }

  /** `attribute_operations`: possibly empty, comma separated (no trailing comma consumed). */
  private attributeOperations(): A.Operation[] {
    if (!this.isAttributeName()) return [];
    const first = this.attributeOperation();
    if (this.kind() !== "COMMA" || !this.isAttributeName(1)) return [first];
    const operations: A.Operation[] = [first];
    while (this.kind() === "COMMA" && this.isAttributeName(1)) {
      this.advance();
      operations.push(this.attributeOperation());
    }
    return exact(operations);
  }

  private attributeOperation(): A.Operation {
    const name = this.advance();
    const op = this.tok;
    if (op.kind !== "FARROW" && (op.kind !== "PARROW" || name.kind === "TIMES")) this.syntaxError();
    this.advance();
    const value = this.expression(0);
    if (name.kind === "TIMES")
      return { kind: "AttributesOperation", expr: value, offset: name.offset, length: extent(name, value) };
    const operator = op.kind === "PARROW" ? "+>" : "=>";
    return {
      kind: "AttributeOperation",
      name: name.value,
      operator,
      value,
      offset: name.offset,
      length: extent(name, value),
    };
  }

  // --- expressions ----------------------------------------------------------------

  expression(minPrec: number): A.Expression {
    let left = this.unary();
    for (;;) {
      const kind = this.kind();
      const prec = binaryPrecedence(kind);
      if (prec === undefined || prec <= minPrec) return left;
      const op = this.advance();
      if (kind === "QMARK") {
        const braced = this.kind() === "SELBRACE";
        left = this.selector(left);
        // `$x ? {…}[0]`: what follows the closing brace applies to the selector.
        if (braced) left = this.postfix(left);
        continue;
      }
      const right = this.expression(prec);
      left = binary(kind, op, left, right);
    }
  }

  private unary(): A.Expression {
    const kind = this.kind();
    if (kind === "MINUS" || kind === "TIMES" || kind === "NOT") {
      const op = this.advance();
      const expr = this.expression(kind === "MINUS" ? UMINUS : kind === "TIMES" ? SPLAT : NOT - 1);
      const node = kind === "MINUS" ? "UnaryMinus" : kind === "TIMES" ? "Unfold" : "Not";
      return { kind: node, expr, offset: op.offset, length: op.length };
    }
    return this.postfix(this.primary());
  }

  private postfix(start: A.Expression): A.Expression {
    let left = start;
    for (;;) {
      switch (this.kind()) {
        case "LPAREN":
          left = this.callNamed(left);
          break;
        case "DOT":
          left = this.callMethod(left);
          break;
        case "LBRACK": {
          this.advance();
          const keys = this.accessArgs(true);
          const close = this.expect("RBRACK");
          left = { kind: "Access", left, keys, offset: left.offset, length: extent(left, close) };
          break;
        }
        case "LCOLLECT":
        case "LLCOLLECT":
          left = this.collect(left);
          break;
        default:
          return left;
      }
    }
  }

  private callNamed(functor: A.Expression): A.Expression {
    this.advance();
    const args = this.kind() === "RPAREN" ? [] : this.arguments(true);
    const close = this.expect("RPAREN");
    const call: A.CallNamedFunction = {
      kind: "CallNamedFunction",
      functor,
      args,
      rvalRequired: true,
      offset: functor.offset,
      length: extent(functor, close),
    };
    if (this.kind() === "PIPE") {
      call.lambda = this.lambda();
      Object.assign(call, span(functor, call.lambda));
    }
    return call;
  }

  private callMethod(left: A.Expression): A.Expression {
    const dot = this.advance();
    const nameToken = this.tok;
    if (nameToken.kind !== "NAME" && nameToken.kind !== "TYPE") this.syntaxError();
    this.advance();
    const name: A.QualifiedName = {
      kind: "QualifiedName",
      value: nameToken.value,
      offset: nameToken.offset,
      length: nameToken.length,
    };
    const functor: A.NamedAccess = {
      kind: "NamedAccess",
      left,
      right: name,
      offset: dot.offset,
      length: extent(dot, nameToken),
    };
    const call: A.CallMethod = {
      kind: "CallMethod",
      functor,
      args: [],
      rvalRequired: true,
      offset: functor.offset,
      length: functor.length,
    };
    if (this.kind() === "LPAREN") {
      const open = this.advance();
      if (this.kind() !== "RPAREN") call.args = this.arguments(false);
      const close = this.expect("RPAREN");
      Object.assign(call, span(open, close));
    }
    if (this.kind() === "PIPE") call.lambda = this.lambda();
    return call;
  }

  private collect(typeExpr: A.Expression): A.Expression {
    const open = this.advance();
    const exported = open.kind === "LLCOLLECT";
    const expr = this.kind() === (exported ? "RRCOLLECT" : "RCOLLECT") ? undefined : this.expression(0);
    const close = this.expect(exported ? "RRCOLLECT" : "RCOLLECT");
    const query: A.Query = {
      kind: exported ? "ExportedQuery" : "VirtualQuery",
      offset: open.offset,
      length: extent(open, close),
    };
    if (expr) query.expr = expr;
    let end: Positioned = close;
    let operations: A.Operation[] = [];
    if (this.kind() === "LBRACE") {
      this.advance();
      operations = this.attributeOperations();
      this.accept("COMMA");
      end = this.expect("RBRACE");
    }
    return {
      kind: "Collect",
      typeExpr,
      query,
      operations,
      offset: typeExpr.offset,
      length: extent(typeExpr, end),
    };
  }

  private selector(left: A.Expression): A.Expression {
    const entries: A.SelectorEntry[] = [];
    if (this.kind() === "SELBRACE") {
      this.advance();
      entries.push(this.selectorEntry());
      while (this.kind() === "COMMA" && this.kind(1) !== "RBRACE") {
        this.advance();
        entries.push(this.selectorEntry());
      }
      this.accept("COMMA");
      this.expect("RBRACE");
    } else entries.push(this.selectorEntry());
    return { kind: "Selector", left, entries, offset: left.offset, length: left.length };
  }

  private selectorEntry(): A.SelectorEntry {
    const match = this.expression(0);
    const arrow = this.expect("FARROW");
    const value = this.expression(0);
    return { kind: "SelectorEntry", match, value, offset: arrow.offset, length: arrow.length };
  }

  /**
   * Comma-separated items up to `close` (not consumed). With `trailing`, a
   * comma before `close` is accepted (the grammar's `endcomma`); without it
   * the comma is taken and the error falls on `close`, as in Puppet.
   */
  private commaList(
    context: "arg" | "entry" | "access",
    close: TokenKind,
    trailing: boolean,
  ): A.Expression[] {
    const first = this.argument(context);
    // One item (most access keys and arguments): a list of one, no room to spare.
    if (this.kind() !== "COMMA") return [first];
    const list: A.Expression[] = [first];
    while (this.kind() === "COMMA") {
      if (trailing && this.kind(1) === close) {
        this.advance();
        break;
      }
      this.advance();
      pushArgument(list, this.argument(context));
    }
    return exact(list);
  }

  /** `arguments` of a call: assignments and `key => value` pairs (adjacent pairs make one hash). */
  private arguments(trailing: boolean): A.Expression[] {
    return this.commaList("arg", "RPAREN", trailing);
  }

  private accessArgs(trailing: boolean): A.Expression[] {
    return this.commaList("access", "RBRACK", trailing);
  }

  private isKeywordKey(ahead = 0): boolean {
    const k = this.kind(ahead);
    return k === "TYPE" || k === "FUNCTION";
  }

  /** An argument, list entry or access key; `key => value` makes an unfolded hash. */
  private argument(context: "arg" | "entry" | "access"): A.Expression {
    let key: A.Expression;
    const next = this.kind(1);
    if (
      this.isKeywordKey() &&
      (next === "FARROW" || (context === "entry" && (next === "COMMA" || next === "RBRACK")))
    ) {
      key = this.keywordLiteral();
    } else key = this.assignment();
    if (this.kind() !== "FARROW") {
      // An access key is an expression; Puppet's parser took the assignment
      // as a hash key and fails on the token where `=>` should be.
      if (context === "access" && !isExpressionLevel(key)) this.syntaxError();
      return key;
    }
    const arrow = this.advance();
    const value = this.hashEntry();
    const pair: A.KeyedEntry = { kind: "KeyedEntry", key, value, offset: arrow.offset, length: arrow.length };
    return {
      kind: "LiteralHash",
      entries: [pair],
      unfolded: true,
      offset: arrow.offset,
      length: arrow.length,
    };
  }

  private keywordLiteral(): A.LiteralString {
    const t = this.advance();
    return { kind: "LiteralString", value: t.value, offset: t.offset, length: t.length };
  }

  /** `hash_entry`: an assignment, or `type`/`function` as a string. */
  private hashEntry(): A.Expression {
    const next = this.kind(1);
    if (this.isKeywordKey() && ["FARROW", "COMMA", "RBRACE", "RPAREN", "RBRACK"].includes(next)) {
      return this.keywordLiteral();
    }
    return this.assignment();
  }

  // --- primary expressions ---------------------------------------------------------

  private primary(): A.Expression {
    const t = this.tok;
    switch (t.kind) {
      case "VARIABLE":
        return this.variable(this.advance());
      case "NAME":
        this.advance();
        return { kind: "QualifiedName", value: t.value, offset: t.offset, length: t.length };
      case "WORD":
      case "STRING":
        this.advance();
        return { kind: "LiteralString", value: t.value, offset: t.offset, length: t.length };
      case "CLASSREF":
        this.advance();
        return qref(t, this.lexer);
      case "NUMBER":
        this.advance();
        return numberLiteral(t);
      case "BOOLEAN":
        this.advance();
        return { kind: "LiteralBoolean", value: t.value === "true", offset: t.offset, length: t.length };
      case "DEFAULT":
        this.advance();
        return { kind: "LiteralDefault", offset: t.offset, length: t.length };
      case "UNDEF":
        this.advance();
        return { kind: "LiteralUndef", offset: t.offset, length: t.length };
      case "REGEX":
        this.advance();
        return { kind: "LiteralRegex", pattern: t.value, offset: t.offset, length: t.length };
      case "DQPRE":
        return this.dqString();
      case "HEREDOC":
        return this.heredoc();
      case "LISTSTART":
      case "LBRACK":
        return this.array();
      case "LBRACE":
        return this.hash();
      case "LPAREN":
      case "WSLPAREN": {
        this.advance();
        const expr = this.assignment();
        this.expect("RPAREN");
        return { kind: "Paren", expr, offset: t.offset, length: t.length };
      }
      case "CASE":
        return this.caseExpression();
      case "IF":
        this.advance();
        return this.ifPart(t);
      case "UNLESS":
        return this.unlessExpression();
      case "DEFINE":
        return this.define();
      case "CLASS":
        return this.hostClass();
      case "NODE":
        return this.node();
      case "FUNCTION":
        return this.functionDefinition();
      case "TYPE":
        return this.typeExpression();
      case "PRIVATE":
      case "ATTR":
        this.advance();
        return { kind: "ReservedWord", word: t.value, offset: t.offset, length: t.length };
      case "RENDER_STRING":
        this.advance();
        return { kind: "RenderString", value: t.value, offset: t.offset, length: t.length };
      case "RENDER_EXPR":
        return this.render();
      default:
        this.syntaxError();
    }
  }

  private variable(t: Token): A.Variable {
    if (t.boolean === true) {
      const b: A.LiteralBoolean = {
        kind: "LiteralBoolean",
        value: t.value === "true",
        offset: t.offset,
        length: t.length,
      };
      return { kind: "Variable", expr: b, offset: t.offset, length: t.length };
    }
    // The name follows the `$` (a `${name}` token has none).
    const dollar = t.length > t.value.length ? 1 : 0;
    const name: A.QualifiedName = {
      kind: "QualifiedName",
      value: t.value,
      offset: t.offset + dollar,
      length: t.length - dollar,
    };
    return { kind: "Variable", expr: name, offset: t.offset, length: t.length };
  }

  private dqString(): A.ConcatenatedString {
    const pre = this.advance();
    const segments: A.Expression[] = [];
    literal(segments, pre);
    let last: Token;
    for (;;) {
      const expr = this.assignment();
      segments.push({
        kind: "TextExpression",
        expr: interpolate(expr),
        offset: expr.offset,
        length: expr.length,
      });
      const t = this.tok;
      if (t.kind === "DQMID") {
        this.advance();
        literal(segments, t);
        continue;
      }
      if (t.kind !== "DQPOST") this.syntaxError();
      last = this.advance();
      literal(segments, t);
      break;
    }
    return {
      kind: "ConcatenatedString",
      segments: exact(segments),
      offset: pre.offset,
      length: extent(pre, last),
    };
  }

  private heredoc(): A.Heredoc {
    const h = this.advance();
    let text: A.LiteralString | A.ConcatenatedString;
    if (this.kind() === "STRING") {
      const t = this.advance();
      text = { kind: "LiteralString", value: t.value, offset: t.offset, length: t.length };
    } else if (this.kind() === "DQPRE") text = this.dqString();
    else this.syntaxError();
    return { kind: "Heredoc", syntax: h.value, text, offset: h.offset, length: h.length };
  }

  private array(): A.Expression {
    const open = this.advance();
    const values = this.kind() === "RBRACK" ? [] : this.commaList("entry", "RBRACK", true);
    const close = this.expect("RBRACK");
    return { kind: "LiteralList", values, offset: open.offset, length: extent(open, close) };
  }

  private hash(): A.Expression {
    const open = this.advance();
    const entries: A.KeyedEntry[] = [];
    if (this.kind() !== "RBRACE") {
      entries.push(this.hashPair());
      while (this.kind() === "COMMA" && this.kind(1) !== "RBRACE") {
        this.advance();
        entries.push(this.hashPair());
      }
      this.accept("COMMA");
    }
    const close = this.expect("RBRACE");
    return {
      kind: "LiteralHash",
      entries,
      unfolded: false,
      offset: open.offset,
      length: extent(open, close),
    };
  }

  private hashPair(): A.KeyedEntry {
    const key = this.hashEntry();
    const arrow = this.expect("FARROW");
    const value = this.hashEntry();
    return { kind: "KeyedEntry", key, value, offset: arrow.offset, length: arrow.length };
  }

  // --- conditionals ---------------------------------------------------------------

  private braced(): { statements: A.Expression[] | undefined; open: Token; close: Token } {
    const open = this.expect("LBRACE");
    const statements = this.optionalStatements();
    const close = this.expect("RBRACE");
    return { statements, open, close };
  }

  private ifPart(keyword: Token): A.IfExpression {
    const test = this.expression(0);
    const { statements, open, close } = this.braced();
    const node: A.IfExpression = { kind: "If", test, offset: keyword.offset, length: extent(keyword, close) };
    if (statements) node.thenExpr = this.blockOrExpression(statements, open, close);
    if (this.kind() === "ELSIF") {
      const elsif = this.advance();
      node.elseExpr = this.ifPart(elsif);
    } else if (this.kind() === "ELSE") {
      this.advance();
      const e = this.braced();
      if (e.statements) node.elseExpr = this.blockOrExpression(e.statements, e.open, e.close);
    }
    return node;
  }

  private unlessExpression(): A.IfExpression {
    const keyword = this.advance();
    const test = this.expression(0);
    const { statements, open, close } = this.braced();
    const node: A.IfExpression = {
      kind: "Unless",
      test,
      offset: keyword.offset,
      length: extent(keyword, close),
    };
    if (statements) node.thenExpr = this.blockOrExpression(statements, open, close);
    if (this.kind() === "ELSE") {
      this.advance();
      const e = this.braced();
      if (e.statements) node.elseExpr = this.blockOrExpression(e.statements, e.open, e.close);
    }
    return node;
  }

  private caseExpression(): A.CaseExpression {
    const keyword = this.advance();
    const test = this.expression(0);
    this.expect("LBRACE");
    const options: A.CaseOption[] = [];
    do {
      const values = [this.expression(0)];
      while (this.accept("COMMA")) values.push(this.expression(0));
      const colon = this.expect("COLON");
      const { statements, open, close } = this.braced();
      const option: A.CaseOption = {
        kind: "CaseOption",
        values,
        offset: colon.offset,
        length: extent(colon, close),
      };
      const then = this.body(statements, open, close);
      if (then) option.thenExpr = then;
      options.push(option);
    } while (this.kind() !== "RBRACE");
    const close = this.expect("RBRACE");
    return { kind: "Case", test, options, offset: keyword.offset, length: extent(keyword, close) };
  }

  // --- lambdas and parameters ---------------------------------------------------

  private lambda(): A.Lambda {
    const open = this.expect("PIPE");
    let parameters: A.Parameter[] = [];
    if (this.kind() !== "PIPE") {
      parameters = this.parameters();
      this.accept("COMMA");
    }
    this.expect("PIPE");
    const returnType = this.optionalReturnType();
    const { statements, open: lbrace, close } = this.braced();
    const node: A.Lambda = { kind: "Lambda", parameters, offset: open.offset, length: extent(open, close) };
    const body = this.body(statements, lbrace, close);
    if (body) node.body = body;
    if (returnType) node.returnType = returnType;
    return node;
  }

  private optionalReturnType(): A.Expression | undefined {
    if (this.kind() !== "RSHIFT") return undefined;
    this.advance();
    const type = qref(this.expect("CLASSREF"), this.lexer);
    if (this.kind() !== "LBRACK") return type;
    this.advance();
    const keys = this.accessArgs(false);
    const close = this.expect("RBRACK");
    return { kind: "Access", left: type, keys, offset: type.offset, length: extent(type, close) };
  }

  private parameterList(): A.Parameter[] {
    if (this.kind() !== "LPAREN" && this.kind() !== "WSLPAREN") return [];
    this.advance();
    if (this.accept("RPAREN")) return [];
    const parameters = this.parameters();
    this.accept("COMMA");
    this.expect("RPAREN");
    return parameters;
  }

  private parameters(): A.Parameter[] {
    const list = [this.parameter()];
    while (
      this.kind() === "COMMA" &&
      (this.kind(1) === "VARIABLE" || this.kind(1) === "TIMES" || this.kind(1) === "CLASSREF")
    ) {
      this.advance();
      list.push(this.parameter());
    }
    return list;
  }

  private parameter(): A.Parameter {
    let typeExpr: A.Expression | undefined;
    if (this.kind() === "CLASSREF") {
      const type = qref(this.advance(), this.lexer);
      typeExpr = type;
      if (this.kind() === "LBRACK") {
        this.advance();
        const keys = this.accessArgs(false);
        const close = this.expect("RBRACK");
        typeExpr = { kind: "Access", left: type, keys, offset: type.offset, length: extent(type, close) };
      }
    }
    const capturesRest = this.accept("TIMES") !== undefined;
    const v = this.expect("VARIABLE");
    const node: A.Parameter = {
      kind: "Parameter",
      name: v.value,
      capturesRest,
      offset: v.offset,
      length: v.length,
    };
    if (typeExpr) node.typeExpr = typeExpr;
    if (this.accept("EQUALS")) node.value = this.expression(0);
    return node;
  }

  // --- definitions ---------------------------------------------------------------

  private className(): Token {
    const t = this.tok;
    if (t.kind === "NAME" || t.kind === "WORD" || t.kind === "CLASSREF") return this.advance();
    if (t.kind === "CLASS") {
      this.advance();
      this.error(t, "'class' keyword not allowed at this location");
    }
    if (t.kind === "STRING") {
      this.advance();
      this.error(t, "A quoted string is not valid as a name here");
    }
    this.syntaxError();
  }

  private qualified(name: string): string {
    return [...this.namestack, name].join("::").replace(/^::/, "");
  }

  private define(): A.Expression {
    const keyword = this.advance();
    const name = this.className();
    const parameters = this.parameterList();
    const { statements, open, close } = this.braced();
    const node: A.DefinedType = {
      kind: "DefinedType",
      name: this.qualified(name.value),
      parameters,
      offset: keyword.offset,
      length: extent(keyword, close),
    };
    const body = this.body(statements, open, close);
    if (body) node.body = body;
    this.definitions.push(node);
    return node;
  }

  private hostClass(): A.Expression {
    const keyword = this.advance();
    const name = this.className();
    this.namestack.push(name.value);
    const parameters = this.parameterList();
    let parent: string | undefined;
    if (this.accept("INHERITS")) {
      parent = this.kind() === "DEFAULT" ? this.advance().value : this.className().value;
    }
    const { statements, open, close } = this.braced();
    this.namestack.pop();
    const node: A.HostClass = {
      kind: "HostClass",
      name: this.qualified(name.value),
      parameters,
      offset: keyword.offset,
      length: extent(keyword, close),
    };
    if (parent !== undefined) node.parent = parent;
    const body = this.body(statements, open, close);
    if (body) node.body = body;
    this.definitions.push(node);
    return node;
  }

  private functionDefinition(): A.Expression {
    const keyword = this.advance();
    const name = this.className();
    const parameters = this.parameterList();
    const returnType = this.optionalReturnType();
    const { statements, open, close } = this.braced();
    const node: A.FunctionDefinition = {
      kind: "FunctionDefinition",
      name: name.value,
      parameters,
      offset: keyword.offset,
      length: extent(keyword, close),
    };
    const body = this.body(statements, open, close);
    if (body) node.body = body;
    if (returnType) node.returnType = returnType;
    this.definitions.push(node);
    return node;
  }

  private node(): A.Expression {
    const keyword = this.advance();
    const hostMatches = [this.hostname()];
    while (this.kind() === "COMMA" && this.kind(1) !== "LBRACE" && this.kind(1) !== "INHERITS") {
      this.advance();
      hostMatches.push(this.hostname());
    }
    this.accept("COMMA");
    let parent: A.Expression | undefined;
    if (this.accept("INHERITS")) parent = this.hostname();
    const open = this.expect("LBRACE");
    const statements = this.optionalStatements();
    const close = this.expect("RBRACE");
    const node: A.NodeDefinition = {
      kind: "NodeDefinition",
      hostMatches,
      offset: keyword.offset,
      length: extent(keyword, close),
    };
    if (parent) node.parent = parent;
    if (statements) node.body = this.blockOrExpression(statements, open, close);
    this.definitions.push(node);
    return node;
  }

  private hostname(): A.Expression {
    const t = this.tok;
    switch (t.kind) {
      case "NAME":
      case "NUMBER": {
        this.advance();
        let value = t.value;
        let last = t;
        while (this.accept("DOT")) {
          if (this.kind() !== "NAME" && this.kind() !== "NUMBER") this.syntaxError();
          last = this.advance();
          value += `.${last.value}`;
        }
        return { kind: "LiteralString", value, offset: t.offset, length: extent(t, last) };
      }
      case "STRING":
      case "WORD":
        this.advance();
        return { kind: "LiteralString", value: t.value, offset: t.offset, length: t.length };
      case "DQPRE":
        return this.dqString();
      case "HEREDOC":
        return this.heredoc();
      case "DEFAULT":
        this.advance();
        return { kind: "LiteralDefault", offset: t.offset, length: t.length };
      case "REGEX":
        this.advance();
        return { kind: "LiteralRegex", pattern: t.value, offset: t.offset, length: t.length };
      default:
        this.syntaxError();
    }
  }

  /** After `type`: a call `type(...)`, an alias `type T = ...` or a definition `type T {…}`. */
  private typeExpression(): A.Expression {
    const keyword = this.advance();
    if (this.kind() === "LPAREN") {
      const functor: A.QualifiedName = {
        kind: "QualifiedName",
        value: keyword.value,
        offset: keyword.offset,
        length: keyword.length,
      };
      return functor;
    }
    const nameToken = this.expect("CLASSREF");
    const name = qref(nameToken, this.lexer);
    if (this.kind() === "LBRACE" || this.kind() === "INHERITS") {
      let parent: string | undefined;
      if (this.accept("INHERITS")) parent = this.expect("CLASSREF").value;
      this.expect("LBRACE");
      const statements = this.optionalStatements();
      const close = this.expect("RBRACE");
      const node: A.TypeDefinition = {
        kind: "TypeDefinition",
        name: nameToken.value,
        offset: keyword.offset,
        length: extent(keyword, close),
      };
      if (parent !== undefined) node.parent = parent;
      if (statements)
        node.body = { kind: "Block", statements, offset: keyword.offset, length: extent(keyword, close) };
      this.definitions.push(node);
      return node;
    }
    let lhs: A.Expression = name;
    if (this.kind() === "LBRACK") {
      this.advance();
      const keys = this.accessArgs(false);
      const close = this.expect("RBRACK");
      lhs = { kind: "Access", left: name, keys, offset: name.offset, length: extent(name, close) };
    }
    this.expect("EQUALS");
    const rhs = this.typeAliasValue();
    const node: A.Definition =
      lhs.kind === "Access"
        ? {
            kind: "TypeMapping",
            typeExpr: lhs,
            mappingExpr: rhs,
            offset: lhs.offset,
            length: extent(lhs, rhs),
          }
        : {
            kind: "TypeAlias",
            name: nameToken.value,
            typeExpr: rhs,
            offset: lhs.offset,
            length: extent(lhs, rhs),
          };
    this.definitions.push(node);
    return node;
  }

  private typeAliasValue(): A.Expression {
    const k = this.kind();
    if (k === "LBRACE") return this.hash();
    if (k === "LISTSTART" || k === "LBRACK") return this.array();
    const type = qref(this.expect("CLASSREF"), this.lexer);
    if (this.kind() === "LBRACE") {
      const hash = this.hash();
      return { kind: "KeyedEntry", key: type, value: hash, offset: type.offset, length: extent(type, hash) };
    }
    if (this.kind() === "LBRACK") {
      this.advance();
      const keys = this.accessArgs(true);
      const close = this.expect("RBRACK");
      return { kind: "Access", left: type, keys, offset: type.offset, length: extent(type, close) };
    }
    return type;
  }

  // --- EPP -------------------------------------------------------------------------

  private eppProgram(): A.Expression {
    const start = this.advance();
    let parameters: A.Parameter[] | undefined;
    if (this.kind() === "PIPE") {
      this.advance();
      parameters = [];
      if (this.kind() !== "PIPE") {
        parameters = this.parameters();
        this.accept("COMMA");
      }
      this.expect("PIPE");
    }
    const statements = this.optionalStatements();
    const last = statements?.[statements.length - 1];
    const epp: A.EppExpression = {
      kind: "Epp",
      parametersSpecified: parameters !== undefined,
      offset: start.offset,
      length: start.length,
    };
    if (statements && last) {
      const first = statements[0] as A.Expression;
      epp.body = { kind: "Block", statements, offset: first.offset, length: extent(first, last) };
    }
    return {
      kind: "Lambda",
      parameters: parameters ?? [],
      body: epp,
      offset: start.offset,
      length: start.length,
    };
  }

  private render(): A.Expression {
    const start = this.advance();
    if (this.kind() === "LBRACE" && this.kind(1) !== "RBRACE" && !this.looksLikeHash()) {
      const open = this.advance();
      const statements = this.statements();
      const close = this.expect("RBRACE");
      const end = this.eppEnd();
      return {
        kind: "Render",
        expr: this.blockOrExpression(statements, open, close),
        offset: start.offset,
        length: extent(start, end),
      };
    }
    const expr = this.expression(0);
    const end = this.eppEnd();
    return { kind: "Render", expr, offset: start.offset, length: extent(start, end) };
  }

  /** Whether `{` opens a hash: a key then `=>` (a lookahead over one simple key). */
  private looksLikeHash(): boolean {
    return this.kind(2) === "FARROW";
  }

  private eppEnd(): Token {
    if (this.kind() === "EPP_END" || this.kind() === "EPP_END_TRIM") return this.advance();
    this.syntaxError();
  }
}

/** Whether a node could come from the grammar's `expression` (not assignment, relationship or resource). */
function isExpressionLevel(e: A.Expression): boolean {
  switch (e.kind) {
    case "Assignment":
    case "Relationship":
    case "Resource":
    case "ResourceDefaults":
    case "ResourceOverride":
    case "Block":
      return false;
    case "CallNamedFunction":
      return e.rvalRequired;
    default:
      return true;
  }
}

function pushArgument(args: A.Expression[], arg: A.Expression): void {
  const last = args[args.length - 1];
  if (arg.kind === "LiteralHash" && arg.unfolded && last?.kind === "LiteralHash" && last.unfolded) {
    last.entries.push(...arg.entries);
    return;
  }
  args.push(arg);
}

/**
 * The items of a list grown by push, in an array of their number: push
 * makes room for 17 at the first item, and the syntax tree keeps its lists
 * (every resource's attributes, every string's segments) for the whole compile.
 */
function exact<T>(list: T[]): T[] {
  return list.length < 17 ? list.slice() : list;
}

/** A string segment of a token, unless empty. */
function literal(segments: A.Expression[], t: Token): void {
  if (t.value !== "")
    segments.push({ kind: "LiteralString", value: t.value, offset: t.offset, length: t.length });
}

function qref(t: Token, lexer: Lexer): A.QualifiedReference {
  return {
    kind: "QualifiedReference",
    value: lexer.intern(t.value.toLowerCase()),
    cased: t.value,
    offset: t.offset,
    length: t.length,
  };
}

function binary(kind: TokenKind, op: Token, left: A.Expression, right: A.Expression): A.Expression {
  const offset = op.offset;
  const length = op.length;
  switch (kind) {
    case "IN":
      return { kind: "In", left, right, offset, length };
    case "AND":
      return { kind: "And", left, right, offset, length };
    case "OR":
      return { kind: "Or", left, right, offset, length };
    case "MATCH":
    case "NOMATCH":
      return { kind: "Match", operator: kind === "MATCH" ? "=~" : "!~", left, right, offset, length };
    case "ISEQUAL":
    case "NOTEQUAL":
    case "LESSTHAN":
    case "LESSEQUAL":
    case "GREATERTHAN":
    case "GREATEREQUAL":
      return { kind: "Comparison", operator: op.value as A.ComparisonOperator, left, right, offset, length };
    default:
      return { kind: "Arithmetic", operator: op.value as A.ArithmeticOperator, left, right, offset, length };
  }
}

/** A NUMBER token's value: integers keep their radix; floats are doubles. */
export function numberLiteral(t: Token): A.LiteralInteger | A.LiteralFloat {
  const text = t.value;
  const offset = t.offset;
  const length = t.length;
  const second = text.charCodeAt(1);
  if (text.charCodeAt(0) === 48 && (second === 120 || second === 88))
    return { kind: "LiteralInteger", value: bigOrNumber(BigInt(text)), radix: 16, offset, length };
  if (text.includes(".") || text.includes("e") || text.includes("E"))
    return { kind: "LiteralFloat", value: Number(text), offset, length };
  if (text.length > 1 && text.charCodeAt(0) === 48) {
    return {
      kind: "LiteralInteger",
      value: bigOrNumber(BigInt(`0o${text.slice(1)}`)),
      radix: 8,
      offset,
      length,
    };
  }
  // Up to 15 digits, a double holds the value exactly.
  const value = text.length <= 15 ? Number(text) : bigOrNumber(BigInt(text));
  return { kind: "LiteralInteger", value, radix: 10, offset, length };
}

function bigOrNumber(n: bigint): number | bigint {
  return n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
}

/**
 * What `${expr}` evaluates: a bare name or number reads a variable, also as
 * the left of `[…]`, `.name` or a method call (Puppet's interpolate rules).
 */
function interpolate(expr: A.Expression): A.Expression {
  switch (expr.kind) {
    case "QualifiedName":
      return { kind: "Variable", expr, offset: expr.offset, length: expr.length };
    case "LiteralInteger":
      return { kind: "Variable", expr, offset: expr.offset, length: expr.length };
    case "Access":
    case "NamedAccess":
      if (rewritable(expr.left)) expr.left = interpolate(expr.left);
      return expr;
    case "CallMethod":
      if (rewritable(expr.functor)) expr.functor = interpolate(expr.functor) as A.NamedAccess;
      return expr;
    default:
      return expr;
  }
}

function rewritable(e: A.Expression): boolean {
  switch (e.kind) {
    case "Access":
    case "QualifiedName":
    case "NamedAccess":
    case "CallMethod":
      return true;
    case "LiteralInteger":
      return e.radix === 10;
    default:
      return false;
  }
}
