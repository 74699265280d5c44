/**
 * Custom promise types (promise modules): registered for every `promise
 * agent NAME` declaration of the policy, run by one runtime per agent run.
 */
import type { PolicyIndex } from "../policy-index.js";
import type { PolicyFile } from "../../language/ast.js";
import type { PromiseTypeRegistry } from "../registry.js";
import { customDeclarations, customPromiseType } from "./promise-type.js";
import { CustomPromiseRuntime } from "./runtime.js";

export { startModulesEarly } from "./early-start.js";
export { CustomPromiseRuntime };

/** How many `promise agent` declarations the files hold (as many modules at most). */
export function countPromiseTypeDeclarations(files: readonly PolicyFile[]): number {
  let count = 0;
  for (const file of files) for (const block of file.blocks) if (block.kind === "promise-block") count++;
  return count;
}

/** Registers the policy's custom promise types, run by `runtime`, which must be shut down when the run ends. */
export function registerCustomPromiseTypes(
  registry: PromiseTypeRegistry,
  index: PolicyIndex,
  runtime: CustomPromiseRuntime,
): void {
  for (const declaration of customDeclarations(registry, index))
    registry.register(customPromiseType(declaration, runtime));
  // Types sharing a module share its process: the count of types is the most modules there can be.
  runtime.prepare(index.promiseTypeDeclarations().length);
}
