/**
 * Custom promise types (promise modules): registered for every `promise
 * agent NAME` declaration of the policy, run by one runtime per agent run.
 */
import type { PolicyIndex } from "../../agent/policy-index.js";
import type { PromiseTypeRegistry } from "../registry.js";
import { customPromiseType } from "./promise-type.js";
import { CustomPromiseRuntime } from "./runtime.js";

export { startModulesEarly } from "./early-start.js";

/** Registers the policy's custom promise types; the runtime must be shut down when the run ends. */
export function registerCustomPromiseTypes(
  registry: PromiseTypeRegistry,
  index: PolicyIndex,
): CustomPromiseRuntime {
  const runtime = new CustomPromiseRuntime();
  for (const declaration of index.promiseTypeDeclarations()) {
    // A built-in type keeps its name (the validator refuses such declarations).
    if (registry.get(declaration.block.name.text)) continue;
    registry.register(customPromiseType(declaration, runtime));
    runtime.declarations.push(declaration.block);
  }
  // Types sharing a module share its process: the count of types is the most modules there can be.
  const declared = index.promiseTypeDeclarations().length;
  if (declared > 0) runtime.prepare(declared);
  return runtime;
}
