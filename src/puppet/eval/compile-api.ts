/**
 * CONTRACT: compiling one node's catalog. The compiler (src/puppet/eval)
 * implements `compileCatalog`; the command line (src/puppet/env, src/cli),
 * the conformance tests and the benchmarks call it.
 */
import type { Logger } from "../../system/logger.js";
import type { Autoloader, NodeRequest, PuppetEnvironment } from "../env/environment.js";
import type { FunctionTable } from "./functions/registry.js";
import type { PValue } from "./values.js";

/** Hiera's answer when a key has no value (distinct from undef, a real value). */
export const NOT_FOUND: unique symbol = Symbol("not found");

/** How Hiera sees the compiler's scope: for `%{facts.os.family}`, `%{::trusted.certname}`, `%{x}`. */
export interface VariableScope {
  lookupVariable(name: string): PValue;
}

/** Hiera 5 as the compiler uses it (automatic class parameter lookup). */
export interface HieraProvider {
  /**
   * The value of `key`, merged by `lookup_options` or by `merge` when given
   * (`first`, `unique`, `hash`, `deep`, or a hash with `strategy`);
   * `moduleName` is the module whose data is consulted after the environment's.
   */
  lookup(
    key: string,
    scope: VariableScope,
    options?: { merge?: PValue; moduleName?: string },
  ): PValue | typeof NOT_FOUND;
}

export interface CompileInput {
  readonly environment: PuppetEnvironment;
  readonly autoloader: Autoloader;
  readonly node: NodeRequest;
  /** Hiera for automatic parameter lookup and `lookup()`; none: every lookup is not found. */
  readonly hiera?: HieraProvider;
  /** More functions (stdlib's, `lookup`), consulted after the core functions. */
  readonly functions?: FunctionTable;
  readonly logger?: Logger;
  /**
   * Puppet's settings for the compile, by name, as `$settings::<name>`
   * shows them (`strict`: off/warning/error, `strict_variables`: boolean,
   * `confdir`, `codedir`, `vardir`, `environmentpath`, `basemodulepath`...);
   * absent: Puppet's defaults.
   */
  readonly settings?: Readonly<Record<string, string | boolean>>;
}

/** One `Notice:`/`Warning:` line of the compile (notice(), warning(), deprecations). */
export interface CompileMessage {
  readonly level: "debug" | "info" | "notice" | "warning" | "err";
  readonly message: string;
  /** Who logged it, as Puppet names it: `Scope(Class[main])` for `notice()`. */
  readonly source?: string;
  readonly file?: string;
  readonly line?: number;
}

/** A catalog exactly as `puppet catalog compile --render-as json` prints it (keys in Puppet's order). */
export interface PuppetCatalogJson {
  readonly tags: string[];
  readonly name: string;
  readonly version: number | string;
  readonly code_id: string | null;
  readonly catalog_uuid: string;
  readonly catalog_format: number;
  readonly environment: string;
  readonly resources: Record<string, unknown>[];
  readonly edges: { source: string; target: string }[];
  readonly classes: string[];
}

export interface CompileResult {
  /** The catalog's JSON data (made when first read). */
  readonly catalog: PuppetCatalogJson;
  /**
   * The catalog's JSON text, `renderRubyJson(catalog)` without its newline,
   * as UTF-8 handed to `write` in pieces (made a few hundred resources at a
   * time, without the whole data), with the version and uuid of `catalog`.
   * A piece's bytes are valid during the call only: a buffer is reused.
   */
  writeCatalogJson(write: (bytes: Uint8Array) => void): void;
  readonly messages: readonly CompileMessage[];
}

/** A compile failure as Puppet reports it: what is wrong, and where when known. */
export class PuppetCompileError extends Error {
  override readonly name = "PuppetCompileError";
  constructor(
    message: string,
    readonly file?: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(message);
  }
}

export { compileCatalog } from "./compile.js";

export { JsonFloat, PLAIN_JSON } from "./json-float.js";
