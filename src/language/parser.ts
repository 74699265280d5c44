/**
 * The parser of CFEngine 3.21 policy: recursive descent over the grammar
 * cf-promises accepts, with the same places for commas and the same limits
 * (lists do not nest, function arguments take no lists and no trailing
 * comma, calls nest at most nine deep).
 *
 * It never throws. Every problem becomes a diagnostic; after an error in a
 * statement the parser skips to the statement's end and goes on, so one
 * mistake yields one diagnostic and the rest of the file still has a tree.
 * Only syntax is checked here; what the words mean is the validator's job.
 */
import type {
  Attribute,
  AttributeGroup,
  Block,
  ClassGuard,
  FunctionCall,
  ListValue,
  Name,
  PolicyFile,
  Promise as PromiseNode,
  PromiseGroup,
  PromiseSection,
  Rval,
  Span,
  StringLiteral,
} from "./ast.js";
import { type Diagnostic, type DiagnosticCode, makeDiagnostic } from "./diagnostics.js";
import { Lexer, type Token, type TokenKind } from "./lexer.js";
import type { SourceFile } from "./source.js";

export interface ParseResult {
  readonly policy: PolicyFile;
  readonly diagnostics: Diagnostic[];
}

/** Parses one file. Never throws. */
export function parse(source: SourceFile): ParseResult {
  return parseText(source.text, source.path);
}

/** Parses policy text; `path` names it in diagnostics. Never throws. */
export function parseText(text: string, path = "<input>"): ParseResult {
  const parser = new Parser(text, path);
  const policy = parser.parseFile();
  const diagnostics = [...parser.lexerDiagnostics(), ...parser.diagnostics];
  const nul = text.indexOf("\0");
  if (nul !== -1) {
    // cf-promises reads a file as a C string and rejects it: policy is text.
    diagnostics.push(
      makeDiagnostic(path, [nul, nul + 1], "error", "nul-byte", "a NUL byte: a policy file is text"),
    );
  }
  diagnostics.sort((a, b) => a.span[0] - b.span[0]);
  return { policy, diagnostics };
}

/** Function calls nest at most this deep, as in cf-promises. */
const MAX_CALL_NESTING = 9;

/** Thrown inside the parser to abandon a statement; caught at statement level. */
class StatementError {}

const WHITESPACE_BETWEEN_NAMES = /[_A-Za-z0-9][ \t]+[_A-Za-z0-9]/;

class Parser {
  readonly diagnostics: Diagnostic[] = [];
  private readonly lexer: Lexer;
  private tok: Token;
  private prevEnd = 0;
  private braceDepth = 0;
  private namespace = "default";

  constructor(
    private readonly text: string,
    private readonly file: string,
  ) {
    this.lexer = new Lexer(text, file);
    this.tok = this.lexer.next();
  }

  lexerDiagnostics(): Diagnostic[] {
    return this.lexer.diagnostics;
  }

  parseFile(): PolicyFile {
    const blocks: Block[] = [];
    while (this.at() !== "eof") {
      const kind = this.at();
      if (kind === "bundle" || kind === "body" || kind === "promise") {
        const block = this.parseBlock(kind);
        if (block) blocks.push(block);
        continue;
      }
      if (kind !== "error") {
        this.error(
          this.span(),
          "syntax-error",
          `expected 'bundle', 'body' or 'promise' to start a block, found ${this.describe()}`,
        );
      }
      this.skipToBlock();
    }
    return { kind: "policy", path: this.file, blocks, span: [0, this.text.length] };
  }

  // ---- blocks -------------------------------------------------------------

  private parseBlock(keyword: "bundle" | "body" | "promise"): Block | null {
    const start = this.tok.start;
    const namespace = this.namespace;
    this.advance();
    try {
      const type = this.expectName(`a ${keyword} type after '${keyword}'`);
      const name = this.expectName(
        `a ${keyword === "promise" ? "promise type" : keyword} name after '${type.text}'`,
      );
      const params = this.at() === "(" ? this.parseParams() : null;
      if (this.at() !== "{") this.fail(`expected '{' to open the ${keyword} '${name.text}'`);
      const open = this.tok;
      this.advance();
      const head = { type, name, params, namespace };
      if (keyword === "bundle") {
        const sections = this.parseBundleContents(open, name.text);
        return { kind: "bundle", ...head, sections, span: [start, this.prevEnd] };
      }
      const groups = this.parseAttributeContents(open, keyword, name.text);
      if (keyword === "body" && type.text === "file" && name.text === "control") this.takeNamespace(groups);
      const kind = keyword === "body" ? "body" : "promise-block";
      return { kind, ...head, groups, span: [start, this.prevEnd] };
    } catch (e) {
      if (!(e instanceof StatementError)) throw e;
      this.skipToBlock();
      return null;
    }
  }

  /** `body file control { namespace => "x"; }` puts the following blocks in `x`. */
  private takeNamespace(groups: readonly AttributeGroup[]): void {
    for (const group of groups) {
      for (const attribute of group.attributes) {
        if (attribute.name.text !== "namespace") continue;
        const value = attribute.value;
        if (value.kind === "string") this.namespace = value.value;
        else if (value.kind === "symbol") this.namespace = value.name;
      }
    }
  }

  private parseParams(): Name[] {
    this.advance(); // (
    const params: Name[] = [];
    while (this.at() !== ")") {
      if (this.at() !== "identifier") this.fail(`expected a parameter name or ')', found ${this.describe()}`);
      params.push(this.takeName());
      if (this.at() === ",") this.advance();
      else if (this.at() !== ")")
        this.fail(
          `expected ',' or ')' after parameter '${params[params.length - 1].text}', found ${this.describe()}`,
        );
    }
    this.advance(); // )
    return params;
  }

  private parseBundleContents(open: Token, name: string): PromiseSection[] {
    const sections: PromiseSection[] = [];
    let section: SectionBuilder | null = null;
    for (;;) {
      const kind = this.at();
      if (kind === "}") {
        this.advance();
        break;
      }
      if (this.isBlockEnd(kind)) {
        this.unclosed(open, "bundle", name);
        break;
      }
      if (kind === "promise-guard") {
        if (section) sections.push(section.finish(this.prevEnd));
        section = new SectionBuilder(this.tok, this.tok.value);
        this.advance();
        continue;
      }
      this.parseBundleStatement(section);
    }
    if (section) sections.push(section.finish(this.prevEnd));
    return sections;
  }

  private parseBundleStatement(section: SectionBuilder | null): void {
    const depth = this.braceDepth;
    const from = this.tok.start;
    try {
      const kind = this.at();
      if (kind === "class-guard" || kind === "var-class-guard") {
        const guard = this.takeGuard();
        const glued = /^([a-zA-Z_]+):[ \t]/.exec(guard.expression);
        if (glued) {
          this.fail(
            `'${glued[1]}:' and a class guard share a line, so CFEngine reads '${guard.expression}::' as one class guard; put them on separate lines`,
            guard.span,
          );
        }
        if (!section)
          this.fail(
            `expected a promise type such as 'vars:' before the class guard '${guard.expression}::'`,
            guard.span,
          );
        section.startGroup(guard);
        return;
      }
      if (kind !== "string") {
        if (!section)
          this.fail(`expected a promise type such as 'vars:' or 'reports:', found ${this.describe()}`);
        this.fail(`expected a promiser string, a class guard or a promise type, found ${this.describe()}`);
      }
      const promise = this.parsePromise();
      if (!section)
        this.fail("expected a promise type such as 'vars:' before the first promise", promise.span);
      section.add(promise);
    } catch (e) {
      if (!(e instanceof StatementError)) throw e;
      this.skipStatement(depth, from);
    }
  }

  private parseAttributeContents(open: Token, keyword: string, name: string): AttributeGroup[] {
    const groups: AttributeGroup[] = [];
    let group: GroupBuilder<Attribute> | null = null;
    for (;;) {
      const kind = this.at();
      if (kind === "}") {
        this.advance();
        break;
      }
      if (this.isBlockEnd(kind)) {
        this.unclosed(open, keyword, name);
        break;
      }
      const depth = this.braceDepth;
      const from = this.tok.start;
      try {
        if (kind === "class-guard" || kind === "var-class-guard") {
          if (group) groups.push(group.finishAttributes(this.prevEnd));
          group = new GroupBuilder(this.takeGuard());
          continue;
        }
        const attribute = this.parseBodyAttribute();
        if (group?.guard?.quoted) {
          this.error(
            attribute.span,
            "syntax-error",
            `attributes of a ${keyword} cannot be guarded by a variable class such as "${group.guard.expression}"::`,
          );
        }
        if (!group) group = new GroupBuilder<Attribute>(null);
        group.items.push(attribute);
      } catch (e) {
        if (!(e instanceof StatementError)) throw e;
        this.skipStatement(depth, from);
      }
    }
    if (group) groups.push(group.finishAttributes(this.prevEnd));
    return groups;
  }

  private parseBodyAttribute(): Attribute {
    if (this.at() !== "identifier")
      this.fail(`expected an attribute name or a class guard, found ${this.describe()}`);
    const attribute = this.parseAttribute();
    if (this.at() !== ";") {
      this.fail(
        `expected ';' after the value of '${attribute.name.text}', found ${this.describe()}`,
        this.span(),
        attribute.value.span,
      );
    }
    this.advance();
    return attribute;
  }

  // ---- promises -----------------------------------------------------------

  private parsePromise(): PromiseNode {
    const promiser = this.takeString();
    let promisee: Rval | null = null;
    if (this.at() === "->") {
      this.advance();
      promisee = this.parseRval(true);
    }
    const attributes: Attribute[] = [];
    if (this.at() === ",") {
      this.fail(
        "expected an attribute or ';' after the promiser; a comma may not follow the promiser (3.5.0 and later)",
      );
    }
    if (this.at() === "identifier") {
      attributes.push(this.parseAttribute());
      while (this.at() === ",") {
        this.advance();
        if (this.at() !== "identifier")
          this.fail(`expected an attribute name after ',', found ${this.describe()}`);
        attributes.push(this.parseAttribute());
      }
    }
    if (this.at() !== ";") this.failPromiseEnd(attributes);
    const end = this.tok.end;
    this.advance();
    return { kind: "promise", promiser, promisee, attributes, span: [promiser.span[0], end] };
  }

  private failPromiseEnd(attributes: Attribute[]): never {
    const last = attributes[attributes.length - 1];
    if (!last) {
      if (this.at() === "=>") this.fail("expected an attribute name before '=>'");
      this.fail(`expected '->', an attribute or ';' after the promiser, found ${this.describe()}`);
    }
    const after = `after the value of '${last.name.text}'`;
    if (this.at() === "identifier" || this.at() === "string") {
      this.fail(
        `expected ',' between attributes or ';' to end the promise ${after}, found ${this.describe()}`,
        this.span(),
        last.value.span,
      );
    }
    this.fail(
      `expected ';' to end the promise ${after}, found ${this.describe()}`,
      this.span(),
      last.value.span,
    );
  }

  private parseAttribute(): Attribute {
    const name = this.takeName();
    if (this.at() !== "=>")
      this.fail(`expected '=>' after the attribute name '${name.text}', found ${this.describe()}`);
    this.advance();
    const value = this.parseRval(true);
    return { kind: "attribute", name, value, span: [name.span[0], value.span[1]] };
  }

  // ---- values -------------------------------------------------------------

  /** An rval; `listAllowed` is false inside lists and function arguments. */
  private parseRval(listAllowed: boolean, nesting = 0): Rval {
    const tok = this.tok;
    switch (tok.kind) {
      case "string":
        return this.takeString();
      case "identifier":
      case "nakedvar": {
        this.advance();
        if (this.at() === "(") return this.parseCall(tok, nesting + 1);
        const span: Span = [tok.start, tok.end];
        if (tok.kind === "nakedvar") return { kind: "nakedvar", text: tok.value, span };
        return { kind: "symbol", name: tok.value, span };
      }
      case "{":
        if (listAllowed) return this.parseList();
        this.fail(
          nesting > 0
            ? "a list cannot be a function argument; pass a variable holding it instead, e.g. @(list)"
            : "lists cannot be nested in CFEngine 3.21",
        );
    }
    this.fail(
      `expected a value (a quoted string, a list, a function call, a variable or a name), found ${this.describe()}`,
    );
  }

  private parseList(): ListValue {
    const start = this.tok.start;
    this.advance(); // {
    const items: Rval[] = [];
    let trailingComma = false;
    while (this.at() !== "}") {
      items.push(this.parseRval(false));
      trailingComma = false;
      if (this.at() === ",") {
        this.advance();
        trailingComma = true;
      } else if (this.at() !== "}") this.failListItem(items[items.length - 1]);
    }
    const end = this.tok.end;
    this.advance();
    return { kind: "list", items, trailingComma, span: [start, end] };
  }

  private failListItem(last: Rval): never {
    if (this.at() === ";") this.fail("expected '}' to close the list before ';'", this.span(), last.span);
    if (this.at() === "=>")
      this.fail(
        "expected '}' to close the list (is it missing on the previous line?)",
        this.span(),
        last.span,
      );
    this.fail(`expected ',' or '}' after a list item, found ${this.describe()}`, this.span(), last.span);
  }

  private parseCall(nameToken: Token, nesting: number): FunctionCall {
    if (nesting > MAX_CALL_NESTING) {
      // Give up on the statement: going deeper only risks the stack.
      this.error(
        this.span(),
        "nesting-too-deep",
        `function calls nest ${nesting} deep here; CFEngine allows at most ${MAX_CALL_NESTING}`,
      );
      throw new StatementError();
    }
    this.advance(); // (
    const args: Rval[] = [];
    while (this.at() !== ")") {
      args.push(this.parseRval(false, nesting));
      if (this.at() === ",") {
        this.advance();
        if (this.at() === ")")
          this.fail(
            "expected a function argument after ','; CFEngine does not allow a trailing comma in calls",
          );
      } else if (this.at() !== ")") this.failArgument(nameToken.value);
    }
    const end = this.tok.end;
    this.advance();
    return {
      kind: "call",
      name: nameToken.value,
      nameSpan: [nameToken.start, nameToken.end],
      args,
      span: [nameToken.start, end],
    };
  }

  private failArgument(name: string): never {
    if (this.at() === ";") this.fail(`expected ')' to close the call to '${name}' before ';'`);
    if (this.at() === "=>")
      this.fail(`expected ')' to close the call to '${name}' (is it missing on the previous line?)`);
    this.fail(`expected ',' or ')' after an argument of '${name}', found ${this.describe()}`);
  }

  // ---- tokens -------------------------------------------------------------

  private takeGuard(): ClassGuard {
    const tok = this.tok;
    this.advance();
    const quoted = tok.kind === "var-class-guard";
    const span: Span = [tok.start, tok.end];
    if (!quoted && WHITESPACE_BETWEEN_NAMES.test(tok.value)) {
      this.error(
        span,
        "class-guard-whitespace",
        `class names in '${tok.value}::' are separated by whitespace; join them with '.', '&' or '|'`,
      );
    }
    return { kind: "guard", expression: tok.value, quoted, span };
  }

  private takeString(): StringLiteral {
    const tok = this.tok;
    this.advance();
    const quote = this.text[tok.start] as StringLiteral["quote"];
    return { kind: "string", value: tok.value, quote, span: [tok.start, tok.end] };
  }

  private takeName(): Name {
    const tok = this.tok;
    this.advance();
    return { kind: "name", text: tok.value, span: [tok.start, tok.end] };
  }

  private expectName(what: string): Name {
    if (this.at() !== "identifier") this.fail(`expected ${what}, found ${this.describe()}`);
    return this.takeName();
  }

  /** The current token's kind (a method, so TypeScript does not narrow it across `advance`). */
  private at(): TokenKind {
    return this.tok.kind;
  }

  private advance(): void {
    const kind = this.tok.kind;
    if (kind === "{") this.braceDepth++;
    else if (kind === "}") this.braceDepth--;
    this.prevEnd = this.tok.end;
    this.tok = this.lexer.next();
  }

  private isBlockEnd(kind: TokenKind): boolean {
    return kind === "eof" || kind === "bundle" || kind === "body" || kind === "promise";
  }

  private unclosed(open: Token, keyword: string, name: string): void {
    const found = this.at() === "eof" ? "the end of the file" : `'${this.tok.value}'`;
    this.error(
      [open.start, open.end],
      "expected-token",
      `the ${keyword} '${name}' is never closed: expected '}' before ${found}`,
    );
  }

  /** Skips the rest of a broken statement: to its `;`, or to the `}` ending its block. */
  private skipStatement(depth: number, from: number): void {
    // Always move on by at least one token past the statement's start, or a
    // token no rule takes (say, a promise type inside a body) would be met
    // again forever.
    for (;;) {
      const kind = this.at();
      if (this.isBlockEnd(kind)) return;
      const stuck = this.tok.start === from;
      if (kind === "}" && this.braceDepth <= depth && !stuck) return;
      if (kind === ";" && this.braceDepth <= depth) {
        this.advance();
        return;
      }
      if (kind === "promise-guard" && this.braceDepth <= depth && !stuck) return;
      this.advance();
    }
  }

  private skipToBlock(): void {
    this.advance();
    while (!this.isBlockEnd(this.at())) this.advance();
    this.braceDepth = 0;
  }

  private span(): Span {
    return [this.tok.start, this.tok.end];
  }

  private describe(): string {
    const tok = this.tok;
    switch (tok.kind) {
      case "eof":
        return "the end of the file";
      case "string": {
        const text = this.text.slice(tok.start, tok.end);
        return `the string ${text.length > 40 ? text.slice(0, 37) + "..." : text}`;
      }
      case "class-guard":
      case "var-class-guard":
        return `the class guard '${this.text.slice(tok.start, tok.end)}'`;
      case "promise-guard":
        return `the promise type '${tok.value}:'`;
      case "nakedvar":
        return `the variable ${tok.value}`;
      case "bundle":
      case "body":
      case "promise":
        return `the keyword '${tok.value}'`;
      default:
        return `'${tok.value.length > 40 ? tok.value.slice(0, 37) + "..." : tok.value}'`;
    }
  }

  private error(span: Span, code: DiagnosticCode, message: string): void {
    this.diagnostics.push(makeDiagnostic(this.file, span, "error", code, message));
  }

  /**
   * Reports and abandons the statement. A problem found at a token that
   * follows a line break is placed just after the previous value instead,
   * where the author most likely left something out.
   */
  private fail(message: string, span: Span = this.span(), previous?: Span): never {
    let at = span;
    if (previous && this.text.slice(previous[1], span[0]).includes("\n")) at = [previous[1], previous[1]];
    const code: DiagnosticCode = this.at() === "error" ? "unterminated-string" : "syntax-error";
    if (this.at() !== "error") this.error(at, code, message);
    throw new StatementError();
  }
}

class GroupBuilder<T> {
  readonly items: T[] = [];
  constructor(readonly guard: ClassGuard | null) {}

  finishAttributes(this: GroupBuilder<Attribute>, end: number): AttributeGroup {
    return { kind: "attribute-group", guard: this.guard, attributes: this.items, span: [this.start(), end] };
  }

  finishPromises(this: GroupBuilder<PromiseNode>, end: number): PromiseGroup {
    return { kind: "promise-group", guard: this.guard, promises: this.items, span: [this.start(), end] };
  }

  private start(): number {
    const first = this.items[0] as { span: Span } | undefined;
    return this.guard?.span[0] ?? first?.span[0] ?? 0;
  }
}

class SectionBuilder {
  private readonly groups: PromiseGroup[] = [];
  private group: GroupBuilder<PromiseNode> | null = null;
  private readonly type: Name;

  constructor(tok: Token, type: string) {
    this.type = { kind: "name", text: type, span: [tok.start, tok.end - 1] };
  }

  startGroup(guard: ClassGuard): void {
    this.closeGroup(guard.span[0]);
    this.group = new GroupBuilder(guard);
  }

  add(promise: PromiseNode): void {
    if (!this.group) this.group = new GroupBuilder<PromiseNode>(null);
    this.group.items.push(promise);
  }

  finish(end: number): PromiseSection {
    this.closeGroup(end);
    return { kind: "section", type: this.type, groups: this.groups, span: [this.type.span[0], end] };
  }

  private closeGroup(end: number): void {
    if (!this.group) return;
    const last = this.group.items[this.group.items.length - 1];
    this.groups.push(this.group.finishPromises(last ? last.span[1] : (this.group.guard?.span[1] ?? end)));
    this.group = null;
  }
}
