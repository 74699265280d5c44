/**
 * Declaring and checking the attributes of a custom promise type. The
 * agent sends strings (and, to JSON modules, lists and data containers);
 * a declaration says what each attribute must be, converts `"true"`/`"42"`
 * strings to booleans and numbers, and rejects anything else with a
 * `ValidationError` whose message the agent shows as the policy's error.
 */

/** A JSON value as the agent sends it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A policy error in a promise: the promise is invalid and not evaluated. */
export class ValidationError extends Error {
  override readonly name = "ValidationError";
}

export interface AttributeSpec<T> {
  /** What a value must be, for messages: "a string", "a list of strings"... */
  readonly description: string;
  /** The value converted, or undefined when it is not of this kind. */
  convert(value: Json): T | undefined;
  readonly required: boolean;
  readonly defaultValue?: T;
  /** Further checks: why the value is refused, or undefined (a method, so specs of any T mix). */
  check?(value: T): string | undefined;
}

export interface SpecOptions<T> {
  readonly required?: boolean;
  readonly default?: T;
  /** Returns why the value is not acceptable, or undefined when it is. */
  readonly check?: (value: T) => string | undefined;
}

function spec<T>(description: string, convert: (value: Json) => T | undefined, options: SpecOptions<T>) {
  return {
    description,
    convert,
    required: options.required ?? false,
    defaultValue: options.default,
    check: options.check,
  } satisfies AttributeSpec<T>;
}

/** A string attribute. */
export function string(options: SpecOptions<string> = {}): AttributeSpec<string> {
  return spec("a string", (v) => (typeof v === "string" ? v : undefined), options);
}

/** An integer, written as a string in policy (`"42"`). */
export function int(options: SpecOptions<number> = {}): AttributeSpec<number> {
  return spec(
    "an integer",
    (v) => {
      if (typeof v === "number" && Number.isInteger(v)) return v;
      return typeof v === "string" && /^-?\d+$/.test(v.trim()) ? Number(v) : undefined;
    },
    options,
  );
}

const TRUE_WORDS = new Set(["true", "yes", "on"]);
const FALSE_WORDS = new Set(["false", "no", "off"]);

/** A boolean, written `"true"`/`"false"` (or yes/no, on/off) in policy. */
export function boolean(options: SpecOptions<boolean> = {}): AttributeSpec<boolean> {
  return spec(
    "true or false",
    (v) => {
      if (typeof v === "boolean") return v;
      if (typeof v !== "string") return undefined;
      return TRUE_WORDS.has(v) ? true : FALSE_WORDS.has(v) ? false : undefined;
    },
    options,
  );
}

/** A list of strings (`slist`); JSON modules only. */
export function list(options: SpecOptions<string[]> = {}): AttributeSpec<string[]> {
  return spec(
    "a list of strings",
    (v) => (Array.isArray(v) && v.every((i) => typeof i === "string") ? (v as string[]) : undefined),
    options,
  );
}

/** A data container (`@(data)`, or a function returning data); JSON modules only. */
export function data(options: SpecOptions<Json> = {}): AttributeSpec<Json> {
  return spec("a data container", (v) => (v !== null && typeof v === "object" ? v : undefined), options);
}

/** One of a few words. */
export function oneOf<const W extends string>(
  words: readonly W[],
  options: SpecOptions<W> = {},
): AttributeSpec<W> {
  return spec(
    `one of ${words.map((w) => `'${w}'`).join(", ")}`,
    (v) => (typeof v === "string" && (words as readonly string[]).includes(v) ? (v as W) : undefined),
    options,
  );
}

export type AttributeSpecs = Readonly<Record<string, AttributeSpec<unknown>>>;

/** The attributes' values after checking: declared types, defaults filled in. */
export type AttributeValues<S extends AttributeSpecs> = {
  readonly [K in keyof S]: S[K] extends AttributeSpec<infer T> ? T | undefined : never;
};

/**
 * Attributes the agent may send to every promise type (`handle`, `comment`,
 * and what an `action` body flattens to); they are not the module's to
 * declare. `action_policy` becomes the promise's `warnOnly`.
 */
export const AGENT_ATTRIBUTES: ReadonlySet<string> = new Set([
  "handle",
  "comment",
  "action_policy",
  "ifelapsed",
  "expireafter",
  "background",
  "report_level",
  "measurement_class",
  "audit",
]);

/** Checks `attributes` against `specs`; throws a ValidationError naming the first problem. */
export function checkAttributes<S extends AttributeSpecs>(
  specs: S,
  attributes: Readonly<Record<string, Json>>,
): AttributeValues<S> {
  const values: Record<string, unknown> = {};
  for (const name of Object.keys(attributes)) {
    if (!Object.hasOwn(specs, name) && !AGENT_ATTRIBUTES.has(name)) {
      throw new ValidationError(`Unknown attribute '${name}'`);
    }
  }
  for (const [name, attributeSpec] of Object.entries(specs)) {
    const given = attributes[name];
    if (given === undefined) {
      if (attributeSpec.required) throw new ValidationError(`Missing required attribute '${name}'`);
      values[name] = attributeSpec.defaultValue;
      continue;
    }
    const value = attributeSpec.convert(given);
    if (value === undefined) {
      throw new ValidationError(
        `Attribute '${name}' must be ${attributeSpec.description}, not ${JSON.stringify(given)}`,
      );
    }
    const problem = attributeSpec.check?.(value);
    if (problem !== undefined) throw new ValidationError(`Attribute '${name}' ${problem}`);
    values[name] = value;
  }
  return values as AttributeValues<S>;
}
