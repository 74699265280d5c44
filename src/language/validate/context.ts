import type { Body, Bundle, CustomPromiseBlock, Span } from "../ast.js";
import type { DiagnosticCode, Severity } from "../diagnostics.js";

/** The one callback every check reports through. */
export type Report = (
  severity: Severity,
  code: DiagnosticCode,
  message: string,
  span: Span,
  file: string,
) => void;

/** A block together with the file it was written in. */
export interface Located<T> {
  readonly node: T;
  readonly file: string;
}

/** What the checks need to know about the whole policy set. */
export interface PolicyIndex {
  readonly bundles: readonly Located<Bundle>[];
  readonly bodies: readonly Located<Body>[];
  readonly promiseBlocks: readonly Located<CustomPromiseBlock>[];
  /** The file the policy was loaded from (the first of the set), or null for an empty set. */
  readonly entryFile: string | null;
  /** Names declared by `promise agent NAME` anywhere in the set. */
  readonly customPromiseTypes: ReadonlySet<string>;
}

export interface ValidationContext {
  readonly report: Report;
  readonly index: PolicyIndex;
  /** `cf-promises -c`: run the whole-policy checks even without `body common control`. */
  readonly fullCheck: boolean;
}

/** Whether a string contains a variable reference `$(..)`, `${..}`, `@(..)` or `@{..}`. */
export function hasVariable(text: string): boolean {
  return /[$@][({]/.test(text);
}

/** Whether a string is exactly one variable reference, like `$(x)` or `@{a.b}`. */
export function isNakedVariable(text: string): boolean {
  if (text.length < 4) return false;
  const open = text[1];
  const close = open === "(" ? ")" : open === "{" ? "}" : "";
  if ((text[0] !== "$" && text[0] !== "@") || close === "" || !text.endsWith(close)) return false;
  let depth = 0;
  for (let i = 1; i < text.length; i++) {
    const c = text[i];
    if (c === "(" || c === "{") depth++;
    else if (c === ")" || c === "}") depth--;
    if (depth === 0 && i < text.length - 1) return false;
  }
  return depth === 0;
}

/** Quotes a name for a message. */
export function quote(text: string): string {
  return `'${text}'`;
}

/** Lists choices for a message, shortened when long. */
export function listChoices(choices: readonly string[], max = 12): string {
  const shown = choices.slice(0, max).join(", ");
  return choices.length > max ? `${shown}, ... (${choices.length} in all)` : shown;
}
