/**
 * Runs one user file through the module loader and turns what goes wrong
 * into diagnostics at the user's line: a syntax error (from esbuild), a
 * throw while the module runs or while its exported function runs, an
 * export of the wrong shape.
 */
import type { CookbookFile, RecipesDiagnostic } from "./model.js";
import { RecipesError } from "./model.js";
import type { ModuleLoader } from "./module-loader.js";

/**
 * What a file's exports must give: nothing to call, a message when they
 * are wrong, or a function to call now (an attribute file's default export).
 */
export type ExportCheck = (exports: Record<string, unknown>) => undefined | string | (() => unknown);

/** Loads `file`, checks its exports, calls what the check returns (awaited). */
export async function runFile(
  file: CookbookFile,
  loader: ModuleLoader,
  check: ExportCheck,
): Promise<Record<string, unknown>> {
  let exports: Record<string, unknown>;
  try {
    exports = await loader.load(file.path);
  } catch (error) {
    throw asRecipesError(error, file, loader);
  }
  const verdict = check(exports);
  if (typeof verdict === "string")
    throw new RecipesError([
      { code: "invalid-export", severity: "error", message: verdict, file: file.path, line: 1, column: 1 },
    ]);
  if (verdict) {
    try {
      await verdict();
    } catch (error) {
      throw asRecipesError(error, file, loader);
    }
  }
  return exports;
}

/** A RecipesError as is; anything thrown by user code placed at its user frame. */
export function asRecipesError(error: unknown, file: CookbookFile, loader: ModuleLoader): RecipesError {
  if (error instanceof RecipesError) return error;
  const at = loader.locate(error) ?? { file: file.path, line: 1, column: 1 };
  const message = error instanceof Error ? `${error.name}: ${error.message}` : `threw ${String(error)}`;
  const d: RecipesDiagnostic = { code: "load-error", severity: "error", message, ...at };
  return new RecipesError([d]);
}
