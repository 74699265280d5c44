/**
 * `tend check -s json`: the syntax tables as a JSON document shaped like
 * `cf-promises -s json` (four maps keyed by name, keys in sorted order).
 */
import type {
  AttributeSyntax,
  BodyTypeSyntax,
  BundleTypeSyntax,
  FunctionSyntax,
  PromiseTypeSyntax,
} from "../language/syntax/types.js";

/** The tables to describe; any iterable of entries will do. */
export interface SyntaxTables {
  readonly bodyTypes: Iterable<BodyTypeSyntax>;
  readonly bundleTypes: Iterable<BundleTypeSyntax>;
  readonly promiseTypes: Iterable<PromiseTypeSyntax>;
  readonly functions: Iterable<FunctionSyntax>;
}

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

function byName<T extends { readonly name: string }>(
  entries: Iterable<T>,
  describe: (entry: T) => Json,
): { [key: string]: Json } {
  const sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return Object.fromEntries(sorted.map((entry) => [entry.name, describe(entry)]));
}

function describeAttribute(attribute: AttributeSyntax): Json {
  const out: { [key: string]: Json } = { attribute: attribute.name };
  // cf-promises gives no range for attributes that name a body or a bundle.
  if (attribute.type !== "body" && attribute.type !== "bundle") out.range = attribute.range ?? "";
  out.status = attribute.status;
  out.type = attribute.type;
  out.visibility = attribute.visibility;
  return out;
}

function describeAttributes(attributes: Readonly<Record<string, AttributeSyntax>>): Json {
  return byName(Object.values(attributes), describeAttribute);
}

function describeFunction(fn: FunctionSyntax): Json {
  return {
    cached: fn.cached,
    category: fn.category,
    collecting: fn.collecting,
    parameters: fn.parameters.map((p) => ({ description: p.description, range: p.range, type: p.type })),
    returnType: fn.returnType,
    status: fn.status,
    variadic: fn.variadic,
  };
}

/** The syntax description as a JSON value. */
export function describeSyntax(tables: SyntaxTables): Json {
  return {
    bodyTypes: byName(tables.bodyTypes, (b) => ({
      attributes: describeAttributes(b.attributes),
      status: b.status,
    })),
    bundleTypes: byName(tables.bundleTypes, (b) => ({ promiseTypes: [...b.promiseTypes], status: b.status })),
    functions: byName(tables.functions, describeFunction),
    promiseTypes: byName(tables.promiseTypes, (p) => ({
      attributes: describeAttributes(p.attributes),
      status: p.status,
    })),
  };
}

/** The description as text, indented like cf-promises' output. */
export function formatSyntaxDescription(tables: SyntaxTables): string {
  return JSON.stringify(describeSyntax(tables), null, 2) + "\n";
}
