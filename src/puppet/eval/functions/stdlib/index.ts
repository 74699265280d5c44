/** Native implementations of puppetlabs-stdlib's functions (filled in by the stdlib work). */
import type { FunctionTable, PuppetFunction } from "../registry.js";
import { moduleFunctions } from "./modules.js";

export const stdlibFunctions: FunctionTable = new Map<string, PuppetFunction>([...moduleFunctions]);
