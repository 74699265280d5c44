/**
 * Resource references as Puppet writes them, `Type[title]`: parsing,
 * normalising the type's case (each `::` segment capitalised, as Puppet
 * does, so `file[/a]` and `File[/a]` name the same resource) and reading
 * the relationship metaparameters, whose value is one reference or an
 * array of them.
 */
import { memoizeText } from "../text/memo.js";
import type { ParamValue } from "./model.js";

/** Names already capitalised: a catalog names few types, each thousands of times. */
const capitalized = new Map<string, string>();
const CAPITALIZED_MAX = 4096;

/** `concat::fragment` → `Concat::Fragment`, `FILE` → `File` (Ruby's capitalize per segment). */
export function capitalizeType(type: string): string {
  const known = capitalized.get(type);
  if (known !== undefined) return known;
  const result = type
    .split("::")
    .map((segment) => segment.charAt(0).toUpperCase() + segment.slice(1).toLowerCase())
    .join("::");
  if (capitalized.size < CAPITALIZED_MAX) capitalized.set(type, result);
  return result;
}

export interface ParsedRef {
  readonly type: string;
  readonly title: string;
}

/** Splits `Type[title]`; undefined when the text is not a reference. */
export function parseRef(text: string): ParsedRef | undefined {
  const open = text.indexOf("[");
  if (open <= 0 || !text.endsWith("]")) return undefined;
  const type = text.slice(0, open).trim();
  if (!isTypeName(type)) return undefined;
  return { type, title: text.slice(open + 1, -1) };
}

/** Whether `text` is a type name (`File`, `concat::fragment`). */
export const isTypeName: (text: string) => boolean = memoizeText(
  (text) => /^[A-Za-z]\w*(::[A-Za-z]\w*)*$/.test(text),
  10_000,
  200,
);

/**
 * The canonical key of a resource: the type capitalised, and for classes
 * the title too (`Class[foo::bar]` is `Class[Foo::Bar]`, as the compiler
 * writes class references).
 */
export function refKey(type: string, title: string): string {
  const canonicalType = capitalizeType(type);
  const canonicalTitle = canonicalType === "Class" ? capitalizeType(title) : title;
  return `${canonicalType}[${canonicalTitle}]`;
}

/** The canonical key of a reference text, or undefined when it is not one. */
export function refKeyOf(text: string): string | undefined {
  const parsed = parseRef(text);
  return parsed ? refKey(parsed.type, parsed.title) : undefined;
}

/** The four metaparameters that order resources; notify and subscribe also carry events. */
export const RELATIONSHIP_PARAMS = ["before", "require", "notify", "subscribe"] as const;
export type RelationshipParam = (typeof RELATIONSHIP_PARAMS)[number];

/**
 * The references a relationship metaparameter names: a string or a
 * (possibly nested) array of strings. Anything else comes back in `bad`.
 */
export function relationshipRefs(value: ParamValue | undefined): { refs: string[]; bad: ParamValue[] } {
  const refs: string[] = [];
  const bad: ParamValue[] = [];
  const visit = (v: ParamValue | undefined): void => {
    if (v === undefined || v === null) return;
    if (typeof v === "string") refs.push(v);
    else if (Array.isArray(v)) for (const item of v as readonly ParamValue[]) visit(item);
    else bad.push(v);
  };
  visit(value);
  return { refs, bad };
}
