/** Puppet 7's core functions written in TypeScript (filled in by the function-library work). */
import type { FunctionTable, PuppetFunction } from "../registry.js";

export const coreFunctions: FunctionTable = new Map<string, PuppetFunction>();
