/**
 * A canonical CFEngine printer (library API: `formatPolicy`): prints a
 * syntax tree back as policy text that re-parses to the same tree (spans and
 * list trailing commas aside). No command formats files with it: it loses
 * comments (below), so it cannot rewrite a user's policy in place.
 *
 * The style, in the spirit of the Masterfiles Policy Framework:
 *
 * ```
 * bundle agent name(a, b)
 * {
 *   vars:
 *       "promiser"
 *         string  => "value",
 *         comment => "why";
 *
 *     linux::
 *       "other" -> { "stakeholder" }
 *         slist => { "a", "b" };
 * }
 *
 * body classes name(x)
 * {
 *     promise_kept => { "$(x)_ok" };
 *
 *   linux::
 *     cancel_kept  => { "a" };
 * }
 * ```
 *
 * - Blocks are separated by one blank line; the file ends with a newline.
 * - Bundles: promise types at 2 spaces, class guards at 4, promisers at 6,
 *   attributes at 8, one per line under the promiser, `=>` aligned within a
 *   promise, `;` after the last one (or after the promiser when it has none).
 *   Sections are separated by a blank line, and a guard that does not open
 *   its section is preceded by one.
 * - Bodies and `promise` blocks: class guards at 2, attributes at 4, `=>`
 *   aligned within the attributes under one guard.
 * - Lists print as `{ "a", "b" }`; a list that would make its line longer than
 *   {@link LINE_WIDTH} columns prints one item per line. No trailing commas.
 * - Function calls print as `f("a", $(x))`.
 * - Strings keep their quote style; values are re-escaped so that the lexer
 *   reads back the same value. A backtick string whose value holds a backtick
 *   is written with double quotes instead.
 * - Quoted class guards print as `"expr"::` (or `'expr'::` when the
 *   expression holds a double quote).
 *
 * Comments are not in the tree and are lost; a comment-preserving formatter
 * is later work. A group without a guard prints without one, so a guardless
 * group that follows a guarded one (which the parser never builds) would be
 * read back as part of the group before it.
 */
import type {
  Attribute,
  AttributeGroup,
  Block,
  ClassGuard,
  PolicyFile,
  Promise as PromiseNode,
  PromiseSection,
  Rval,
  StringLiteral,
} from "../ast.js";

/** Lists that would make a line longer than this are broken one item per line. */
export const LINE_WIDTH = 100;

/** Formats a whole file; never fails (any tree prints). */
export function formatPolicy(policy: PolicyFile): string {
  if (policy.blocks.length === 0) return "";
  return policy.blocks.map(formatBlock).join("\n\n") + "\n";
}

/** Formats one bundle, body or promise block, without a trailing newline. */
export function formatBlock(block: Block): string {
  const keyword = block.kind === "promise-block" ? "promise" : block.kind;
  const params = block.params === null ? "" : `(${block.params.map((p) => p.text).join(", ")})`;
  const head = `${keyword} ${block.type.text} ${block.name.text}${params}`;
  const lines =
    block.kind === "bundle" ? formatSections(block.sections) : formatAttributeGroups(block.groups);
  return [head, "{", ...lines, "}"].join("\n");
}

function formatSections(sections: readonly PromiseSection[]): string[] {
  const lines: string[] = [];
  sections.forEach((section, i) => {
    if (i > 0) lines.push("");
    lines.push(`  ${section.type.text}:`);
    const header = lines.length;
    for (const group of section.groups) {
      if (group.guard) {
        // A guard gets a blank line before it unless it opens its section.
        if (lines.length > header) lines.push("");
        lines.push(`    ${formatGuard(group.guard)}`);
      }
      for (const promise of group.promises) lines.push(...formatPromise(promise));
    }
  });
  return lines;
}

function formatPromise(promise: PromiseNode): string[] {
  let head = `      ${formatString(promise.promiser)}`;
  if (promise.promisee) head += ` -> ${formatValue(promise.promisee, head.length + 4, 6)}`;
  if (promise.attributes.length === 0) return [`${head};`];
  return [head, ...formatAttributes(promise.attributes, 8)];
}

function formatAttributeGroups(groups: readonly AttributeGroup[]): string[] {
  const lines: string[] = [];
  groups.forEach((group, i) => {
    if (group.guard) {
      if (i > 0) lines.push("");
      lines.push(`  ${formatGuard(group.guard)}`);
    }
    lines.push(...formatAttributes(group.attributes, 4, ";"));
  });
  return lines;
}

/**
 * Attributes one per line at `indent`, `=>` aligned. In a promise they are
 * separated by `,` and closed by `;`; in a body each ends with `;`.
 */
function formatAttributes(attributes: readonly Attribute[], indent: number, separator = ","): string[] {
  const width = Math.max(...attributes.map((a) => a.name.text.length));
  return attributes.map((attribute, i) => {
    const end = i === attributes.length - 1 ? ";" : separator;
    const head = `${" ".repeat(indent)}${attribute.name.text.padEnd(width)} => `;
    return head + formatValue(attribute.value, head.length + end.length, indent) + end;
  });
}

/** A class guard with its `::`. */
export function formatGuard(guard: ClassGuard): string {
  if (!guard.quoted) return `${guard.expression}::`;
  const quote = guard.expression.includes('"') ? "'" : '"';
  return `${quote}${guard.expression}${quote}::`;
}

/**
 * An rval. `used` is how many columns the line already holds (plus what must
 * follow the value), `indent` the indentation of that line, for breaking lists.
 */
export function formatValue(value: Rval, used = 0, indent = 0): string {
  if (value.kind !== "list") return formatInline(value);
  const inline = formatInline(value);
  if (used + inline.length <= LINE_WIDTH || value.items.length === 0) return inline;
  const pad = " ".repeat(indent + 2);
  const items = value.items.map((item) => pad + formatInline(item));
  return `{\n${items.join(",\n")}\n${" ".repeat(indent)}}`;
}

function formatInline(value: Rval): string {
  switch (value.kind) {
    case "string":
      return formatString(value);
    case "symbol":
      return value.name;
    case "nakedvar":
      return value.text;
    case "list":
      return value.items.length === 0 ? "{ }" : `{ ${value.items.map(formatInline).join(", ")} }`;
    case "call":
      return `${value.name}(${value.args.map(formatInline).join(", ")})`;
  }
}

/** A string in its own quote style (double quotes for a backtick string that cannot be). */
export function formatString(literal: Pick<StringLiteral, "value" | "quote">): string {
  const { value, quote } = literal;
  if (quote === "`" && !value.includes("`")) return `\`${escapeValue(value, null)}\``;
  const q = quote === "`" ? '"' : quote;
  return q + escapeValue(value, q) + q;
}

/**
 * Escapes a value so that 3.21's de-escaping (`\\`, `\"`, `\'` and
 * backslash-newline lose the backslash) gives it back. A backslash is doubled
 * only where the next character would otherwise be eaten, so regular
 * expressions such as `\d+` stay readable. `quote` is the closing quote that
 * must be protected (none for backtick strings).
 */
export function escapeValue(value: string, quote: '"' | "'" | null): string {
  let out = "";
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === "\\") {
      const next = value[i + 1];
      const eaten = next === "\\" || next === '"' || next === "'" || next === "\n";
      out += eaten || (next === undefined && quote !== null) ? "\\\\" : "\\";
    } else if (c === quote) {
      out += `\\${c}`;
    } else {
      out += c;
    }
  }
  return out;
}
