/**
 * The catalog: what a front end decided a node should be, as data that the
 * applier runs. Its JSON form is Puppet 7's catalog format (`resources` with
 * type, title, tags, file, line, exported and parameters; `edges` of
 * containment), which the TypeScript recipe front end also produces. Ordering
 * and notification travel as the metaparameters `before`, `require`,
 * `notify` and `subscribe`, as in Puppet's catalogs.
 */

/** A parameter's value: what JSON can hold. */
export type ParamValue =
  | string
  | number
  | boolean
  | null
  | readonly ParamValue[]
  | { readonly [key: string]: ParamValue };

export interface CatalogResource {
  /** Capitalised per segment as Puppet writes it: `File`, `Concat::Fragment`, `Class`, `Stage`. */
  readonly type: string;
  readonly title: string;
  readonly parameters: Readonly<Record<string, ParamValue>>;
  readonly tags: readonly string[];
  /** Where the resource was declared, when known. */
  readonly file?: string;
  readonly line?: number;
  readonly exported?: boolean;
  /**
   * Puppet's `kind`: `compilable_type` (a type with a provider),
   * `defined_type` (a container: a defined type's instance), `unknown` (classes).
   */
  readonly kind?: string;
}

/** A containment edge: `source` contains `target` (both `Type[title]` references). */
export interface CatalogEdge {
  readonly source: string;
  readonly target: string;
}

export interface Catalog {
  /** The node's name (certname). */
  readonly name: string;
  readonly environment: string;
  /** The catalog's version (Puppet's is a time stamp). */
  readonly version: string;
  readonly resources: readonly CatalogResource[];
  readonly edges: readonly CatalogEdge[];
  readonly classes: readonly string[];
  readonly tags?: readonly string[];
  readonly codeId?: string | null;
  readonly catalogUuid?: string;
}

/** `Type[title]`, the reference Puppet uses for a resource everywhere. */
export function resourceRef(resource: Pick<CatalogResource, "type" | "title">): string {
  return `${resource.type}[${resource.title}]`;
}
