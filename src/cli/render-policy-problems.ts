/**
 * The errors of a policy the agent cannot run, rendered with their source
 * lines as `tend check` shows them (warnings are for `tend check`).
 */
import type { Diagnostic } from "../language/diagnostics.js";
import { SourceFile } from "../language/source.js";
import { readPolicyFile } from "../loader/read-policy.js";
import { renderDiagnostics } from "./render.js";

export function renderPolicyProblems(diagnostics: readonly Diagnostic[]): string {
  const errors = diagnostics.filter((d) => d.severity === "error");
  const sources = new Map<string, SourceFile>();
  for (const d of errors) {
    if (sources.has(d.file)) continue;
    // Unreadable (or not a regular file): the message goes without a source line.
    const read = readPolicyFile(d.file);
    if (read.ok) sources.set(d.file, new SourceFile(d.file, read.text));
  }
  return renderDiagnostics(errors, (file) => sources.get(file), {});
}
