/**
 * Turns diagnostics into text for a terminal: a header line
 * `file:line:col: error: message [code]`, then the source lines the span
 * covers with a gutter of line numbers and a `^~~~` underline.
 *
 * Pure: it reads nothing and writes nothing; colour is applied through an
 * injected styler so that tests compare plain text.
 */
import type { Diagnostic, Severity } from "../language/diagnostics.js";
import type { SourceFile } from "../language/source.js";

/** The styles the renderer asks for; the CLI maps them to ANSI codes. */
export type Style = "error" | "warning" | "location" | "underline" | "gutter" | "code" | "bold";

export type Styler = (style: Style, text: string) => string;

export interface RenderOptions {
  /** Applies colour; the default leaves text plain. */
  readonly style?: Styler;
  /** Columns between tab stops when tabs in source lines are expanded. */
  readonly tabWidth?: number;
  /** Spans covering more lines than this show only their first and last line. */
  readonly maxSpanLines?: number;
}

/** Looks up the source of a diagnostic's file; absent sources print the header only. */
export type SourceLookup = (file: string) => SourceFile | undefined;

const plain: Styler = (_style, text) => text;

/** Renders every diagnostic, each followed by a blank line, in the order given. */
export function renderDiagnostics(
  diagnostics: readonly Diagnostic[],
  lookup: SourceLookup,
  options: RenderOptions = {},
): string {
  return diagnostics.map((d) => renderDiagnostic(d, lookup(d.file), options) + "\n").join("");
}

/** Renders one diagnostic; the result ends with a newline. */
export function renderDiagnostic(
  diagnostic: Diagnostic,
  source: SourceFile | undefined,
  options: RenderOptions = {},
): string {
  const style = options.style ?? plain;
  const header = renderHeader(diagnostic, source, style);
  if (!source) return header + "\n";
  return header + "\n" + renderExcerpt(diagnostic, source, options) + "\n";
}

function renderHeader(d: Diagnostic, source: SourceFile | undefined, style: Styler): string {
  let location = d.file;
  if (source) {
    const at = source.positionAt(d.span[0]);
    location += `:${at.line}:${at.column}`;
  }
  const severity = style(d.severity, d.severity + ":");
  return `${style("location", location + ":")} ${severity} ${style("bold", d.message)} ${style("code", `[${d.code}]`)}`;
}

interface ExcerptLine {
  readonly number: number;
  /** Underline from this 0-based column (before tab expansion)... */
  readonly from: number;
  /** ...to this one, exclusive. */
  readonly to: number;
  /** Whether the span starts on this line (it gets the `^`). */
  readonly first: boolean;
}

function renderExcerpt(d: Diagnostic, source: SourceFile, options: RenderOptions): string {
  const style = options.style ?? plain;
  const tabWidth = options.tabWidth ?? 8;
  const lines = coveredLines(d, source, options.maxSpanLines ?? 4);
  const width = String(lines[lines.length - 1].number).length;
  const gutter = (label: string) => style("gutter", `${label.padStart(width + 1)} | `);
  const out: string[] = [];
  let previous = lines[0].number - 1;
  for (const line of lines) {
    if (line.number > previous + 1) out.push(style("gutter", `${" ".repeat(width + 1)} ...`));
    previous = line.number;
    const text = source.lineText(line.number);
    out.push(gutter(String(line.number)) + expandTabs(text, tabWidth));
    const { lead, marks } = underline(text, line, tabWidth);
    out.push(gutter("") + " ".repeat(lead) + style("underline", marks));
  }
  return out.map((s) => s.trimEnd()).join("\n");
}

/** The lines a span touches; long spans keep only their first and last line. */
function coveredLines(d: Diagnostic, source: SourceFile, maxSpanLines: number): ExcerptLine[] {
  const [start, end] = d.span;
  const from = source.positionAt(start);
  // An empty span, or one ending just after a newline, is drawn on its start line.
  const to = end > start ? source.positionAt(end - 1) : from;
  const result: ExcerptLine[] = [];
  for (let n = from.line; n <= to.line; n++) {
    if (to.line - from.line + 1 > maxSpanLines && n !== from.line && n !== to.line) continue;
    const length = source.lineText(n).length;
    const begin = n === from.line ? from.column - 1 : firstNonBlank(source.lineText(n));
    const last = n === to.line;
    const stop = end === start ? begin + 1 : last ? to.column : Math.max(length, begin + 1);
    result.push({ number: n, from: begin, to: Math.max(stop, begin + 1), first: n === from.line });
  }
  return result;
}

function firstNonBlank(text: string): number {
  const match = /\S/.exec(text);
  return match ? match.index : 0;
}

/**
 * The `^~~~` for one source line, aligned with the tab-expanded text: `lead`
 * spaces, then the marks. Columns past the end of the line (a span at a line
 * break or the end of the file) count one each.
 */
function underline(text: string, line: ExcerptLine, tabWidth: number): { lead: number; marks: string } {
  const beyond = (column: number) => Math.max(0, column - text.length);
  const lead = displayWidth(text.slice(0, line.from), tabWidth) + beyond(line.from);
  const stop = displayWidth(text.slice(0, line.to), tabWidth) + beyond(line.to);
  const count = Math.max(1, stop - lead);
  return { lead, marks: (line.first ? "^" : "~") + "~".repeat(count - 1) };
}

/** Columns a text occupies once tabs are expanded. */
function displayWidth(text: string, tabWidth: number): number {
  return expandTabs(text, tabWidth).length;
}

/** Replaces tabs by spaces up to the next tab stop. */
export function expandTabs(text: string, tabWidth: number): string {
  if (!text.includes("\t")) return text;
  let out = "";
  for (const ch of text) {
    if (ch === "\t") out += " ".repeat(tabWidth - (out.length % tabWidth));
    else out += ch;
  }
  return out;
}

/** A one-line tally such as `2 errors, 1 warning`, or "" when there is nothing to count. */
export function renderSummary(diagnostics: readonly Diagnostic[]): string {
  const count = (severity: Severity) => diagnostics.filter((d) => d.severity === severity).length;
  const parts: string[] = [];
  const errors = count("error");
  const warnings = count("warning");
  if (errors) parts.push(`${errors} error${errors === 1 ? "" : "s"}`);
  if (warnings) parts.push(`${warnings} warning${warnings === 1 ? "" : "s"}`);
  return parts.join(", ");
}
