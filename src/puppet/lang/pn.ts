/**
 * The syntax tree in Puppet's PN form (models/pn.md), rendered as JSON the
 * way `puppet parser dump --format json` prints it, so that tend's tree and
 * Puppet's can be compared text for text: a call is `{"^": [name, ...]}`, a
 * map `{"#": [key, value, ...]}`, a list an array; floats are printed as
 * Ruby prints them (`1500.0`, `1.0e+16`) and strings escaped as Ruby's JSON
 * escapes them. Positions are not part of PN.
 */
import type * as A from "./ast.js";

/** A float in PN data (so that 1.0 stays a float when rendered). */
export class PnFloat {
  constructor(readonly value: number) {}
}

export type PnData =
  | null
  | boolean
  | number
  | bigint
  | string
  | PnFloat
  | PnData[]
  | { "^": PnData[] }
  | { "#": PnData[] };

const call = (name: string, ...elements: PnData[]): PnData => ({ "^": [name, ...elements] });
const map = (...entries: [string, PnData][]): { "#": PnData[] } => ({ "#": entries.flat() });

/** The PN data of a program (or of any node). */
export function toPn(node: A.Program | A.Expression): PnData {
  return node.kind === "Program" ? pn(node.body) : pn(node);
}

function list(nodes: readonly A.Expression[]): PnData[] {
  return nodes.map(pn);
}

/** A body as Puppet's `block_as_entry`: the statements of a block, else a one-element list. */
function blockEntry(expr: A.Expression | undefined): PnData[] {
  if (expr === undefined) return [call("nop")];
  return expr.kind === "Block" ? list(expr.statements) : [pn(expr)];
}

function params(parameters: readonly A.Parameter[]): [string, PnData] {
  return [
    "params",
    map(
      ...parameters.map((p): [string, PnData] => {
        const entries: [string, PnData][] = [];
        if (p.typeExpr) entries.push(["type", pn(p.typeExpr)]);
        if (p.capturesRest) entries.push(["splat", true]);
        if (p.value) entries.push(["value", pn(p.value)]);
        return [p.name, map(...entries)];
      }),
    ),
  ];
}

function definition(
  name: string,
  e: { name: string; parameters: readonly A.Parameter[]; body?: A.Expression },
  parent?: string,
  returns?: A.Expression,
): PnData {
  const entries: [string, PnData][] = [["name", e.name]];
  if (parent !== undefined) entries.push(["parent", parent]);
  if (e.parameters.length > 0) entries.push(params(e.parameters));
  if (e.body) entries.push(["body", blockEntry(e.body)]);
  if (returns) entries.push(["returns", pn(returns)]);
  return call(name, map(...entries));
}

function ops(operations: readonly A.Operation[]): PnData[] {
  return operations.map((o) =>
    o.kind === "AttributesOperation" ? call("splat-hash", pn(o.expr)) : call(o.operator, o.name, pn(o.value)),
  );
}

function formed(entries: [string, PnData][], form: A.ResourceForm): [string, PnData][] {
  if (form !== "regular") entries.push(["form", form]);
  return entries;
}

function conditional(name: string, e: A.IfExpression): PnData {
  const entries: [string, PnData][] = [["test", pn(e.test)]];
  if (e.thenExpr && e.thenExpr.kind !== "Nop") entries.push(["then", blockEntry(e.thenExpr)]);
  if (e.elseExpr && e.elseExpr.kind !== "Nop") entries.push(["else", blockEntry(e.elseExpr)]);
  return call(name, map(...entries));
}

function invocation(e: A.CallNamedFunction | A.CallMethod, named: boolean): PnData {
  const entries: [string, PnData][] = [
    ["functor", pn(e.functor)],
    ["args", list(e.args)],
  ];
  if (e.lambda) entries.push(["block", pn(e.lambda)]);
  const name = named
    ? e.rvalRequired
      ? "call"
      : "invoke"
    : e.rvalRequired
      ? "call-method"
      : "invoke-method";
  return call(name, map(...entries));
}

function pnQuery(q: A.Query): PnData {
  const name = q.kind === "VirtualQuery" ? "virtual-query" : "exported-query";
  return q.expr && q.expr.kind !== "Nop" ? call(name, pn(q.expr)) : call(name);
}

function pn(e: A.Expression): PnData {
  switch (e.kind) {
    case "Access":
      return call("access", pn(e.left), ...list(e.keys));
    case "And":
      return call("and", pn(e.left), pn(e.right));
    case "Or":
      return call("or", pn(e.left), pn(e.right));
    case "In":
      return call("in", pn(e.left), pn(e.right));
    case "Arithmetic":
    case "Assignment":
    case "Comparison":
    case "Match":
    case "Relationship":
      return call(e.operator, pn(e.left), pn(e.right));
    case "Block":
      return call("block", ...list(e.statements));
    case "CallNamedFunction":
      return invocation(e, true);
    case "CallMethod":
      return invocation(e, false);
    case "Case":
      return call(
        "case",
        pn(e.test),
        e.options.map((o) => map(["when", list(o.values)], ["then", blockEntry(o.thenExpr)])),
      );
    case "Collect": {
      const entries: [string, PnData][] = [
        ["type", pn(e.typeExpr)],
        ["query", pnQuery(e.query)],
      ];
      if (e.operations.length > 0) entries.push(["ops", ops(e.operations)]);
      return call("collect", map(...entries));
    }
    case "ConcatenatedString":
      return call("concat", ...list(e.segments));
    case "Epp":
      if (!e.body) return call("epp");
      return e.body.kind === "Block" ? call("epp", ...list(e.body.statements)) : call("epp", pn(e.body));
    case "FunctionDefinition":
      return definition("function", e, undefined, e.returnType);
    case "Heredoc": {
      const entries: [string, PnData][] = [];
      if (e.syntax !== "") entries.push(["syntax", e.syntax]);
      entries.push(["text", pn(e.text)]);
      return call("heredoc", map(...entries));
    }
    case "HostClass":
      return definition("class", e, e.parent);
    case "DefinedType":
      return definition("define", e);
    case "If":
      return conditional("if", e);
    case "Unless":
      return conditional("unless", e);
    case "KeyedEntry":
      return call("=>", pn(e.key), pn(e.value));
    case "Lambda": {
      const entries: [string, PnData][] = [];
      if (e.parameters.length > 0) entries.push(params(e.parameters));
      if (e.returnType) entries.push(["returns", pn(e.returnType)]);
      if (e.body) entries.push(["body", blockEntry(e.body)]);
      return call("lambda", map(...entries));
    }
    case "LiteralBoolean":
      return e.value;
    case "LiteralDefault":
      return call("default");
    case "LiteralFloat":
      return new PnFloat(e.value);
    case "LiteralHash":
      return call("hash", ...list(e.entries));
    case "LiteralInteger":
      return e.radix === 10 ? e.value : call("int", map(["radix", e.radix], ["value", e.value]));
    case "LiteralList":
      return call("array", ...list(e.values));
    case "LiteralRegex":
      return call("regexp", e.pattern);
    case "LiteralString":
      return e.value;
    case "LiteralUndef":
      return null;
    case "NamedAccess":
      return call(".", pn(e.left), pn(e.right));
    case "NodeDefinition": {
      const entries: [string, PnData][] = [["matches", list(e.hostMatches)]];
      if (e.parent) entries.push(["parent", pn(e.parent)]);
      if (e.body) entries.push(["body", blockEntry(e.body)]);
      return call("node", map(...entries));
    }
    case "Nop":
      return call("nop");
    case "Not":
      return call("!", pn(e.expr));
    case "Paren":
      return call("paren", pn(e.expr));
    case "QualifiedName":
      return call("qn", e.value);
    case "QualifiedReference":
      return call("qr", e.cased);
    case "Render":
      return call("render", pn(e.expr));
    case "RenderString":
      return call("render-s", e.value);
    case "ReservedWord":
      return call("reserved", e.word);
    case "Resource":
      return call(
        "resource",
        map(
          ...formed(
            [
              ["type", pn(e.typeName)],
              ["bodies", e.bodies.map((b) => map(["title", pn(b.title)], ["ops", ops(b.operations)]))],
            ],
            e.form,
          ),
        ),
      );
    case "ResourceDefaults":
      return call(
        "resource-defaults",
        map(
          ...formed(
            [
              ["type", pn(e.typeRef)],
              ["ops", ops(e.operations)],
            ],
            e.form,
          ),
        ),
      );
    case "ResourceOverride":
      return call(
        "resource-override",
        map(
          ...formed(
            [
              ["resources", pn(e.resources)],
              ["ops", ops(e.operations)],
            ],
            e.form,
          ),
        ),
      );
    case "Selector":
      return call(
        "?",
        pn(e.left),
        e.entries.map((s) => call("=>", pn(s.match), pn(s.value))),
      );
    case "TextExpression":
      return call("str", pn(e.expr));
    case "TypeAlias":
      return call("type-alias", e.name, pn(e.typeExpr));
    case "TypeDefinition":
      return call("type-definition", e.name, e.parent ?? null, e.body ? pn(e.body) : call("nop"));
    case "TypeMapping":
      return call("type-mapping", pn(e.typeExpr), pn(e.mappingExpr));
    case "UnaryMinus": {
      const x = e.expr;
      if (x.kind === "LiteralInteger") return -x.value;
      if (x.kind === "LiteralFloat") return new PnFloat(-x.value);
      return call("-", pn(x));
    }
    case "Unfold":
      return call("unfold", pn(e.expr));
    case "Variable":
      return call("var", e.expr.kind === "QualifiedName" ? e.expr.value : pn(e.expr));
  }
}

/** A float as Ruby's Float#to_s writes it. */
export function rubyFloat(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "Infinity" : "-Infinity";
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0";
  const sign = value < 0 ? "-" : "";
  const [mantissa, exp] = Math.abs(value).toExponential().split("e") as [string, string];
  const digits = mantissa.replace(".", "");
  const decpt = Number(exp) + 1;
  if (decpt < -3 || decpt > 15) {
    const frac = digits.length > 1 ? digits.slice(1) : "0";
    const e = decpt - 1;
    return `${sign}${digits[0]}.${frac}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  if (decpt <= 0) return `${sign}0.${"0".repeat(-decpt)}${digits}`;
  if (decpt >= digits.length) return `${sign}${digits}${"0".repeat(decpt - digits.length)}.0`;
  return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
}

const NEEDS_ESCAPE = /[\u0000-\u001f"\\]/;

/** A string as Ruby's JSON writes it (control characters as lower-case \u escapes). */
function rubyJsonString(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return `"${s}"`;
  return `"${s.replace(/[\u0000-\u001f"\\]/g, (c) => {
    switch (c) {
      case '"':
        return '\\"';
      case "\\":
        return "\\\\";
      case "\n":
        return "\\n";
      case "\r":
        return "\\r";
      case "\t":
        return "\\t";
      case "\b":
        return "\\b";
      case "\f":
        return "\\f";
      default:
        return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
    }
  })}"`;
}

/** PN data as `JSON.dump` in Ruby prints it (compact, no spaces). */
export function renderPnJson(data: PnData): string {
  const out: string[] = [];
  writeJson(data, out);
  return out.join("");
}

function writeJson(data: PnData, out: string[]): void {
  if (data === null) out.push("null");
  else if (typeof data === "string") out.push(rubyJsonString(data));
  else if (typeof data === "boolean") out.push(data ? "true" : "false");
  else if (typeof data === "number") out.push(Number.isInteger(data) ? String(data) : rubyFloat(data));
  else if (typeof data === "bigint") out.push(data.toString());
  else if (data instanceof PnFloat) out.push(rubyFloat(data.value));
  else if (Array.isArray(data)) writeJsonList(data, out);
  else if ("^" in data) {
    out.push('{"^":');
    writeJsonList(data["^"], out);
    out.push("}");
  } else {
    out.push('{"#":');
    writeJsonList(data["#"], out);
    out.push("}");
  }
}

function writeJsonList(list: PnData[], out: string[]): void {
  out.push("[");
  for (let i = 0; i < list.length; i++) {
    if (i > 0) out.push(",");
    writeJson(list[i] as PnData, out);
  }
  out.push("]");
}

/** A string as PN's text form quotes it (`\o033` for other control characters). */
function pnTextString(s: string): string {
  return `"${s.replace(/[\u0000-\u001f"\\]/g, (c) => {
    switch (c) {
      case '"':
        return '\\"';
      case "\\":
        return "\\\\";
      case "\n":
        return "\\n";
      case "\r":
        return "\\r";
      case "\t":
        return "\\t";
      default:
        return `\\o${c.charCodeAt(0).toString(8).padStart(3, "0")}`;
    }
  })}"`;
}

/** PN data in PN's own text form (`puppet parser dump --format pn`), on one line. */
export function renderPnText(data: PnData): string {
  if (data === null) return "nil";
  if (typeof data === "boolean" || typeof data === "bigint") return String(data);
  if (typeof data === "number") return Number.isInteger(data) ? String(data) : rubyFloat(data);
  if (typeof data === "string") return pnTextString(data);
  if (data instanceof PnFloat) return rubyFloat(data.value);
  if (Array.isArray(data)) return `[${data.map(renderPnText).join(" ")}]`;
  if ("^" in data) {
    const [name, ...elements] = data["^"];
    return `(${String(name)}${elements.map((e) => ` ${renderPnText(e)}`).join("")})`;
  }
  const entries = data["#"];
  const parts: string[] = [];
  for (let i = 0; i < entries.length; i += 2)
    parts.push(`:${String(entries[i])} ${renderPnText(entries[i + 1] as PnData)}`);
  return `{${parts.join(" ")}}`;
}
