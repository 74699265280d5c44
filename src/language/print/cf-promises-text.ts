/**
 * Policy printed back as `cf-promises -p cf` (and `cf-full`) of 3.21 prints
 * it: not the canonical formatter (`print/cf.ts`) but 3.21's own dump, kept
 * byte for byte because scripts and the acceptance suite compare it.
 *
 * What 3.21 does and this module repeats:
 * - All bundles of the files, then all bodies, each followed by a blank line;
 *   blocks without arguments still get `()`; promisees are not printed.
 * - Sections of one promise type are merged into the first; each section
 *   prints its class context before the first promise and on every change,
 *   and the last section is followed by an extra blank line.
 * - A promise is the quoted promiser, 8 spaces, then its attributes joined by
 *   `,` + newline + 8 spaces, then `;`.
 * - A value written as a bare word (a body reference) is printed bare; other
 *   strings are quoted with `"` escaped; lists are ` {"a","b"}` (a leading
 *   space, no spaces between items) and an empty list prints nothing; calls
 *   are `f("a",g("b"))`.
 * - A quoted class guard becomes context `any` and a leading bare
 *   `ifvarclass => expr` attribute.
 * - `data =>` holding a JSON container prints the container (keys sorted, as
 *   3.21's writer lays it out); `@(x)` is `mergedata("x")`, any other string
 *   `parsejson("...")`.
 * - Bodies print `any` attributes after a newline and others after
 *   `\n\nCONTEXT::` with no newline after the `::`; a repeated attribute under
 *   the same context keeps its first place and its last value.
 */
import type {
  Attribute,
  AttributeGroup,
  Block,
  Body,
  Bundle,
  ClassGuard,
  Promise as PromiseNode,
  Rval,
} from "../ast.js";
import type { ParsedFile } from "../policy-set.js";
import { writeCfengineJson } from "./cfengine-json.js";
import { JsonReal, parseDataJson } from "./data-json.js";

/** The promise types 3.21 knows; sections of any other type are not printed. */
const BUILT_IN_PROMISE_TYPES: ReadonlySet<string> = new Set(
  (
    "access build_xpath classes commands databases defaults delete_attribute delete_lines delete_text " +
    "delete_tree field_edits files guest_environments insert_lines insert_text insert_tree measurements " +
    "meta methods packages processes replace_patterns reports roles services set_attribute set_text " +
    "storage users vars"
  ).split(" "),
);

/** The text `cf-promises -p cf` prints for these files (in load order). Never fails. */
export function policyToCfPromisesText(files: readonly ParsedFile[]): string {
  const blocks: Block[] = files.flatMap((f) => [...f.policy.blocks]);
  const bundles = blocks.filter((b): b is Bundle => b.kind === "bundle");
  const bodies = blocks.filter((b): b is Body => b.kind === "body");
  return [...bundles.map(bundleText), ...bodies.map(bodyText)].map((text) => `${text}\n`).join("");
}

function header(block: Bundle | Body, keyword: string): string {
  const args = (block.params ?? []).map((p) => p.text).join(", ");
  return `${keyword} ${block.type.text} ${block.name.text}(${args})\n{`;
}

interface PrintedPromise {
  context: string;
  promise: PromiseNode;
  guard: ClassGuard | null;
}

function bundleText(bundle: Bundle): string {
  const sections = new Map<string, PrintedPromise[]>();
  for (const section of bundle.sections) {
    const name = section.type.text;
    if (!BUILT_IN_PROMISE_TYPES.has(name)) continue;
    const promises = sections.get(name) ?? [];
    sections.set(name, promises);
    for (const group of section.groups) {
      const context = group.guard === null || group.guard.quoted ? "any" : group.guard.expression;
      for (const promise of group.promises) promises.push({ context, promise, guard: group.guard });
    }
  }
  let text = header(bundle, "bundle");
  let index = 0;
  for (const [name, promises] of sections) {
    text += `\n${name}:\n`;
    let context: string | null = null;
    for (const printed of promises) {
      if (printed.context !== context) {
        context = printed.context;
        text += `  ${context}::\n`;
      }
      text += promiseText(printed);
    }
    index++;
    if (index === sections.size) text += "\n";
  }
  return `${text}\n}\n`;
}

function promiseText({ promise, guard }: PrintedPromise): string {
  const attributes = promise.attributes.map(attributeText);
  if (guard?.quoted) attributes.unshift(`ifvarclass => ${guard.expression}`);
  const body = attributes.map((a) => `        ${a}`).join(",\n");
  return `    ${quoted(promise.promiser.value)}${body};\n`;
}

function attributeText(attribute: Attribute): string {
  const lval = attribute.name.text;
  return `${lval} => ${lval === "data" ? dataText(attribute.value) : topValueText(attribute.value)}`;
}

/** A value as the right-hand side of an attribute: bare words stay bare. */
function topValueText(value: Rval): string {
  return value.kind === "symbol" ? value.name : valueText(value);
}

function valueText(value: Rval): string {
  switch (value.kind) {
    case "string":
      return quoted(value.value);
    case "symbol":
      return quoted(value.name);
    case "nakedvar":
      return quoted(value.text);
    case "list":
      return value.items.length === 0 ? "" : ` {${value.items.map(valueText).join(",")}}`;
    case "call":
      return `${value.name}(${value.args.map(argumentText).join(",")})`;
  }
}

function argumentText(value: Rval): string {
  return value.kind === "list" ? "(** Unknown argument **)\n" : valueText(value);
}

function quoted(text: string): string {
  return `"${text.replace(/"/g, '\\"')}"`;
}

const LIST_REFERENCE_RE = /^@(?:\(([^()]*)\)|\{([^{}]*)\})$/;

function dataText(value: Rval): string {
  if (value.kind === "list" || value.kind === "call") return valueText(value);
  const text = value.kind === "string" ? value.value : value.kind === "symbol" ? value.name : value.text;
  if (value.kind === "string") {
    const parsed = parseDataJson(text, { markReals: true });
    if (parsed !== undefined) return writeCfengineJson(sortKeys(parsed));
  }
  const list = LIST_REFERENCE_RE.exec(text);
  if (list) return `mergedata(${quoted(list[1] ?? list[2])})`;
  return `parsejson(${quoted(text)})`;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object" || value instanceof JsonReal) return value;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([k, v]) => [k, sortKeys(v)]));
}

interface BodyAttribute {
  context: string;
  lval: string;
  text: string;
}

function bodyText(body: Body): string {
  let text = header(body, "body");
  let context: string | null = null;
  for (const attribute of flattenBody(body.groups)) {
    if (attribute.context !== context) {
      context = attribute.context;
      text += context === "any" ? "\n" : `\n\n${context}::`;
    }
    text += `  ${attribute.text};\n`;
  }
  return `${text}\n}\n`;
}

/** 3.21 keeps a body as one list where a repeated (context, lval) replaces the earlier value in place. */
function flattenBody(groups: readonly AttributeGroup[]): BodyAttribute[] {
  const flat: BodyAttribute[] = [];
  for (const group of groups) {
    const context = group.guard === null ? "any" : group.guard.expression;
    for (const attribute of group.attributes) {
      const lval = attribute.name.text;
      const entry = { context, lval, text: bodyAttributeText(attribute) };
      const index = flat.findIndex((e) => e.context === context && e.lval === lval);
      if (index === -1) flat.push(entry);
      else flat[index] = entry;
    }
  }
  return flat;
}

/** Body attributes are always written quoted, bare words included (`data` of a password body is a string). */
function bodyAttributeText(attribute: Attribute): string {
  return `${attribute.name.text} => ${valueText(attribute.value)}`;
}
