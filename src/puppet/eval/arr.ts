/** `Array.isArray` narrowed to Puppet arrays (the built-in narrows PValue unions badly). */
import type { PValue } from "./values.js";

export function isArr(v: PValue): v is PValue[] {
  return Array.isArray(v);
}
