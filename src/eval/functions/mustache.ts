/**
 * Mustache templates as cf-agent 3.21 renders them: variables (HTML-escaped,
 * or raw with `{{{x}}}` / `{{&x}}`), sections and inverted sections over
 * lists, objects and booleans, comments, set delimiters, standalone-line
 * trimming, dotted names, `{{.}}`; and CFEngine's extensions `{{%x}}`
 * (multi-line JSON), `{{$x}}` (compact JSON), `{{@}}` (the current key or
 * index) and the name `-top-` for the whole data.
 */
import type { EvalContext } from "../context.js";
import { type JsonValue, valueToJson } from "../values.js";

type Token =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "var"; readonly name: string; readonly mode: "escaped" | "raw" | "json" | "compact" }
  | {
      readonly kind: "section";
      readonly name: string;
      readonly inverted: boolean;
      readonly children: Token[];
    };

/** Renders a template with `data`; an Error when the template is malformed. */
export function renderMustache(template: string, data: JsonValue): string | Error {
  try {
    const tokens = parseTemplate(template);
    const out: string[] = [];
    renderTokens(tokens, { stack: [data], keys: [], root: data }, out);
    return out.join("");
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

// --- parsing ---------------------------------------------------------------

const STANDALONE_KINDS = new Set(["#", "^", "/", "!", "=", ">"]);

interface Frame {
  readonly name: string;
  readonly inverted: boolean;
  readonly children: Token[];
}

function parseTemplate(template: string): Token[] {
  let open = "{{";
  let close = "}}";
  const root: Token[] = [];
  const stack: Frame[] = [];
  const current = () => stack[stack.length - 1]?.children ?? root;
  let pos = 0;
  while (pos < template.length) {
    const start = template.indexOf(open, pos);
    if (start === -1) {
      current().push({ kind: "text", text: template.slice(pos) });
      break;
    }
    const tag = readTag(template, start, open, close);
    const standalone = STANDALONE_KINDS.has(tag.sigil) ? standaloneSpan(template, start, tag.end) : undefined;
    const textEnd = standalone ? standalone[0] : start;
    if (textEnd > pos) current().push({ kind: "text", text: template.slice(pos, textEnd) });
    pos = standalone ? standalone[1] : tag.end;
    switch (tag.sigil) {
      case "!":
      case ">":
        break;
      case "=": {
        const parts = tag.body.replace(/=$/, "").trim().split(/\s+/);
        if (parts.length !== 2) throw new Error(`Mustache: invalid set delimiters tag '${tag.body}'`);
        [open, close] = parts;
        break;
      }
      case "#":
      case "^":
        stack.push({ name: tag.body.trim(), inverted: tag.sigil === "^", children: [] });
        break;
      case "/": {
        // cf-agent does not compare the closing name with the opening one.
        const frame = stack.pop();
        if (!frame) throw new Error(`Mustache: section close '${tag.body.trim()}' without an open section`);
        current().push({ kind: "section", ...frame });
        break;
      }
      default:
        current().push(variableToken(tag.sigil, tag.body.trim()));
    }
  }
  if (stack.length > 0) throw new Error(`Mustache: section '${stack[stack.length - 1].name}' is not closed`);
  return root;
}

interface Tag {
  readonly sigil: string;
  readonly body: string;
  readonly end: number;
}

function readTag(template: string, start: number, open: string, close: string): Tag {
  let from = start + open.length;
  // `{{{x}}}` closes with `}}}` (only with the default delimiters).
  if (open === "{{" && template[from] === "{") {
    const end = template.indexOf("}}}", from);
    if (end === -1) throw new Error("Mustache: unterminated tag");
    return { sigil: "{", body: template.slice(from + 1, end), end: end + 3 };
  }
  const end = template.indexOf(close, from);
  if (end === -1) throw new Error("Mustache: unterminated tag");
  const first = template[from];
  const sigil = "#^/!=>&%$".includes(first) ? first : "";
  if (sigil) from++;
  return { sigil, body: template.slice(from, end), end: end + close.length };
}

function variableToken(sigil: string, name: string): Token {
  const mode =
    sigil === "{" || sigil === "&" ? "raw" : sigil === "%" ? "json" : sigil === "$" ? "compact" : "escaped";
  return { kind: "var", name, mode };
}

/** When a tag is alone on its line: the span of that whole line to remove. */
function standaloneSpan(template: string, start: number, end: number): [number, number] | undefined {
  const lineStart = template.lastIndexOf("\n", start - 1) + 1;
  if (!/^[ \t]*$/.test(template.slice(lineStart, start))) return undefined;
  const after = /^[ \t]*(\r?\n|$)/.exec(template.slice(end));
  if (!after) return undefined;
  return [lineStart, end + after[0].length];
}

// --- rendering -------------------------------------------------------------

interface Scope {
  readonly stack: readonly JsonValue[];
  readonly keys: readonly string[];
  readonly root: JsonValue;
}

function renderTokens(tokens: readonly Token[], scope: Scope, out: string[]): void {
  for (const token of tokens) {
    if (token.kind === "text") out.push(token.text);
    else if (token.kind === "var") out.push(renderVariable(token.name, token.mode, scope));
    else renderSection(token, scope, out);
  }
}

function renderVariable(name: string, mode: "escaped" | "raw" | "json" | "compact", scope: Scope): string {
  if (name === "@") return scope.keys[scope.keys.length - 1] ?? "";
  const value = lookup(name, scope);
  if (value === undefined) return "";
  if (mode === "json") return renderJsonSorted(value, 2);
  if (mode === "compact") return renderJsonSorted(value);
  if (value !== null && typeof value === "object") {
    throw new Error(`Mustache: '${name}' is a container; use {{%${name}}} or {{$${name}}} to serialize it`);
  }
  const text = value === null ? "" : String(value);
  return mode === "raw" ? text : escapeHtml(text);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c] ?? c);
}

function lookup(name: string, scope: Scope, section = false): JsonValue | undefined {
  // A section named "." renders nothing in cf-agent.
  if (name === ".") return section ? undefined : scope.stack[scope.stack.length - 1];
  if (name === "-top-") return scope.root;
  const [head, ...rest] = name.split(".");
  let value: JsonValue | undefined;
  for (let i = scope.stack.length - 1; i >= 0 && value === undefined; i--)
    value = member(scope.stack[i], head);
  for (const part of rest) value = value === undefined ? undefined : member(value, part);
  return value;
}

function member(value: JsonValue, key: string): JsonValue | undefined {
  if (value === null || typeof value !== "object") return undefined;
  if (Array.isArray(value)) return /^\d+$/.test(key) ? value[Number(key)] : undefined;
  return Object.hasOwn(value, key) ? value[key] : undefined;
}

function isFalsy(value: JsonValue | undefined): boolean {
  return (
    value === undefined || value === null || value === false || (Array.isArray(value) && value.length === 0)
  );
}

function renderSection(token: Extract<Token, { kind: "section" }>, scope: Scope, out: string[]): void {
  const value = lookup(token.name, scope, true);
  if (token.inverted) {
    if (isFalsy(value)) renderTokens(token.children, scope, out);
    return;
  }
  if (isFalsy(value)) return;
  if (typeof value === "string" || typeof value === "number") {
    throw new Error(`Mustache: section '${token.name}' names a scalar, not a list, object or boolean`);
  }
  const push = (item: JsonValue, key: string): Scope => ({
    stack: [...scope.stack, item],
    keys: [...scope.keys, key],
    root: scope.root,
  });
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) renderTokens(token.children, push(item, String(i)), out);
  } else if (value !== null && typeof value === "object") {
    // An object is iterated (key in `{{@}}`) when the section uses `{{@}}`,
    // otherwise rendered once with the object as context.
    if (usesKey(token.children)) {
      for (const key of Object.keys(value).sort()) renderTokens(token.children, push(value[key], key), out);
    } else renderTokens(token.children, push(value, token.name.split(".").pop() ?? ""), out);
  } else renderTokens(token.children, scope, out);
}

function usesKey(tokens: readonly Token[]): boolean {
  return tokens.some(
    (t) => (t.kind === "var" && t.name === "@") || (t.kind === "section" && usesKey(t.children)),
  );
}

/** JSON with object keys sorted, as cf-agent writes containers. */
export function renderJsonSorted(value: JsonValue, indent?: number): string {
  return JSON.stringify(sortKeys(value), null, indent);
}

function sortKeys(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, JsonValue> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys(value[key]);
  return out;
}

// --- default data ------------------------------------------------------------

/**
 * The data string_mustache() uses without a second argument, as
 * datastate(): `{ "classes": { name: true }, "vars": { bundle: { name: value } } }`,
 * bundles of other namespaces keyed `ns:bundle`.
 */
export function templateData(ctx: EvalContext): JsonValue {
  const classes: Record<string, JsonValue> = {};
  for (const name of ctx.listClasses()) classes[name] = true;
  const vars: Record<string, Record<string, JsonValue>> = {};
  for (const [scopeKey, lval, value] of ctx.allVariables()) {
    const [ns, bundle] = [
      scopeKey.slice(0, scopeKey.indexOf(":")),
      scopeKey.slice(scopeKey.indexOf(":") + 1),
    ];
    const key = ns === "default" ? bundle : scopeKey;
    const table = vars[key] ?? {};
    vars[key] = table;
    storeLval(table, lval, valueToJson(value));
  }
  return { classes, vars };
}

/** `x` stores the value; `x[a][b]` stores it nested under x.a.b. */
function storeLval(table: Record<string, JsonValue>, lval: string, json: JsonValue): void {
  const match = /^([^[]+)((?:\[[^\]]*\])*)$/.exec(lval);
  if (!match || match[2] === "") {
    table[lval] = json;
    return;
  }
  const keys = [match[1], ...[...match[2].matchAll(/\[([^\]]*)\]/g)].map((m) => m[1])];
  let at: Record<string, JsonValue> = table;
  for (const key of keys.slice(0, -1)) {
    const next = at[key];
    if (next === null || typeof next !== "object" || Array.isArray(next)) at[key] = {};
    at = at[key] as Record<string, JsonValue>;
  }
  at[keys[keys.length - 1]] = json;
}
