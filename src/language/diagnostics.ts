import type { Span } from "./ast.js";

export type Severity = "error" | "warning";

/**
 * A problem in user policy: data with a place, never an exception.
 * `code` is stable across releases so tools can match on it.
 */
export interface Diagnostic {
  readonly code: DiagnosticCode;
  readonly severity: Severity;
  readonly message: string;
  /** The file the span points into. */
  readonly file: string;
  readonly span: Span;
}

/** Stable identifiers for every kind of diagnostic tend reports. */
export type DiagnosticCode =
  // lexical
  | "unterminated-string"
  | "unexpected-character"
  | "invalid-variable-reference"
  | "macro-error"
  | "identifier-too-long"
  // syntax
  | "syntax-error"
  | "expected-token"
  | "class-guard-whitespace"
  | "invalid-class-expression"
  | "nesting-too-deep"
  // structure
  | "unknown-bundle-type"
  | "unknown-body-type"
  | "unknown-promise-type"
  | "unknown-attribute"
  | "custom-promise-not-agent"
  | "builtin-promise-redefined"
  | "missing-promise-type"
  | "duplicate-definition"
  | "duplicate-handle"
  // values
  | "type-mismatch"
  | "invalid-option"
  | "out-of-range"
  | "quoted-body-reference"
  | "invalid-json"
  | "json-number-conversion"
  | "invalid-regex"
  // references
  | "undefined-body"
  | "undefined-bundle"
  | "wrong-argument-count"
  | "unknown-function"
  | "wrong-function-arity"
  | "undefined-promise-type"
  // semantics
  | "invalid-promise"
  | "deprecated"
  | "unused"
  | "not-implemented"
  // loading
  | "input-not-found"
  | "input-unreadable"
  | "nul-byte"
  | "policy-writable-by-others";

/** A sink that validation and parsing report through. */
export type DiagnosticSink = (diagnostic: Diagnostic) => void;

/** Makes a diagnostic; a small helper so call sites stay one line. */
export function makeDiagnostic(
  file: string,
  span: Span,
  severity: Severity,
  code: DiagnosticCode,
  message: string,
): Diagnostic {
  return { code, severity, message, file, span };
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === "error");
}
