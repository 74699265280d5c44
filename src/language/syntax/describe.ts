/**
 * The tables in the shape of `cf-promises --syntax-description json`: what
 * `JSON.stringify(describeSyntax(), null, 2)` prints is what 3.21 prints.
 * Like 3.21 it leaves out everything removed and the parsed-only bundle
 * types, and it has no room for tend's extra facts (control bodies, unsafe
 * functions...).
 */
import { BODY_TYPES } from "./body-types.js";
import { BUNDLE_TYPES } from "./bundle-types.js";
import { FUNCTIONS } from "./functions.js";
import { PROMISE_TYPES } from "./promise-types.js";
import type { AttributeSyntax, FunctionSyntax } from "./types.js";

export interface AttributeDescription {
  readonly attribute: string;
  readonly range?: string;
  readonly status: string;
  readonly type: string;
  readonly visibility: string;
}

export interface BlockDescription {
  readonly attributes: Readonly<Record<string, AttributeDescription>>;
  readonly status: string;
}

export interface FunctionDescription {
  readonly cached: boolean;
  readonly category: string;
  readonly collecting: boolean;
  readonly parameters: readonly {
    readonly description: string;
    readonly range: string;
    readonly type: string;
  }[];
  readonly returnType: string;
  readonly status: string;
  readonly variadic: boolean;
}

export interface SyntaxDescription {
  readonly bodyTypes: Readonly<Record<string, BlockDescription>>;
  readonly bundleTypes: Readonly<
    Record<string, { readonly promiseTypes: readonly string[]; readonly status: string }>
  >;
  readonly functions: Readonly<Record<string, FunctionDescription>>;
  readonly promiseTypes: Readonly<Record<string, BlockDescription>>;
}

/** The entries of `record` that are not removed, under sorted keys. */
function sortedLive<T extends { readonly status: string }, R>(
  record: Readonly<Record<string, T>>,
  describe: (item: T) => R,
  keep: (item: T) => boolean = () => true,
): Record<string, R> {
  const out: Record<string, R> = {};
  for (const name of Object.keys(record).sort()) {
    const item = record[name]!;
    if (item.status !== "removed" && keep(item)) out[name] = describe(item);
  }
  return out;
}

function describeAttribute(a: AttributeSyntax): AttributeDescription {
  const base = { attribute: a.name };
  const range = a.range === undefined ? {} : { range: a.range };
  return { ...base, ...range, status: a.status, type: a.type, visibility: a.visibility };
}

function describeBlock(block: {
  readonly attributes: Readonly<Record<string, AttributeSyntax>>;
  readonly status: string;
}) {
  return { attributes: sortedLive(block.attributes, describeAttribute), status: block.status };
}

function describeFunction(f: FunctionSyntax): FunctionDescription {
  return {
    cached: f.cached,
    category: f.category,
    collecting: f.collecting,
    parameters: f.parameters.map((p) => ({ description: p.description, range: p.range, type: p.type })),
    returnType: f.returnType,
    status: f.status,
    variadic: f.variadic,
  };
}

/** The syntax tables as 3.21's cf-promises describes them. */
export function describeSyntax(): SyntaxDescription {
  return {
    bodyTypes: sortedLive(BODY_TYPES, describeBlock),
    bundleTypes: sortedLive(
      BUNDLE_TYPES,
      (b) => ({ promiseTypes: b.promiseTypes, status: b.status }),
      (b) => b.parsedOnly !== true,
    ),
    functions: sortedLive(FUNCTIONS, describeFunction),
    promiseTypes: sortedLive(PROMISE_TYPES, describeBlock),
  };
}
