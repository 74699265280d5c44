import type { Rval } from "../../src/language/ast.js";
import { parseText } from "../../src/language/parser.js";
import { EvalContext } from "../../src/eval/context.js";
import { type Value, list, scalar } from "../../src/eval/values.js";
import { parseVarRef } from "../../src/eval/var-ref.js";

/** A context with a bundle frame `default:main` and some variables. */
export function makeContext(vars: Record<string, Value | string | string[]> = {}): EvalContext {
  const ctx = new EvalContext();
  ctx.pushFrame("default", "main");
  for (const [name, value] of Object.entries(vars)) {
    const v = typeof value === "string" ? scalar(value) : Array.isArray(value) ? list(value) : value;
    ctx.setVariable(parseVarRef(name), v);
  }
  return ctx;
}

/** The rval of `"x" string => RVAL;` parsed from policy text. */
export function rval(text: string): Rval {
  const { policy, diagnostics } = parseText(`bundle agent t { vars: "x" string => ${text}; }`);
  if (diagnostics.length > 0) throw new Error(diagnostics.map((d) => d.message).join("; "));
  const bundle = policy.blocks[0];
  if (bundle.kind !== "bundle") throw new Error("no bundle");
  return bundle.sections[0].groups[0].promises[0].attributes[0].value;
}
