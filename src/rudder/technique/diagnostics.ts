/**
 * Problems in a technique (YAML) or in a method library: data with a place,
 * collected rather than thrown, rendered as `file:line:col: error: message`.
 */

export type TechniqueSeverity = "error" | "warning";

/** Stable identifiers for every problem the technique front end reports. */
export type TechniqueDiagnosticCode =
  | "yaml-syntax"
  | "wrong-type"
  | "missing-field"
  | "unknown-field"
  | "invalid-value"
  | "invalid-condition"
  | "unknown-method"
  | "missing-parameter"
  | "unexpected-parameter"
  | "invalid-parameter"
  | "duplicate-id"
  | "duplicate-parameter"
  | "unknown-focus-id"
  | "deprecated-method"
  | "generated-id"
  | "control-character"
  | "unreadable-file";

export interface TechniqueDiagnostic {
  readonly code: TechniqueDiagnosticCode;
  readonly severity: TechniqueSeverity;
  readonly message: string;
  readonly file: string;
  /** 1-based line and column of the offending text. */
  readonly line: number;
  readonly column: number;
}

/** Renders one diagnostic the way compilers do: `file:line:col: error: message`. */
export function formatTechniqueDiagnostic(d: TechniqueDiagnostic): string {
  return `${d.file}:${d.line}:${d.column}: ${d.severity}: ${d.message}`;
}

export function hasTechniqueErrors(diagnostics: readonly TechniqueDiagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === "error");
}

/** Turns byte offsets into 1-based line/column, building the line table once. */
export class LineMap {
  private readonly starts: number[] = [0];

  constructor(text: string) {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.starts.push(i + 1);
  }

  position(offset: number): { line: number; column: number } {
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((this.starts[mid] as number) <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: offset - (this.starts[low] as number) + 1 };
  }
}

/** Collects diagnostics for one file, placing offsets through its line map. */
export class DiagnosticSink {
  readonly diagnostics: TechniqueDiagnostic[] = [];

  constructor(
    readonly file: string,
    private readonly lines: LineMap,
  ) {}

  error(code: TechniqueDiagnosticCode, offset: number, message: string): void {
    this.add("error", code, offset, message);
  }

  warning(code: TechniqueDiagnosticCode, offset: number, message: string): void {
    this.add("warning", code, offset, message);
  }

  private add(
    severity: TechniqueSeverity,
    code: TechniqueDiagnosticCode,
    offset: number,
    message: string,
  ): void {
    const { line, column } = this.lines.position(offset);
    this.diagnostics.push({ code, severity, message, file: this.file, line, column });
  }
}
