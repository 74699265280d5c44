/**
 * Errors and control flow of evaluation: an PuppetEvalError carries Puppet's
 * message and the node it is about (positions resolved lazily through the
 * scope's locator); `return`, `next` and `break` are signals.
 */
import type { NodeBase } from "../lang/ast.js";
import type { Locator } from "../lang/locator.js";
import type { PValue } from "./values.js";

export class PuppetEvalError extends Error {
  override readonly name = "PuppetEvalError";
  constructor(
    message: string,
    readonly file?: string,
    readonly line?: number,
    readonly column?: number,
    /** Raised while evaluating an expression (Puppet prefixes "Evaluation Error: "). */
    readonly evaluation = false,
  ) {
    super(message);
  }
}

/** An PuppetEvalError positioned at `node` of the file `locator` reads. */
export function evalError(
  message: string,
  node: NodeBase | undefined,
  locator: Locator | undefined,
): PuppetEvalError {
  if (!node || !locator) return new PuppetEvalError(message, undefined, undefined, undefined, true);
  const { line, column } = locator.position(node.offset);
  return new PuppetEvalError(message, locator.file === "" ? undefined : locator.file, line, column, true);
}

export class ReturnSignal {
  constructor(
    readonly value: PValue,
    readonly file?: string,
    readonly line?: number,
  ) {}
}
export class NextSignal {
  constructor(
    readonly value: PValue,
    readonly file?: string,
    readonly line?: number,
  ) {}
}
export class BreakSignal {
  /** Recognised by the iteration functions (functions/core/iterable.ts). */
  readonly puppetBreak = true;
  constructor(
    readonly file?: string,
    readonly line?: number,
  ) {}
}
