/**
 * CONTRACT: ERB templates, limited to a documented subset of Ruby (see
 * docs/puppet-erb.md). The compiler's `template()` and `inline_template()`
 * call `renderErb`.
 *
 * Puppet renders templates with ERB in trim mode `-` and exposes the
 * scope's variables as instance variables (`@x`, nil when unset), the scope
 * itself as `scope` (`scope['x']`, `scope['::x']`, `scope.lookupvar('x')`,
 * `scope.call_function('f', [args])`, `scope.function_f([args])`). Ruby
 * beyond the subset, and Ruby's own errors (a method called on nil), are a
 * TemplateError with the template's file and line.
 */
import type { PValue } from "../eval/values.js";
import { TemplateError } from "./errors.js";
import { Interp } from "./interp.js";
import { lexTemplate } from "./lexer.js";
import { parseTemplate } from "./parser.js";

export { TemplateError };

/** What a template sees of the compiler: `@x`, `scope['x']`, `scope.lookupvar('x')`, `scope.call_function('f', [...])`. */
export interface TemplateScope {
  /**
   * A variable's value (undefined when unset or undef). Names are as the
   * template writes them: `x`, `a::b::x`, and `::x` for the top scope's x
   * (when `hasVariable('::x')` is false, the template asks for `x`).
   */
  lookupVariable(name: string): PValue;
  /** Whether `name` is set in the scope (for `@x` of an unset variable: nil, with Puppet's warning rules). */
  hasVariable(name: string): boolean;
  callFunction(name: string, args: readonly PValue[]): PValue;
}

/**
 * Renders `source` (the template's text; `file` names it in errors). Errors
 * thrown by `scope.callFunction` pass through unchanged.
 */
export function renderErb(source: string, file: string, scope: TemplateScope): string {
  const body = parseTemplate(lexTemplate(source, file), file);
  return new Interp(file, scope).run(body);
}
