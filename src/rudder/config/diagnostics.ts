/**
 * Problems found in a Rudder configuration directory: data with a file and
 * a position, rendered `file:line:col: severity: message` by the CLI.
 * Loading collects them and goes on with what it could read.
 */

export type Severity = "error" | "warning";

export interface ConfigDiagnostic {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly severity: Severity;
  readonly message: string;
}

/** `file:line:col: error: message` */
export function formatDiagnostic(d: ConfigDiagnostic): string {
  return `${d.file}:${d.line}:${d.column}: ${d.severity}: ${d.message}`;
}

/** True when one of `diagnostics` is an error. */
export function hasErrors(diagnostics: readonly ConfigDiagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === "error");
}

/** The 1-based line and column of `offset` in `text`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: end - start + 1 };
}

/** Collects diagnostics for one file at a time. */
export class DiagnosticBag {
  readonly items: ConfigDiagnostic[] = [];

  add(file: string, line: number, column: number, severity: Severity, message: string): void {
    this.items.push({ file, line, column, severity, message });
  }

  error(file: string, line: number, column: number, message: string): void {
    this.add(file, line, column, "error", message);
  }

  warning(file: string, line: number, column: number, message: string): void {
    this.add(file, line, column, "warning", message);
  }
}
