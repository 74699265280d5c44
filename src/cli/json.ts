/**
 * `--json` output of `tend check`: the result as data, with line and column
 * worked out for each diagnostic so that consumers need not read the source.
 */
import type { CheckResult } from "../check/check.js";
import type { Diagnostic } from "../language/diagnostics.js";
import type { Position, SourceFile } from "../language/source.js";

export interface JsonDiagnostic {
  readonly code: string;
  readonly severity: string;
  readonly message: string;
  readonly file: string;
  /** `[start, end)` offsets into the file's text. */
  readonly span: readonly [number, number];
  /** 1-based; null when the file could not be read. */
  readonly start: Position | null;
  readonly end: Position | null;
}

export interface JsonCheckResult {
  readonly valid: boolean;
  readonly files: readonly string[];
  readonly errors: number;
  readonly warnings: number;
  readonly diagnostics: readonly JsonDiagnostic[];
}

function toJson(d: Diagnostic, source: SourceFile | undefined): JsonDiagnostic {
  return {
    code: d.code,
    severity: d.severity,
    message: d.message,
    file: d.file,
    span: [d.span[0], d.span[1]],
    start: source ? source.positionAt(d.span[0]) : null,
    end: source ? source.positionAt(d.span[1]) : null,
  };
}

export function diagnosticsToJson(result: CheckResult): JsonCheckResult {
  const sources = new Map(result.set.files.map((f) => [f.source.path, f.source]));
  return {
    valid: result.valid,
    files: result.set.files.map((f) => f.source.path),
    errors: result.diagnostics.filter((d) => d.severity === "error").length,
    warnings: result.diagnostics.filter((d) => d.severity === "warning").length,
    diagnostics: result.diagnostics.map((d) => toJson(d, sources.get(d.file))),
  };
}
