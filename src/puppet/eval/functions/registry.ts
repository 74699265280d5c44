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
