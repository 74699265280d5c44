/**
 * The Puppet language corpus (test/fixtures/puppet-lang): every input with
 * what Puppet 7.23 made of it (recorded.json, from
 * scripts/record-puppet-parser.rb), compared with tend's parse. An input
 * passes when tend prints the same PN JSON as `puppet parser dump --format
 * json` (before validation), or fails with the same message at the same
 * line and column. Inputs Puppet itself cannot dump (its PN transformer
 * crashes on `*$rest` parameters) are counted apart.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parsePuppet, renderPnJson, toPn, validatePuppet } from "../../../src/puppet/lang/index.js";

export const corpusDir = fileURLToPath(new URL("../../../../test/fixtures/puppet-lang/", import.meta.url));

export interface RecordedError {
  message: string;
  line: number | null;
  column: number | null;
  code: string | null;
}

export interface Recorded {
  pn?: string;
  syntax_error?: RecordedError;
  validation?: RecordedError;
  /** Every diagnostic of Puppet's validator, in order (severity "crash" when the validator itself failed). */
  diagnostics?: RecordedDiagnostic[];
  crash?: string;
}

export interface RecordedDiagnostic {
  severity: string;
  code?: string;
  message: string;
  line?: number | null;
  column?: number | null;
}

export type Verdict =
  | { input: string; status: "pass" }
  | { input: string; status: "skip"; why: string }
  | { input: string; status: "fail"; expected: string; actual: string };

export function loadRecorded(): Record<string, Recorded> {
  return JSON.parse(readFileSync(join(corpusDir, "recorded.json"), "utf8")) as Record<string, Recorded>;
}

export function readInput(input: string): string {
  return readFileSync(join(corpusDir, "inputs", input), "utf8");
}

/** tend's result for one input, in the recorded form's terms. */
export function tendResult(input: string, text: string): string {
  const result = parsePuppet(text, { epp: input.endsWith(".epp") });
  if (result.ok) return renderPnJson(toPn(result.program));
  const { line, column } =
    result.error.offset === undefined
      ? { line: null, column: null }
      : result.locator.position(result.error.offset);
  return `error: ${result.error.message} @ ${line}:${column}`;
}

export function expectedResult(recorded: Recorded): string | undefined {
  if (recorded.pn !== undefined) return recorded.pn;
  const e = recorded.syntax_error;
  if (e) return `error: ${e.message} @ ${e.line}:${e.column}`;
  return undefined;
}

export function judge(input: string, recorded: Recorded): Verdict {
  const expected = expectedResult(recorded);
  if (expected === undefined) return { input, status: "skip", why: recorded.crash ?? "nothing recorded" };
  const actual = tendResult(input, readInput(input));
  return actual === expected ? { input, status: "pass" } : { input, status: "fail", expected, actual };
}

function renderDiagnostics(
  list: { severity: string; code?: string; message: string; line?: number | null; column?: number | null }[],
): string {
  return list.map((d) => `${d.severity} ${d.code} @ ${d.line}:${d.column}: ${d.message}`).join("\n");
}

/** tend's validation diagnostics of one input, in the recorded form's terms. */
export function tendValidation(input: string, text: string): string {
  const result = parsePuppet(text, { epp: input.endsWith(".epp") });
  if (!result.ok) return `syntax error: ${result.error.message}`;
  const locator = result.program.locator;
  return renderDiagnostics(
    validatePuppet(result.program).map((d) => ({ ...d, ...locator.position(d.offset) })),
  );
}

/**
 * Compares tend's validation of an input Puppet parsed with every
 * diagnostic Puppet's validator reported (same severities, issue codes,
 * messages, lines and columns, in the same order). Inputs where Puppet's
 * validator itself failed (it does on `${true}`-style names and on heredoc
 * text it cannot check) are skipped.
 */
export function judgeValidation(input: string, recorded: Recorded): Verdict {
  const expected = recorded.diagnostics;
  if (expected === undefined) return { input, status: "skip", why: "not parsed by Puppet" };
  if (expected.some((d) => d.severity === "crash"))
    return { input, status: "skip", why: `Puppet's validator fails: ${expected[0]?.message}` };
  const want = renderDiagnostics(expected);
  const actual = tendValidation(input, readInput(input));
  return actual === want ? { input, status: "pass" } : { input, status: "fail", expected: want, actual };
}
