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
import type { ValidationContext } from "./context.js";
import { unknownFunction } from "./values.js";

/** How a value's calls are treated. */
export interface CallPlace {
  readonly file: string;
  /** Whether cf-promises evaluates this value while loading. */
  readonly evaluatedAtLoad: boolean;
  /** Whether the value's own top-level calls were already checked for existence. */
  readonly topLevelChecked: boolean;
}

/** Checks every call in a value. */
export function checkCalls(value: Rval, place: CallPlace, ctx: ValidationContext): void {
  if (value.kind === "call") checkCall(value, place, true, ctx);
  else if (value.kind === "list") {
    for (const item of value.items) if (item.kind === "call") checkCall(item, place, true, ctx);
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
  if (fn.delayedEvaluation) return;
  for (const arg of call.args) if (arg.kind === "call") checkCall(arg, place, false, ctx);
}

function checkArity(
  call: FunctionCall,
  count: number,
  variadic: boolean,
  place: CallPlace,
  ctx: ValidationContext,
): void {
  const given = call.args.length;
  if (variadic ? given >= count : given === count) return;
  const wanted = variadic ? `at least ${count}` : `${count}`;
  const message = `function ${call.name}() takes ${wanted} argument${count === 1 ? "" : "s"}, but ${given} ${given === 1 ? "is" : "are"} given`;
  const severity: Severity = place.evaluatedAtLoad && !variadic ? "error" : "warning";
  ctx.report(severity, "wrong-function-arity", message, call.span, place.file);
}
