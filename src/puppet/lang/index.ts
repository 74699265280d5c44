/**
 * The Puppet 7 language front: parse a manifest or an EPP template into the
 * syntax tree of ast.ts, render it as Puppet's PN JSON (`puppet parser dump
 * --format json`), and format diagnostics as Puppet does.
 */
export type * from "./ast.js";
export { formatDiagnosticLine, formatPuppetDiagnostic, type PuppetDiagnostic } from "./diagnostics.js";
export { Locator, type Position } from "./locator.js";
export { type ParseOptions, type ParseResult, parsePuppet, TOO_DEEP } from "./parser.js";
export { type PnData, renderPnJson, renderPnText, toPn } from "./pn.js";
export {
  formatValidationLine,
  label,
  type ValidationDiagnostic,
  type ValidationSeverity,
  validatePuppet,
} from "./validate.js";
