/**
 * The errors of a policy the agent cannot run, rendered with their source
 * lines as `tend check` shows them (warnings are for `tend check`).
 */
import { readFileSync } from "node:fs";
import type { Diagnostic } from "../language/diagnostics.js";
import { SourceFile } from "../language/source.js";
import { renderDiagnostics } from "./render.js";

export function renderPolicyProblems(diagnostics: readonly Diagnostic[]): string {
  const errors = diagnostics.filter((d) => d.severity === "error");
  const sources = new Map<string, SourceFile>();
  for (const d of errors) {
    if (sources.has(d.file)) continue;
    try {
      sources.set(d.file, new SourceFile(d.file, readFileSync(d.file, "utf8")));
    } catch {
      // The renderer shows the message without a source line.
    }
  }
  return renderDiagnostics(errors, (file) => sources.get(file), {});
}
