/**
 * The part of StringTemplate (with `&` delimiters, as Rudder configures it)
 * that Rudder's technique templates (`.st`) use:
 *
 *   &NAME&                           a value (a list's elements one after another)
 *   &NAME:{x | body}&                the body for each element, with &i& (from 1) and &i0&
 *   &A, B:{a, b | body}&             the body over several lists side by side
 *   &NAME:{ body with &it& }&        the element as `it`
 *   ...;separator=", "&              between elements
 *   &if(NAME)& &if(!NAME)& &elseif(NAME)& &else& &endif&
 *   &! comment !&
 *
 * with StringTemplate 4's layout rules: the lines a multi-line value writes
 * are indented as the expression is; a line holding only `&if&`, `&else&`,
 * `&endif&`, a comment, or an expression that writes nothing, disappears
 * with its newline; `\\` in the text is one backslash. A value is a
 * string, a boolean (false only for `if`), a list of them, or absent.
 */

/** A record's properties are read with `&name.property&`. */
export type StRecord = { readonly [property: string]: string };
export type StItem = string | boolean | StRecord;
export type StValue = StItem | readonly StItem[] | undefined;

type Node =
  | { readonly kind: "text"; readonly text: string }
  | {
      readonly kind: "expr";
      readonly names: readonly string[];
      readonly template?: Template;
      readonly separator?: string;
    }
  | {
      readonly kind: "if";
      readonly branches: readonly { cond?: { name: string; not: boolean }; body: readonly Node[] }[];
    }
  | { readonly kind: "comment" };

interface Template {
  readonly args: readonly string[];
  readonly body: readonly Node[];
}

class Parser {
  pos = 0;
  constructor(readonly src: string) {}

  /** Nodes up to the end, a `}` closing an anonymous template, or an if keyword. */
  nodes(inBraces: boolean): { nodes: Node[]; stop?: string } {
    const out: Node[] = [];
    let text = "";
    // Braces in the text of a body nest (`${x}`): only an unmatched `}` closes it.
    let depth = 0;
    const flush = () => {
      if (text !== "") out.push({ kind: "text", text });
      text = "";
    };
    while (this.pos < this.src.length) {
      const c = this.src[this.pos] as string;
      if (
        c === "\\" &&
        (this.src[this.pos + 1] === "\\" || this.src[this.pos + 1] === "&" || this.src[this.pos + 1] === "}")
      ) {
        text += this.src[this.pos + 1];
        this.pos += 2;
      } else if (inBraces && c === "}" && depth === 0) {
        flush();
        this.pos++;
        return { nodes: out, stop: "}" };
      } else if (c === "&") {
        flush();
        const kw = /^&(else|endif|elseif\((!?)\s*([A-Za-z_][\w.]*)\s*\))&/.exec(
          this.src.slice(this.pos, this.pos + 200),
        );
        if (kw) return { nodes: out, stop: kw[0] };
        out.push(this.expression());
      } else {
        if (inBraces && c === "{") depth++;
        else if (inBraces && c === "}") depth--;
        text += c;
        this.pos++;
      }
    }
    flush();
    return { nodes: out };
  }

  expression(): Node {
    const rest = this.src.slice(this.pos);
    if (rest.startsWith("&!")) {
      const end = this.src.indexOf("!&", this.pos + 2);
      this.pos = end < 0 ? this.src.length : end + 2;
      return { kind: "comment" };
    }
    const ifm = /^&if\((!?)\s*([A-Za-z_][\w.]*)\s*\)&/.exec(rest);
    if (ifm) {
      this.pos += ifm[0].length;
      return this.ifNode({ name: ifm[2] as string, not: ifm[1] === "!" });
    }
    const names = /^&\s*([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)\s*/.exec(rest);
    if (!names) throw new Error(`bad template expression at offset ${this.pos}`);
    this.pos += names[0].length;
    const list = (names[1] as string).split(",").map((s) => s.trim());
    let template: Template | undefined;
    let separator: string | undefined;
    if (this.src[this.pos] === ":") {
      this.pos++;
      while (/\s/.test(this.src[this.pos] ?? "")) this.pos++;
      if (this.src[this.pos] !== "{") throw new Error(`expected '{' at offset ${this.pos}`);
      this.pos++;
      const args = /^\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*\|/.exec(
        this.src.slice(this.pos, this.pos + 300),
      );
      if (args) this.pos += args[0].length;
      // StringTemplate skips one blank, or one newline, after `|`.
      if (args && (this.src[this.pos] === " " || this.src[this.pos] === "\t")) this.pos++;
      else if (args && this.src.startsWith("\r\n", this.pos)) this.pos += 2;
      else if (args && this.src[this.pos] === "\n") this.pos++;
      const body = this.nodes(true);
      template = {
        args: args ? (args[1] as string).split(",").map((s) => s.trim()) : ["it"],
        body: body.nodes,
      };
    }
    const sep = /^\s*;\s*separator\s*=\s*"((?:[^"\\]|\\.)*)"\s*/.exec(this.src.slice(this.pos));
    if (sep) {
      this.pos += sep[0].length;
      separator = (sep[1] as string).replace(/\\(.)/g, "$1");
    }
    while (this.src[this.pos] === " " || this.src[this.pos] === "\t") this.pos++;
    if (this.src[this.pos] !== "&") throw new Error(`expected '&' at offset ${this.pos}`);
    this.pos++;
    return {
      kind: "expr",
      names: list,
      ...(template ? { template } : {}),
      ...(separator !== undefined ? { separator } : {}),
    };
  }

  ifNode(first: { name: string; not: boolean }): Node {
    const branches: { cond?: { name: string; not: boolean }; body: Node[] }[] = [];
    let cond: { name: string; not: boolean } | undefined = first;
    for (;;) {
      const { nodes, stop } = this.nodes(false);
      branches.push({ ...(cond ? { cond } : {}), body: nodes });
      if (stop === undefined) throw new Error("&if& without &endif&");
      this.pos += stop.length;
      if (stop === "&endif&") return { kind: "if", branches };
      const elseif = /^&elseif\((!?)\s*([A-Za-z_][\w.]*)\s*\)&$/.exec(stop);
      cond = elseif ? { name: elseif[2] as string, not: elseif[1] === "!" } : undefined;
    }
  }
}

/**
 * Drops the lines holding only a keyword, a comment or `&if(...)&` (ST4's
 * rule), before parsing. Lines holding only an expression that writes
 * nothing are dropped when rendering.
 */
function dropKeywordLines(src: string): string {
  return src.replace(
    /^([ \t]*)(&(?:if\(!?\s*[\w.]+\s*\)|elseif\(!?\s*[\w.]+\s*\)|else|endif|![^&]*!)&)[ \t]*\r?\n((?:\r?\n)?)/gm,
    // StringTemplate 3 (which Rudder uses) also eats the empty line after an
    // `&endif&` that starts its line.
    (_whole, indent: string, keyword: string, blank: string) =>
      indent === "" && keyword === "&endif&" ? keyword : keyword + blank,
  );
}

type Scope = ReadonlyMap<string, StValue>;

function truthy(v: StValue): boolean {
  if (v === undefined || v === false) return false;
  if (Array.isArray(v)) return v.length > 0;
  return true;
}

function asList(v: StValue): readonly StItem[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v as StItem];
}

/** `name` or `name.property` in `scope`. */
function lookup(scope: Scope, name: string): StValue {
  const dot = name.indexOf(".");
  if (dot < 0) return scope.get(name);
  const base = scope.get(name.slice(0, dot));
  const prop = name.slice(dot + 1);
  const get = (x: StItem): StItem | undefined => (typeof x === "object" ? x[prop] : undefined);
  if (base === undefined) return undefined;
  if (Array.isArray(base)) return base.map(get).filter((x): x is StItem => x !== undefined);
  return get(base as StItem);
}

const itemText = (x: StItem): string => (typeof x === "object" ? "" : String(x));

const EMPTY_LINE_MARK = "\u0000EMPTY\u0000";

function render(nodes: readonly Node[], scope: Scope): string {
  let out = "";
  for (const n of nodes) {
    if (n.kind === "text") out += n.text;
    else if (n.kind === "comment") continue;
    else if (n.kind === "if") {
      const hit = n.branches.find((b) => !b.cond || truthy(lookup(scope, b.cond.name)) !== b.cond.not);
      if (hit) out += render(hit.body, scope);
    } else {
      const lineStart = out.lastIndexOf("\n") + 1;
      const prefix = out.slice(lineStart);
      const value = expression(n, scope);
      if (value === "" && /^[ \t]*$/.test(prefix)) {
        out += EMPTY_LINE_MARK;
        continue;
      }
      const indent = /^[ \t]*$/.test(prefix) ? prefix : "";
      // The indentation is written before the expression's first character
      // that is not a newline: a value starting with a newline leaves its first line empty.
      if (indent !== "" && value.startsWith("\n")) out = out.slice(0, lineStart);
      out += indent === "" ? value : value.replace(/\n(?=[^\n])/g, `\n${indent}`);
    }
  }
  return out;
}

function expression(n: Extract<Node, { kind: "expr" }>, scope: Scope): string {
  const values = n.names.map((name) => lookup(scope, name));
  if (!n.template) {
    return values
      .map((v) =>
        asList(v)
          .map(itemText)
          .join(n.separator ?? ""),
      )
      .join("");
  }
  const lists = values.map(asList);
  const length = Math.max(0, ...lists.map((l) => l.length));
  const parts: string[] = [];
  for (let i = 0; i < length; i++) {
    const inner = new Map(scope);
    for (const [k, arg] of n.template.args.entries()) inner.set(arg, lists[k]?.[i]);
    inner.set("i", String(i + 1));
    inner.set("i0", String(i));
    parts.push(render(n.template.body, inner));
  }
  return parts.join(n.separator ?? "");
}

/** Renders `template` with `attributes`; throws an Error with the offset on a template it cannot read. */
export function renderStringTemplate(template: string, attributes: ReadonlyMap<string, StValue>): string {
  const parser = new Parser(dropKeywordLines(template));
  const { nodes, stop } = parser.nodes(false);
  if (stop !== undefined) throw new Error(`unexpected ${stop} at offset ${parser.pos}`);
  const out = render(nodes, attributes);
  // An expression alone on its line that wrote nothing takes its line away.
  return out
    .replace(new RegExp(`^[ \\t]*${EMPTY_LINE_MARK}[ \\t]*\\n`, "gm"), "")
    .split(EMPTY_LINE_MARK)
    .join("");
}
