/**
 * CONTRACT for functions implemented in TypeScript: Puppet's core functions
 * and the stdlib functions tend gives native implementations. Functions that
 * touch the catalog or the scope (include, contain, require, realize,
 * defined, tag, tagged, lookup, template, epp, inline_epp, create_resources,
 * fail and the logging functions) are registered by the compiler itself and
 * reach it through `ctx`.
 */
import type { PCallable, PValue } from "../values.js";

/** A function call's surroundings. */
export interface CallContext {
  /** The name the function was called by. */
  readonly name: string;
  /** Where the call is written, for messages. */
  readonly file?: string;
  readonly line?: number;
  /** A variable as the calling scope sees it (`facts`, `trusted`, `x`, `a::b::c`); undefined when unset. */
  lookupVariable(name: string): PValue;
  /** A warning in the compile's log (Puppet prints `Warning: ...`). */
  warn(message: string): void;
  /** Calls another function by name, with the same context (stdlib helpers call core ones). */
  callFunction(name: string, args: readonly PValue[], block?: PCallable): PValue;
  /**
   * A warning given once per compile for `key`, as Puppet's deprecation
   * warnings are (stdlib's deprecated function names). Optional: callers
   * fall back to `warn`.
   */
  warnOnce?(key: string, message: string): void;
  /**
   * The catalog and environment being compiled, for the stdlib functions that
   * inspect them (defined_with_params, getparam, ensure_resource(s),
   * ensure_packages, stdlib::has_function, get_module_path,
   * load_module_metadata, stdlib::str2resource). Optional: without it those
   * functions fail saying they need the compiler.
   */
  readonly compile?: CompileView;
}

/** A resource of the catalog being compiled, as functions inspect it. */
export interface CatalogResourceView {
  /** Lower-case type name: `package`, `class`, `ntp::config`. */
  readonly type: string;
  /** The title (a class's name in lower case). */
  readonly title: string;
  /** The parameters set so far, by name; undef ones absent. */
  readonly parameters: ReadonlyMap<string, PValue>;
}

/** What the compiler shows functions of its catalog and environment. */
export interface CompileView {
  /** The resource `type[title]` declared so far (type in any case; `class` for classes), or undefined. */
  findResource(type: string, title: string): CatalogResourceView | undefined;
  /** Every resource of `type` declared so far, in declaration order. */
  resourcesOfType(type: string): readonly CatalogResourceView[];
  /** The resource whose body is being evaluated (a class or a defined type's instance), if any. */
  readonly currentResource?: CatalogResourceView;
  /** Whether a function of that name can be called (core, compiler, stdlib, Puppet-language or module function). */
  hasFunction(name: string): boolean;
  /** The directory of module `name` on the environment's modulepath, or undefined. */
  modulePath(name: string): string | undefined;
}

/**
 * A function: validates its own arguments (throwing a FunctionArgumentError
 * with Puppet's message, e.g. "'split' expects 2 arguments, got 1") and
 * returns a value.
 */
export type PuppetFunction = (
  ctx: CallContext,
  args: readonly PValue[],
  block: PCallable | undefined,
) => PValue;

/** Bad arguments to a function: the compiler adds the file and line. */
export class FunctionArgumentError extends Error {
  override readonly name = "FunctionArgumentError";
}

/** Any other error a function raises on purpose (`fail`, `assert_type`): the compiler adds the file and line. */
export class FunctionError extends Error {
  override readonly name = "FunctionError";
}

/** A table of functions by name (`split`, `stdlib::merge`, `merge`). */
export type FunctionTable = ReadonlyMap<string, PuppetFunction>;
