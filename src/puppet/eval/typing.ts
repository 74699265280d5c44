/**
 * The compiler's door to the type system (types.ts) and to references
 * (refs.ts): one import for the evaluator and the compiler.
 */
import {
  PType,
  describeMismatch,
  formatValue,
  inferType,
  newInstance,
  parameterize,
  rubyFloat,
  typeByName,
} from "./types.js";
import type { PValue } from "./values.js";

export function isInstance(t: PType, v: PValue): boolean {
  return t.isInstance(v);
}

/** Ruby's Float#to_s. */
export function formatFloat(n: number): string {
  return rubyFloat(n);
}

export { PType, describeMismatch, formatValue, inferType, newInstance, parameterize, typeByName };
export { ResourceRef, asResourceRef, capitalizeTypeName } from "./refs.js";
