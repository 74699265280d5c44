/**
 * Built-in functions by name. Families register their tables here; later
 * work extends the library by adding tables, not by touching callers.
 */
import type { FunctionCall } from "../../language/ast.js";
import { getFunction as getFunctionSyntax } from "../../language/syntax/index.js";
import type { EvalContext } from "../context.js";
import { type ExpandOptions, expandRval, expandString } from "../expand.js";
import { type Value, isList, isScalar, scalar } from "../values.js";
import { collectionFunctions } from "./collections.js";
import { dataFunctions } from "./data.js";
import { fileFunctions } from "./files.js";
import { logicFunctions } from "./logic.js";
import { dataFileFunctions } from "./data-files.js";
import { expandRangeFunctions } from "./expand-range.js";
import { fileRuleFunctions } from "./file-rules.js";
import { readerFunctions } from "./readers.js";
import { foldFunctions, mathFunctions } from "./math.js";
import { networkFunctions } from "./network.js";
import { regexFunctions } from "./regex.js";
import { stringFunctions } from "./strings.js";
import { systemTableFunctions } from "./system-tables.js";
import { systemFunctions } from "./system.js";
import { timeFunctions } from "./time.js";
import { utilFunctions } from "./utils.js";
import { mappingFunctions } from "./mapping.js";
import { policyFunctions } from "./policy.js";
import { emitFunctionMessage } from "./messages.js";
import type { BuiltinFunction } from "./types.js";
import { COLLECTING_FUNCTIONS, isUnresolvedArgument } from "./unresolved.js";

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
registerFunctions(foldFunctions);
registerFunctions(logicFunctions);
registerFunctions(stringFunctions);
registerFunctions(regexFunctions);
registerFunctions(collectionFunctions);
registerFunctions(fileFunctions);
// After the file family: the readers of lists and data are theirs.
registerFunctions(dataFunctions);
registerFunctions(readerFunctions);
registerFunctions(dataFileFunctions);
registerFunctions(mathFunctions);
registerFunctions(timeFunctions);
registerFunctions(systemFunctions);
registerFunctions(systemTableFunctions);
registerFunctions(networkFunctions);
registerFunctions(utilFunctions);
registerFunctions(policyFunctions);
registerFunctions(expandRangeFunctions);
registerFunctions(fileRuleFunctions);
registerFunctions(mappingFunctions);

/**
 * Functions whose results 3.21 keeps for the rest of the run, keyed by their
 * arguments: they run commands or ask the network, and a policy evaluates
 * its promises many times (passes, pre-evaluation).
 */
const CACHED = new Set([
  "execresult",
  "execresult_as_data",
  "findprocesses",
  "host2ip",
  "ip2host",
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
 * Evaluates a call as 3.21's `FnCallEvaluate`. Undefined when the function
 * is unknown, the arity is wrong, a nested call fails, an argument is still
 * unresolved (the call is postponed to a later pass) or the function fails.
 */
export function callFunction(
  ctx: EvalContext,
  call: FunctionCall,
  options: ExpandOptions,
): Value | undefined {
  const fn = registry.get(expandString(ctx, call.name, options));
  if (!fn || call.args.length < fn.minArgs || call.args.length > fn.maxArgs) return undefined;
  if (ctx.skipUnsafeFunctions && !options.simulateSafe && getFunctionSyntax(fn.name)?.unsafe) {
    emitFunctionMessage(ctx, "warning", fn.name, `Not calling unsafe function '${fn.name}' in simulate mode`);
    return undefined;
  }
  const args = evaluateArguments(ctx, call, fn, options);
  if (!args) return undefined;
  if (fn.minArgs === fn.maxArgs && args.length !== call.args.length) return argumentMismatch(ctx, fn, args);
  if (!fn.acceptsUnresolved && !mayRunUnresolved(call) && args.some(isUnresolvedArgument)) return undefined;
  const fc = { ctx, options, call };
  if (!CACHED.has(fn.name) || options.bypassFunctionCache || !ctx.cacheSystemFunctions)
    return fn.evaluate(args, fc);
  const key = JSON.stringify([fn.name, args]);
  const cached = ctx.functionCache.get(key);
  if (cached) return cached;
  const result = fn.evaluate(args, fc);
  // As in 3.21, only a successful call is remembered.
  if (result) ctx.functionCache.set(key, result);
  return result;
}

/**
 * A function of fixed arity that got another number of arguments once the
 * lists of nested calls were spliced in: fatal in 3.21 ("Bad arguments").
 */
function argumentMismatch(ctx: EvalContext, fn: BuiltinFunction, args: readonly Value[]): undefined {
  const shown = args.map((a) => (isScalar(a) ? `"${a.value}"` : "")).join(",");
  const fatal = (message: string) => emitFunctionMessage(ctx, "fatal", fn.name, message);
  emitFunctionMessage(
    ctx,
    "error",
    fn.name,
    `Argument template mismatch handling function ${fn.name}( {${shown}})`,
  );
  fatal("Fatal CFEngine error: Bad arguments");
  return undefined;
}

/**
 * The arguments, expanded. For a function that does not collect, a list a
 * nested call returns is spliced in item by item and a data container it
 * returns is left out, as 3.21's `RlistAppendAllTypes` does:
 * `and(splitstring(...))` gets the pieces as arguments. (`@(x)` stays one
 * argument: 3.21 passes the reference on for the function to look up.)
 */
function evaluateArguments(
  ctx: EvalContext,
  call: FunctionCall,
  fn: BuiltinFunction,
  options: ExpandOptions,
): Value[] | undefined {
  const collecting = COLLECTING_FUNCTIONS.has(fn.name);
  const args: Value[] = [];
  for (const [i, arg] of call.args.entries()) {
    if (i === fn.delayedArg) {
      args.push(scalar(""));
      continue;
    }
    const value = expandRval(ctx, arg, options);
    if (!value) return undefined;
    if (collecting || arg.kind !== "call" || isScalar(value)) args.push(value);
    else if (isList(value)) for (const item of value.value) args.push(scalar(item));
  }
  return args;
}

/**
 * 3.21 lets ifelse() with three arguments run with unresolved ones (its
 * fallback may stand in), once its condition has been evaluated.
 */
function mayRunUnresolved(call: FunctionCall): boolean {
  return call.name === "ifelse" && call.args.length === 3;
}
