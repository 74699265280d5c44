/**
 * The template language of the `template` resource: a small subset of
 * mustache, chosen over ERB because it runs no code (a template cannot
 * read the system at the wrong time) and over tend's CFEngine mustache
 * (src/eval/mustache) because the recipes front end may not depend on the
 * CFEngine evaluator. What it knows:
 *
 *   {{name}} {{a.b.c}}   the value (numbers and booleans as text; arrays
 *                        joined with ","); NOT HTML-escaped: templates
 *                        write configuration files, not web pages
 *   {{{name}}} {{&name}} the same (accepted for mustache habits)
 *   {{#name}}…{{/name}}  a section: once per item of an array (the item
 *                        is `.` and its fields are names), once with an
 *                        object pushed as context, once if truthy
 *   {{^name}}…{{/name}}  inverted: once if absent, false, null or empty
 *   {{! comment }}       nothing
 *   {{.}}                the current item
 *
 * A name found in no context is an error naming the template's line (a
 * misspelt variable should not write an empty value). A line holding only
 * a section tag, a closing tag or a comment leaves no blank line, as in
 * mustache.
 */

export class TemplateError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

type Node =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "value"; readonly name: string; readonly line: number }
  | {
      readonly kind: "section";
      readonly name: string;
      readonly inverted: boolean;
      readonly children: Node[];
      readonly line: number;
    };

const TAG = /\{\{(\{?)\s*([#^/!&]?)\s*([^}]*?)\s*\}?\}\}/g;

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** Standalone tags (sections, closings, comments alone on their line) take their line with them. */
function standalone(text: string, start: number, end: number): { start: number; end: number } | undefined {
  const lineStart = text.lastIndexOf("\n", start - 1) + 1;
  if (text.slice(lineStart, start).trim() !== "") return undefined;
  let lineEnd = text.indexOf("\n", end);
  if (lineEnd < 0) lineEnd = text.length;
  if (text.slice(end, lineEnd).trim() !== "") return undefined;
  return { start: lineStart, end: Math.min(text.length, lineEnd + 1) };
}

export function parseTemplate(text: string): Node[] {
  const root: Node[] = [];
  const stack: { name: string; children: Node[]; line: number }[] = [];
  let children = root;
  let at = 0;
  for (const match of text.matchAll(TAG)) {
    const [whole, , sigil = "", rawName = ""] = match;
    let start = match.index ?? 0;
    let end = start + whole.length;
    const line = lineAt(text, start);
    if (sigil === "#" || sigil === "^" || sigil === "/" || sigil === "!") {
      const own = standalone(text, start, end);
      if (own) ({ start, end } = own);
    }
    if (start > at) children.push({ kind: "text", text: text.slice(at, start) });
    at = end;
    const name = rawName.trim();
    if (sigil === "!") continue;
    if (sigil === "#" || sigil === "^") {
      const section: Node = { kind: "section", name, inverted: sigil === "^", children: [], line };
      children.push(section);
      stack.push({ name, children, line });
      children = section.children;
    } else if (sigil === "/") {
      const open = stack.pop();
      if (!open || open.name !== name)
        throw new TemplateError(`closing {{/${name}}} without an open {{#${name}}}`, line);
      children = open.children;
    } else children.push({ kind: "value", name, line });
  }
  const open = stack.pop();
  if (open) throw new TemplateError(`section {{#${open.name}}} is never closed`, open.line);
  if (at < text.length) children.push({ kind: "text", text: text.slice(at) });
  return root;
}

const MISSING = Symbol("missing");

function lookup(contexts: readonly unknown[], name: string): unknown {
  if (name === ".") return contexts[contexts.length - 1];
  const [first, ...rest] = name.split(".");
  for (let i = contexts.length - 1; i >= 0; i--) {
    const context = contexts[i];
    if (typeof context !== "object" || context === null || !((first as string) in context)) continue;
    let value = (context as Record<string, unknown>)[first as string];
    for (const part of rest) {
      if (typeof value !== "object" || value === null || !(part in value)) return MISSING;
      value = (value as Record<string, unknown>)[part];
    }
    return value;
  }
  return MISSING;
}

function text(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return value.map(text).join(",");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function render(nodes: readonly Node[], contexts: unknown[], out: string[]): void {
  for (const node of nodes) {
    if (node.kind === "text") out.push(node.text);
    else if (node.kind === "value") {
      const value = lookup(contexts, node.name);
      if (value === MISSING) throw new TemplateError(`no variable '${node.name}'`, node.line);
      out.push(text(value));
    } else renderSection(node, contexts, out);
  }
}

function renderSection(node: Extract<Node, { kind: "section" }>, contexts: unknown[], out: string[]): void {
  const found = lookup(contexts, node.name);
  const value = found === MISSING ? undefined : found;
  const empty =
    value === undefined ||
    value === null ||
    value === false ||
    value === "" ||
    (Array.isArray(value) && value.length === 0);
  if (node.inverted) {
    if (empty) render(node.children, contexts, out);
    return;
  }
  if (empty) return;
  const items = Array.isArray(value) ? value : [value];
  for (const item of items) {
    contexts.push(item);
    render(node.children, contexts, out);
    contexts.pop();
  }
}

/** Renders `source` with `variables`; a bad template or a missing variable throws TemplateError. */
export function renderTemplate(source: string, variables: Readonly<Record<string, unknown>>): string {
  const out: string[] = [];
  render(parseTemplate(source), [variables], out);
  return out.join("");
}
