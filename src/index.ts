/**
 * tend's library API: parse, load, validate, check and format CFEngine 3.21
 * policy. Nothing here prints; problems in policy come back as diagnostics.
 */
export type * from "./language/ast.js";
export { type CheckOptions, type CheckResult, checkPolicy } from "./check/check.js";
export { type Diagnostic, type DiagnosticCode, hasErrors, type Severity } from "./language/diagnostics.js";
export { type ParseResult, parse, parseText } from "./language/parser.js";
export type { ParsedFile, PolicySet } from "./language/policy-set.js";
export { formatPolicy } from "./language/print/cf.js";
export { policyToJson } from "./language/print/json.js";
export { type Position, SourceFile } from "./language/source.js";
export { describeSyntax } from "./language/syntax/index.js";
export { type ValidateOptions, validatePolicy } from "./language/validate/index.js";
export { type LoadOptions, type LoadResult, loadPolicy } from "./loader/load.js";
