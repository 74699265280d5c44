/** Checks of class guards `expr::` in bundles and bodies. */
import type { ClassGuard } from "../ast.js";
import { findClassExpressionError } from "./class-expressions.js";
import type { ValidationContext } from "./context.js";

/** Reports a guard whose expression 3.21 cannot parse (quoted guards are read at run time). */
export function checkGuard(guard: ClassGuard | null, file: string, ctx: ValidationContext): void {
  if (!guard || guard.quoted) return;
  const at = findClassExpressionError(guard.expression);
  if (at === -1) return;
  const start = guard.span[0] + Math.min(at, guard.expression.length);
  const message = `class guard '${guard.expression}::' is not a valid class expression (problem at character ${at + 1}); combine class names with '.', '&', '|', '!' and balanced parentheses`;
  ctx.report("error", "invalid-class-expression", message, [start, Math.max(start + 1, guard.span[1])], file);
}
