/** Whether the promise itself writes an attribute (a body reference counts, even to a missing body). */
import type { ActivePromise } from "../contract.js";

export function writes(promise: ActivePromise, name: string): boolean {
  return promise.node.attributes.some((attribute) => attribute.name.text === name);
}
