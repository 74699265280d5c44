/**
 * Built-in functions by name. Families register their tables here; later
 * work extends the library by adding tables, not by touching callers.
 */
import type { FunctionCall } from "../../language/ast.js";
import type { EvalContext } from "../context.js";
import { type ExpandOptions, expandRval, expandString, hasUnresolvedReference } from "../expand.js";
import { type Value, isScalar } from "../values.js";
import { collectionFunctions } from "./collections.js";
import { dataFunctions } from "./data.js";
import { fileFunctions } from "./files.js";
import { legacyReadFunctions } from "./legacy-read.js";
import { logicFunctions } from "./logic.js";
import { readerFunctions } from "./readers.js";
import { foldFunctions, mathFunctions } from "./math.js";
import { networkFunctions } from "./network.js";
import { regexFunctions } from "./regex.js";
import { stringFunctions } from "./strings.js";
import { systemTableFunctions } from "./system-tables.js";
import { systemFunctions } from "./system.js";
import { timeFunctions } from "./time.js";
import { utilFunctions } from "./utils.js";
import { policyFunctions } from "./policy.js";
import type { BuiltinFunction } from "./types.js";

const registry = new Map<string, BuiltinFunction>();

/** Adds functions; a later registration of a name replaces the earlier one. */
export function registerFunctions(functions: readonly BuiltinFunction[]): void {
  for (const fn of functions) registry.set(fn.name, fn);
}

export function getFunction(name: string): BuiltinFunction | undefined {
  return registry.get(name);
}

export function listFunctionNames(): string[] {
  return [...registry.keys()].sort();
}

// Stand-ins that a later family may replace come first.
registerFunctions(legacyReadFunctions);
registerFunctions(foldFunctions);
registerFunctions(logicFunctions);
registerFunctions(stringFunctions);
registerFunctions(regexFunctions);
registerFunctions(collectionFunctions);
registerFunctions(fileFunctions);
// After the file family: the readers of lists and data are theirs.
registerFunctions(dataFunctions);
registerFunctions(readerFunctions);
registerFunctions(mathFunctions);
registerFunctions(timeFunctions);
registerFunctions(systemFunctions);
registerFunctions(systemTableFunctions);
registerFunctions(networkFunctions);
registerFunctions(utilFunctions);
registerFunctions(policyFunctions);

/**
 * Functions whose results 3.21 keeps for the rest of the run, keyed by their
 * arguments: they run commands or ask the network, and a policy evaluates
 * its promises many times (passes, pre-evaluation).
 */
const CACHED = new Set([
  "execresult",
  "execresult_as_data",
  "findprocesses",
  "processexists",
  "readtcp",
  "remotescalar",
  "returnszero",
  "hubknowledge",
  "ldaplist",
  "ldapvalue",
  "regldap",
]);

/**
 * Evaluates a call. Undefined when the function is unknown, the arity is
 * wrong, an argument is unresolved or the function itself fails.
 */
export function callFunction(
  ctx: EvalContext,
  call: FunctionCall,
  options: ExpandOptions,
): Value | undefined {
  const fn = registry.get(expandString(ctx, call.name, options));
  if (!fn || call.args.length < fn.minArgs || call.args.length > fn.maxArgs) return undefined;
  const args: Value[] = [];
  for (const arg of call.args) {
    const value = expandRval(ctx, arg, options);
    if (!value) return undefined;
    if (!fn.acceptsUnresolved && isUnresolved(value)) return undefined;
    args.push(value);
  }
  if (!CACHED.has(fn.name)) return fn.evaluate(args, { ctx, options, call });
  const key = JSON.stringify([fn.name, args]);
  const cached = ctx.functionCache.get(key);
  if (cached) return cached;
  const result = fn.evaluate(args, { ctx, options, call });
  // As in 3.21, only a successful call is remembered.
  if (result) ctx.functionCache.set(key, result);
  return result;
}

function isUnresolved(value: Value): boolean {
  if (isScalar(value)) return hasUnresolvedReference(value.value);
  if (value.type === "data") return false;
  return value.value.some(hasUnresolvedReference);
}
