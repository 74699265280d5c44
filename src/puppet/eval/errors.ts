/**
 * Errors and control flow of evaluation: an EvalError carries Puppet's
 * message and the node it is about (positions resolved lazily through the
 * scope's locator); `return`, `next` and `break` are signals.
 */
import type { NodeBase } from "../lang/ast.js";
import type { Locator } from "../lang/locator.js";
import type { PValue } from "./values.js";

export class EvalError extends Error {
  override readonly name = "EvalError";
  constructor(
    message: string,
    readonly file?: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(message);
  }
}

/** An EvalError positioned at `node` of the file `locator` reads. */
export function evalError(message: string, node: NodeBase | undefined, locator: Locator | undefined): EvalError {
  if (!node || !locator) return new EvalError(message);
  const { line, column } = locator.position(node.offset);
  return new EvalError(message, locator.file === "" ? undefined : locator.file, line, column);
}

export class ReturnSignal {
  constructor(readonly value: PValue) {}
}
export class NextSignal {
  constructor(readonly value: PValue) {}
}
export class BreakSignal {
  /** Recognised by the iteration functions (functions/core/iterable.ts). */
  readonly puppetBreak = true;
  constructor(
    readonly file?: string,
    readonly line?: number,
  ) {}
}
