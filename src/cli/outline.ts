/**
 * A compact, indented outline of a syntax tree for `tend parse`: one line per
 * block, section, guard, promise and attribute, each with its `[start,end)`.
 */
import type {
  Attribute,
  AttributeGroup,
  Block,
  PolicyFile,
  Promise as PromiseNode,
  PromiseGroup,
  Rval,
} from "../language/ast.js";

type Line = [depth: number, text: string];

const at = (span: readonly [number, number]) => `[${span[0]},${span[1]})`;

/** Renders a value on one line, roughly as written. */
export function describeValue(value: Rval): string {
  switch (value.kind) {
    case "string":
      return value.quote + value.value + value.quote;
    case "symbol":
      return value.name;
    case "nakedvar":
      return value.text;
    case "list":
      return `{ ${value.items.map(describeValue).join(", ")} }`;
    case "call":
      return `${value.name}(${value.args.map(describeValue).join(", ")})`;
  }
}

function attributeLines(attribute: Attribute, depth: number): Line[] {
  return [[depth, `${attribute.name.text} => ${describeValue(attribute.value)} ${at(attribute.span)}`]];
}

function guardText(group: PromiseGroup | AttributeGroup): string {
  if (!group.guard) return "(no guard)";
  const expression = group.guard.quoted ? `"${group.guard.expression}"` : group.guard.expression;
  return `${expression}:: ${at(group.span)}`;
}

function promiseLines(promise: PromiseNode, depth: number): Line[] {
  const promisee = promise.promisee ? ` -> ${describeValue(promise.promisee)}` : "";
  const head: Line = [depth, `promise "${promise.promiser.value}"${promisee} ${at(promise.span)}`];
  return [head, ...promise.attributes.flatMap((a) => attributeLines(a, depth + 1))];
}

function blockLines(block: Block, depth: number): Line[] {
  const params = block.params ? `(${block.params.map((p) => p.text).join(", ")})` : "";
  const namespace = block.namespace === "default" ? "" : ` namespace=${block.namespace}`;
  const keyword = block.kind === "promise-block" ? "promise" : block.kind;
  const lines: Line[] = [
    [depth, `${keyword} ${block.type.text} ${block.name.text}${params}${namespace} ${at(block.span)}`],
  ];
  if (block.kind === "bundle") {
    for (const section of block.sections) {
      lines.push([depth + 1, `${section.type.text}: ${at(section.span)}`]);
      for (const group of section.groups) {
        lines.push([depth + 2, guardText(group)]);
        lines.push(...group.promises.flatMap((p) => promiseLines(p, depth + 3)));
      }
    }
    return lines;
  }
  for (const group of block.groups) {
    lines.push([depth + 1, guardText(group)]);
    lines.push(...group.attributes.flatMap((a) => attributeLines(a, depth + 2)));
  }
  return lines;
}

/** The outline of one file; ends with a newline. */
export function outlinePolicy(policy: PolicyFile): string {
  const lines: Line[] = [[0, `policy ${policy.path} ${at(policy.span)}`]];
  for (const block of policy.blocks) lines.push(...blockLines(block, 1));
  return lines.map(([depth, text]) => "  ".repeat(depth) + text + "\n").join("");
}
