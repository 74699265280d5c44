/**
 * Checks generated technique policy with tend's own CFEngine front end: it
 * must parse, and validate as a file of bundles (references to ncf's
 * bundles are not resolved here: ncf is loaded beside it at run time).
 */
import type { Diagnostic } from "../../language/diagnostics.js";
import { parseText } from "../../language/parser.js";
import { SourceFile } from "../../language/source.js";
import { validatePolicy } from "../../language/validate/index.js";

/** The errors tend's parser and validator find in `text`; empty when it is sound. */
export function checkGeneratedPolicy(text: string, path: string): Diagnostic[] {
  const { policy, diagnostics } = parseText(text, path);
  const source = new SourceFile(path, text);
  const validation = validatePolicy({ files: [{ source, policy }] });
  return [...diagnostics, ...validation].filter((d) => d.severity === "error");
}
