/**
 * Builders that turn the compact rows of the generated syntax tables into
 * the shapes of `types.ts`. They run once, when the tables are loaded, but
 * for the attributes of body and promise types: those of a type are made
 * when first read.
 */
import type {
  AttributeSyntax,
  AttributeVisibility,
  BodyTypeSyntax,
  DataType,
  FunctionCategory,
  FunctionParameter,
  FunctionSyntax,
  PromiseTypeSyntax,
  SyntaxStatus,
} from "./types.js";

/**
 * One attribute: `[name, type, range, status]`. A missing range means `""`
 * (anything), except for `body` and `bundle` attributes, which have none.
 * A `body` attribute names a body of the type of the same name; `inherit_from`
 * names a body of the type it is written in.
 */
export type AttributeRow = readonly [name: string, type: DataType, range?: string, status?: SyntaxStatus];

/** One function parameter: `[type, range, description]`. */
export type ParameterRow = readonly [type: DataType, range: string, description: string];

/**
 * The flags of a function, as words separated by spaces: `variadic`,
 * `collecting`, `cached`, `delayed` (delayed evaluation), `unsafe`,
 * `deprecated`.
 */
export type FunctionFlags = string;

const FLAG_WORDS: ReadonlySet<string> = new Set([
  "variadic",
  "collecting",
  "cached",
  "delayed",
  "unsafe",
  "deprecated",
]);

function parseFlags(flags: FunctionFlags): ReadonlySet<string> {
  const words = new Set(flags.split(" ").filter((w) => w !== ""));
  for (const word of words) if (!FLAG_WORDS.has(word)) throw new Error(`unknown function flag '${word}'`);
  return words;
}

/** The words of an `option` / `olist` range. */
export function splitOptions(range: string): readonly string[] {
  return range === "" ? [] : range.split(",");
}

function toAttribute(row: AttributeRow, visibility: AttributeVisibility, owner?: string): AttributeSyntax {
  const [name, type, range, status = "normal"] = row;
  const attribute: { -readonly [K in keyof AttributeSyntax]: AttributeSyntax[K] } = {
    name,
    type,
    status,
    visibility,
  };
  if (type === "body") attribute.bodyType = name === "inherit_from" && owner !== undefined ? owner : name;
  else if (type !== "bundle") attribute.range = range ?? "";
  if ((type === "option" || type === "olist") && attribute.range !== undefined) {
    attribute.options = splitOptions(attribute.range);
  }
  return attribute;
}

/**
 * Attributes by name, in a record without a prototype so that a lookup of
 * `constructor` or `__proto__` finds nothing.
 */
export function attributes(
  visibility: AttributeVisibility,
  rows: readonly AttributeRow[],
  owner?: string,
): Readonly<Record<string, AttributeSyntax>> {
  const record: Record<string, AttributeSyntax> = Object.create(null);
  for (const row of rows) record[row[0]] = toAttribute(row, visibility, owner);
  return record;
}

/**
 * A promise type: the shared attribute groups it accepts, then its own
 * attributes. The record is made when it is first read: a run reads those of
 * the few types its policy uses, and making them all was ~2 ms of each start.
 */
export function promiseType(
  name: string,
  shared: readonly Readonly<Record<string, AttributeSyntax>>[],
  own: readonly AttributeRow[],
): PromiseTypeSyntax {
  let record: Record<string, AttributeSyntax> | undefined;
  return {
    name,
    get attributes() {
      if (record === undefined) {
        record = Object.create(null) as Record<string, AttributeSyntax>;
        Object.assign(record, attributes("promiseType", own), ...shared);
      }
      return record;
    },
    status: "normal",
  };
}

/** A promise type 3.21 recognises only to warn that it was removed and skip its sections. */
export function removedPromiseType(name: string): PromiseTypeSyntax {
  return { name, attributes: Object.create(null), status: "removed" };
}

/** A body type's attributes, made when first read (as a promise type's). */
function lazyBodyAttributes(name: string, rows: readonly AttributeRow[]) {
  let record: Readonly<Record<string, AttributeSyntax>> | undefined;
  return () => {
    record ??= attributes("body", rows, name);
    return record;
  };
}

/** A body type referred to by promise attributes. */
export function bodyType(name: string, rows: readonly AttributeRow[]): BodyTypeSyntax {
  const made = lazyBodyAttributes(name, rows);
  return {
    name,
    get attributes() {
      return made();
    },
    status: "normal",
  };
}

/** A control body type: written only as `body TYPE control`. */
export function controlBodyType(name: string, rows: readonly AttributeRow[]): BodyTypeSyntax {
  const made = lazyBodyAttributes(name, rows);
  return {
    name,
    get attributes() {
      return made();
    },
    control: true,
    status: "normal",
  };
}

/** A control body type 3.21 recognises only to warn that it was removed and ignore the body. */
export function removedControlBodyType(name: string): BodyTypeSyntax {
  return { name, attributes: Object.create(null), control: true, status: "removed" };
}

function toParameter([type, range, description]: ParameterRow): FunctionParameter {
  return type === "option"
    ? { type, range, options: splitOptions(range), description }
    : { type, range, description };
}

/** A built-in function; throws on an unknown flag word (a fault of the generator). */
export function fn(
  name: string,
  returnType: DataType,
  category: FunctionCategory,
  flags: FunctionFlags,
  parameters: readonly ParameterRow[],
): FunctionSyntax {
  const words = parseFlags(flags);
  return {
    name,
    returnType,
    parameters: parameters.map(toParameter),
    variadic: words.has("variadic"),
    collecting: words.has("collecting"),
    cached: words.has("cached"),
    category,
    ...(words.has("delayed") ? { delayedEvaluation: true } : {}),
    ...(words.has("unsafe") ? { unsafe: true } : {}),
    status: words.has("deprecated") ? "deprecated" : "normal",
  };
}

/** A table keyed by name, without a prototype. */
export function byName<T extends { readonly name: string }>(
  items: readonly T[],
): Readonly<Record<string, T>> {
  const record: Record<string, T> = Object.create(null);
  for (const item of items) record[item.name] = item;
  return record;
}
