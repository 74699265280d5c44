/**
 * CONTRACT: ERB templates, limited to a documented subset of Ruby (filled in
 * by the template work). The compiler's `template()` and `inline_template()`
 * call `renderErb`.
 */
import type { PValue } from "../eval/values.js";

/** What a template sees of the compiler: `@x`, `scope['x']`, `scope.lookupvar('x')`, `scope.call_function('f', [...])`. */
export interface TemplateScope {
  lookupVariable(name: string): PValue;
  /** Whether `name` is set in the scope (for `@x` of an unset variable: nil, with Puppet's warning rules). */
  hasVariable(name: string): boolean;
  callFunction(name: string, args: readonly PValue[]): PValue;
}

/** A template error: what is wrong, where in the template. */
export class TemplateError extends Error {
  override readonly name = "TemplateError";
  constructor(
    message: string,
    readonly file: string,
    readonly line?: number,
  ) {
    super(message);
  }
}

export function renderErb(_source: string, file: string, _scope: TemplateScope): string {
  throw new TemplateError("ERB templates are not supported yet", file);
}
