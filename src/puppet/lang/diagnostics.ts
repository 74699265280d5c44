/**
 * Problems found while lexing and parsing Puppet code, as data. Messages are
 * Puppet 7's own wording (pops/issues.rb) so that a user sees what Puppet
 * would have said; `code` is Puppet's issue code.
 */
import type { Locator } from "./locator.js";

export type PuppetIssueCode =
  | "SYNTAX_ERROR"
  | "UNCLOSED_QUOTE"
  | "UNCLOSED_MLCOMMENT"
  | "ILLEGAL_FULLY_QUALIFIED_CLASS_REFERENCE"
  | "ILLEGAL_FULLY_QUALIFIED_NAME"
  | "ILLEGAL_NAME_OR_BARE_WORD"
  | "ILLEGAL_CLASS_REFERENCE"
  | "ILLEGAL_NUMBER"
  | "INVALID_HEX_NUMBER"
  | "INVALID_OCTAL_NUMBER"
  | "INVALID_DECIMAL_NUMBER"
  | "HEREDOC_UNCLOSED_PARENTHESIS"
  | "HEREDOC_INVALID_SYNTAX"
  | "HEREDOC_EMPTY_ENDTAG"
  | "HEREDOC_MULTIPLE_AT_ESCAPES"
  | "HEREDOC_INVALID_ESCAPE"
  | "HEREDOC_WITHOUT_TEXT"
  | "HEREDOC_WITHOUT_END_TAGGED_LINE"
  | "EPP_UNBALANCED_TAG"
  | "EPP_UNBALANCED_EXPRESSION"
  | "EPP_UNBALANCED_COMMENT"
  | "ILLEGAL_UNICODE_ESCAPE"
  | "UNRECOGNIZED_ESCAPE"
  | "ILLEGAL_BOM"
  | "PARSE_ERROR";

export interface PuppetDiagnostic {
  severity: "error" | "warning";
  code: PuppetIssueCode;
  message: string;
  /** Where: undefined when Puppet gives no position (end of input, a byte order mark). */
  offset: number | undefined;
}

/** A fatal problem: lexing and parsing stop at the first, as Puppet's do. */
export class PuppetSyntaxError extends Error {
  constructor(
    readonly code: PuppetIssueCode,
    message: string,
    readonly offset: number | undefined,
  ) {
    super(message);
    this.name = "PuppetSyntaxError";
  }
}

/**
 * A diagnostic as Puppet prints it: the message, then `(file: F, line: L,
 * column: C)` with whichever parts are known (`(line: L, column: C)` for a
 * string given with -e, `(file: F)` at end of input).
 */
export function formatPuppetDiagnostic(d: PuppetDiagnostic, locator: Locator): string {
  const parts: string[] = [];
  if (locator.file !== "") parts.push(`file: ${locator.file}`);
  if (d.offset !== undefined) {
    const { line, column } = locator.position(d.offset);
    parts.push(`line: ${line}`, `column: ${column}`);
  }
  return parts.length === 0 ? d.message : `${d.message} (${parts.join(", ")})`;
}

/**
 * `file:line:col: message` (the form tend's other front ends print); where
 * Puppet gives no position, the end of the input (or its start, for a byte
 * order mark).
 */
export function formatDiagnosticLine(d: PuppetDiagnostic, locator: Locator): string {
  const where = locator.file === "" ? "<command line>" : locator.file;
  const offset = d.offset ?? (d.code === "ILLEGAL_BOM" ? 0 : locator.text.length);
  const { line, column } = locator.position(offset);
  return `${where}:${line}:${column}: ${d.message}`;
}
