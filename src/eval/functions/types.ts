import type { FunctionCall } from "../../language/ast.js";
import type { EvalContext } from "../context.js";
import type { ExpandOptions } from "../expand.js";
import type { Value } from "../values.js";

/** What a built-in function sees besides its arguments. */
export interface FunctionContext {
  readonly ctx: EvalContext;
  readonly options: ExpandOptions;
  readonly call: FunctionCall;
}

/**
 * A built-in function. `evaluate` returns undefined when the call fails
 * (bad arguments, unreadable file...); the caller then leaves the promise
 * that used it unresolved, as 3.21 does.
 */
export interface BuiltinFunction {
  readonly name: string;
  readonly minArgs: number;
  /** `Infinity` for variadic functions. */
  readonly maxArgs: number;
  /**
   * Whether the function still runs when an argument holds an unresolved
   * reference (most do not: 3.21 skips such calls).
   */
  readonly acceptsUnresolved?: boolean;
  /**
   * The argument the function evaluates itself, again for each item it maps
   * (3.21's delayed evaluation: maplist, maparray, mapdata); the caller
   * passes an empty string in its place.
   */
  readonly delayedArg?: number;
  evaluate(args: readonly Value[], fc: FunctionContext): Value | undefined;
}

/** Shorthand to declare a function in a family table. */
export function defineFunction(
  name: string,
  minArgs: number,
  maxArgs: number,
  evaluate: BuiltinFunction["evaluate"],
  acceptsUnresolved = false,
): BuiltinFunction {
  return { name, minArgs, maxArgs, evaluate, acceptsUnresolved };
}
