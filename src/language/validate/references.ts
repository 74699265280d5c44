/**
 * Lookups of bundles and bodies by name, and the whole-policy checks that
 * need them: redefinitions, duplicate handles, undefined bodies, bundle
 * argument counts and the bundlesequence.
 */
import type { Body, Bundle, Rval, Span } from "../ast.js";
import type { Located, PolicyIndex, ValidationContext } from "./context.js";
import { hasVariable } from "./context.js";
import { getScalarText } from "./values.js";

/** A reference `ns:name` or `name` split in two; `namespace` is null when unqualified. */
export interface QualifiedName {
  readonly namespace: string | null;
  readonly name: string;
}

export function splitQualifiedName(text: string): QualifiedName {
  const colon = text.indexOf(":");
  return colon === -1
    ? { namespace: null, name: text }
    : { namespace: text.slice(0, colon), name: text.slice(colon + 1) };
}

/**
 * The body of a type and name. Like cf-promises, an unqualified name matches
 * a body of that name in any namespace.
 */
export function findBody(index: PolicyIndex, type: string, reference: string): Located<Body> | undefined {
  const { namespace, name } = splitQualifiedName(reference);
  return byName(index, "bodies")
    .get(name)
    ?.find((b) => b.node.type.text === type && (namespace === null || b.node.namespace === namespace)) as
    | Located<Body>
    | undefined;
}

type Block = Located<Body> | Located<Bundle>;

/**
 * The bodies or bundles of an index by name, each list in the index's order:
 * the first match of a name among them is its first match in the index. A
 * policy refers to its bodies thousands of times; the index never changes.
 */
const namedBlocks = new WeakMap<
  PolicyIndex,
  { bodies?: Map<string, Block[]>; bundles?: Map<string, Block[]> }
>();

function byName(index: PolicyIndex, kind: "bodies" | "bundles"): ReadonlyMap<string, readonly Block[]> {
  let known = namedBlocks.get(index);
  if (!known) {
    known = {};
    namedBlocks.set(index, known);
  }
  let map = known[kind];
  if (!map) {
    map = new Map();
    for (const block of index[kind]) {
      const list = map.get(block.node.name.text);
      if (list) list.push(block);
      else map.set(block.node.name.text, [block]);
    }
    known[kind] = map;
  }
  return map;
}

/** The bundle called by a promise: its namespace first (unqualified names stay in it), agent before common. */
export function findCalledBundle(
  index: PolicyIndex,
  reference: string,
  fromNamespace: string,
): Located<Bundle> | undefined {
  const { namespace, name } = splitQualifiedName(reference);
  const ns = namespace ?? fromNamespace;
  const named = byName(index, "bundles").get(name) ?? [];
  const matches = (type: string) => (b: Block) => b.node.type.text === type && b.node.namespace === ns;
  return (named.find(matches("agent")) ?? named.find(matches("common"))) as Located<Bundle> | undefined;
}

/** Any bundle of that name, in any namespace (as the bundlesequence check looks). */
export function findAnyBundle(index: PolicyIndex, reference: string): Located<Bundle> | undefined {
  const { name } = splitQualifiedName(reference);
  return index.bundles.find((b) => b.node.name.text === name || b.node.name.text === reference);
}

/** The name a value refers to when it names a body or bundle, or null. */
export function getReferencedName(value: Rval): string | null {
  if (value.kind === "call") return value.name;
  if (value.kind === "list") return null;
  return getScalarText(value);
}

/** Reports bundles and bodies defined twice with the same type, namespace and name. */
export function checkRedefinitions(ctx: ValidationContext): void {
  reportDuplicates(ctx, ctx.index.bundles, "bundle");
  const bodies = ctx.index.bodies.filter((b) => b.node.type.text !== "file");
  reportDuplicates(ctx, bodies, "body");
}

function reportDuplicates(
  ctx: ValidationContext,
  blocks: readonly Located<Bundle | Body>[],
  kind: "bundle" | "body",
): void {
  const first = new Map<string, Located<Bundle | Body>>();
  for (const block of blocks) {
    const { type, name, namespace } = block.node;
    const key = `${namespace}\u0000${type.text}\u0000${name.text}`;
    const earlier = first.get(key);
    if (!earlier) {
      first.set(key, block);
      continue;
    }
    const where = earlier.file === block.file ? "earlier in this file" : `in ${earlier.file}`;
    const ns = namespace === "default" ? "" : ` in namespace '${namespace}'`;
    const message = `${kind} ${type.text} '${name.text}'${ns} is already defined ${where}; each ${kind} of a type needs its own name`;
    ctx.report("error", "duplicate-definition", message, name.span, block.file);
  }
}

/** Reports two promises with the same literal handle under the same class guard. */
export function checkDuplicateHandles(ctx: ValidationContext): void {
  const seen = new Map<string, { guard: string; file: string; span: Span }>();
  for (const { node: bundle, file } of ctx.index.bundles) {
    for (const section of bundle.sections) {
      for (const group of section.groups) {
        const guard = group.guard && !group.guard.quoted ? group.guard.expression : "any";
        for (const promise of group.promises) checkHandle(ctx, seen, promise.attributes, guard, file);
      }
    }
  }
}

function checkHandle(
  ctx: ValidationContext,
  seen: Map<string, { guard: string; file: string; span: Span }>,
  attributes: readonly { name: { text: string }; value: Rval }[],
  guard: string,
  file: string,
): void {
  const attribute = [...attributes].reverse().find((a) => a.name.text === "handle");
  if (attribute?.value.kind !== "string") return;
  const handle = attribute.value.value;
  if (hasVariable(handle)) return;
  const earlier = seen.get(handle);
  if (!earlier) {
    seen.set(handle, { guard, file, span: attribute.value.span });
    return;
  }
  if (earlier.guard !== guard) return;
  const where = earlier.file === file ? "another promise in this file" : `another promise in ${earlier.file}`;
  ctx.report(
    "error",
    "duplicate-handle",
    `handle "${handle}" is already used by ${where} under the same class guard; handles must be unique`,
    attribute.value.span,
    file,
  );
}

/**
 * Whether a qualified variable `bundle.name` is set by a vars promise
 * anywhere in the set (as itself or as an array `name[...]`). Unqualified
 * names and names built from variables count as defined.
 */
export function isVariableDefined(index: PolicyIndex, reference: string): boolean {
  const match = /^(?:[\w]+:)?(\w+)\.(\w+)$/.exec(reference);
  if (!match) return true;
  const [, bundleName, variable] = match;
  return index.bundles.some(
    (b) =>
      b.node.name.text === bundleName &&
      b.node.sections.some(
        (s) =>
          s.type.text === "vars" &&
          s.groups.some((g) =>
            g.promises.some(
              (p) =>
                p.promiser.value === variable ||
                p.promiser.value.startsWith(`${variable}[`) ||
                hasVariable(p.promiser.value),
            ),
          ),
      ),
  );
}
