/**
 * Checks of function calls anywhere in values: that the function exists and
 * gets the number of arguments it takes.
 *
 * cf-promises itself evaluates some calls while loading (vars promises,
 * classes promises of common bundles, control bodies); a wrong argument
 * count there makes it fail, so tend reports an error for calls it can tell
 * are evaluated unconditionally. Elsewhere a wrong call fails only when
 * cf-agent reaches it, so it is a warning.
 */
import type { FunctionCall, Rval } from "../ast.js";
import type { Severity } from "../diagnostics.js";
import { getFunction } from "../syntax/index.js";
import type { FunctionSyntax } from "../syntax/types.js";
import type { ValidationContext } from "./context.js";
import { checkJsonNumbers } from "./json-numbers.js";
import { checkScalar, getScalarText, isScalar, unknownFunction } from "./values.js";

/** How a value's calls are treated. */
export interface CallPlace {
  readonly file: string;
  /** Whether cf-promises evaluates this value while loading. */
  readonly evaluatedAtLoad: boolean;
  /** Whether the value's own top-level calls were already checked for existence. */
  readonly topLevelChecked: boolean;
  /** Whether top-level calls name parameterised bodies or bundles rather than functions. */
  readonly topLevelIsReference: boolean;
}

/** Checks every call in a value. */
export function checkCalls(value: Rval, place: CallPlace, ctx: ValidationContext): void {
  const items = value.kind === "list" ? value.items : [value];
  for (const item of items) {
    if (item.kind !== "call") continue;
    if (!place.topLevelIsReference) checkCall(item, place, true, ctx);
    else for (const arg of item.args) if (arg.kind === "call") checkCall(arg, place, false, ctx);
  }
}

function checkCall(call: FunctionCall, place: CallPlace, topLevel: boolean, ctx: ValidationContext): void {
  const fn = getFunction(call.name);
  if (!fn) {
    if (!(topLevel && place.topLevelChecked)) {
      const found = unknownFunction(call.name, call.nameSpan);
      ctx.report(
        "warning",
        found.code,
        `${found.message} (cf-agent will fail to evaluate it)`,
        found.span,
        place.file,
      );
    }
    return;
  }
  checkArity(call, fn.parameters.length, fn.variadic, place, ctx);
  checkArguments(call, fn, place, ctx);
  if (call.name === "parsejson" && call.args[0]?.kind === "string") {
    // Its result is copied into a variable: cf-promises stops where it evaluates the call, cf-agent too.
    checkJsonNumbers(
      call.args[0].value,
      call.args[0].span,
      place.evaluatedAtLoad ? "error" : "warning",
      place.file,
      ctx,
    );
  }
  if (fn.delayedEvaluation) return;
  for (const arg of call.args) if (arg.kind === "call") checkCall(arg, place, false, ctx);
}

/** Literal arguments must fit the parameter's type and range; 3.21 checks this before calling. */
function checkArguments(
  call: FunctionCall,
  fn: FunctionSyntax,
  place: CallPlace,
  ctx: ValidationContext,
): void {
  const count = Math.min(call.args.length, fn.parameters.length);
  for (let i = 0; i < count; i++) {
    const arg = call.args[i];
    if (!isScalar(arg)) continue;
    const found = checkScalar(argumentSlot(fn, i, call.name), getScalarText(arg), arg.span);
    if (found)
      ctx.report(
        place.evaluatedAtLoad ? "error" : "warning",
        found.code,
        found.message,
        found.span,
        place.file,
      );
  }
}

/** A parameter as the value checks take it: the same object for each call of the function. */
function makeArgumentSlot(fn: FunctionSyntax, i: number, called: string) {
  return {
    ...fn.parameters[i],
    name: fn.name,
    status: "normal",
    visibility: "global",
    label: `argument ${i + 1} of ${called}()`,
  } as const;
}

const argumentSlots = new WeakMap<FunctionSyntax, ReturnType<typeof makeArgumentSlot>[]>();

function argumentSlot(fn: FunctionSyntax, i: number, called: string): ReturnType<typeof makeArgumentSlot> {
  if (called !== fn.name) return makeArgumentSlot(fn, i, called);
  let slots = argumentSlots.get(fn);
  if (slots === undefined) {
    slots = [];
    argumentSlots.set(fn, slots);
  }
  slots[i] ??= makeArgumentSlot(fn, i, called);
  return slots[i];
}

/**
 * Fixed-arity functions must get exactly their parameters. Variadic ones are
 * left alone: their tables list optional parameters too, and each checks
 * its own minimum when called.
 */
function checkArity(
  call: FunctionCall,
  count: number,
  variadic: boolean,
  place: CallPlace,
  ctx: ValidationContext,
): void {
  const given = call.args.length;
  if (variadic || given === count) return;
  const message = `function ${call.name}() takes ${count} argument${count === 1 ? "" : "s"}, but ${given} ${given === 1 ? "is" : "are"} given`;
  const severity: Severity = place.evaluatedAtLoad ? "error" : "warning";
  ctx.report(severity, "wrong-function-arity", message, call.span, place.file);
}
