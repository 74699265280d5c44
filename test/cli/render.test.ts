import assert from "node:assert/strict";
import { test } from "node:test";
import type { Span } from "../../src/language/ast.js";
import { type DiagnosticCode, makeDiagnostic } from "../../src/language/diagnostics.js";
import { SourceFile } from "../../src/language/source.js";
import { expandTabs, renderDiagnostic, renderDiagnostics, renderSummary } from "../../src/cli/render.js";

/** Renders one error at `span` of `text` and returns the lines. */
function render(text: string, span: Span, options = {}): string[] {
  const source = new SourceFile("a.cf", text);
  const d = makeDiagnostic("a.cf", span, "error", "syntax-error", "bad");
  return renderDiagnostic(d, source, options).trimEnd().split("\n");
}

/** The offset of the first `needle` in `text`. */
const at = (text: string, needle: string) => text.indexOf(needle);

test("header gives file, 1-based line and column, severity, message and code", () => {
  const text = "bundle agent main\n{\n  vars: x\n}\n";
  assert.equal(render(text, [at(text, "x"), at(text, "x") + 1])[0], "a.cf:3:9: error: bad [syntax-error]");
});

test("caret sits under the first character, tildes under the rest", () => {
  const text = "line one\n  reports: oops;\n";
  const start = at(text, "oops");
  assert.deepEqual(render(text, [start, start + 4]).slice(1), [
    " 2 |   reports: oops;",
    "   |            ^~~~",
  ]);
});

test("an empty span gets a single caret", () => {
  const text = "abc\n";
  assert.deepEqual(render(text, [1, 1]).slice(1), [" 1 | abc", "   |  ^"]);
});

test("a span at the end of a line points just past its last character", () => {
  const text = "abc\ndef\n";
  assert.deepEqual(render(text, [3, 4]).slice(1), [" 1 | abc", "   |    ^"]);
});

test("a span at the end of the file points after the last line", () => {
  const text = "bundle agent x {";
  assert.deepEqual(render(text, [text.length, text.length]).slice(1), [
    " 1 | bundle agent x {",
    "   |                 ^",
  ]);
});

test("tabs are expanded in the source line and the underline stays aligned", () => {
  const text = '\tvars:\t"x" string => 1;\n';
  const start = at(text, '"x"');
  const lines = render(text, [start, start + 3]);
  assert.equal(lines[1], ' 1 |         vars:   "x" string => 1;');
  assert.equal(lines[2], "   |                 ^~~");
  assert.equal(lines[2].indexOf("^"), lines[1].indexOf('"'));
});

test("tab width is configurable", () => {
  assert.deepEqual(render("\tx\n", [1, 2], { tabWidth: 4 }).slice(1), [" 1 |     x", "   |     ^"]);
});

test("a multi-line span underlines every line it covers", () => {
  const text = "a {\n  b\n  c }\n";
  const lines = render(text, [at(text, "{"), at(text, "}") + 1]);
  assert.deepEqual(lines.slice(1), [
    " 1 | a {",
    "   |   ^",
    " 2 |   b",
    "   |   ~",
    " 3 |   c }",
    "   |   ~~~",
  ]);
});

test("a long span shows its first and last line with an ellipsis between", () => {
  const text = "x {\n1\n2\n3\n4\n5\n}\n";
  const lines = render(text, [at(text, "{"), at(text, "}") + 1]);
  assert.deepEqual(lines.slice(1), [" 1 | x {", "   |   ^", "   ...", " 7 | }", "   | ~"]);
});

test("the gutter widens for line numbers of several digits", () => {
  const text = "\n".repeat(99) + "oops\n";
  assert.deepEqual(render(text, [99, 103]).slice(1), [" 100 | oops", "     | ^~~~"]);
});

test("a diagnostic without source prints only its header", () => {
  const d = makeDiagnostic("missing.cf", [0, 0], "error", "input-not-found", "cannot read");
  assert.equal(renderDiagnostic(d, undefined), "missing.cf: error: cannot read [input-not-found]\n");
});

test("the styler wraps each part and nothing else", () => {
  const style = (s: string, text: string) => `<${s}>${text}</${s}>`;
  const lines = render("abc\n", [0, 1], { style });
  assert.equal(
    lines[0],
    "<location>a.cf:1:1:</location> <error>error:</error> <bold>bad</bold> <code>[syntax-error]</code>",
  );
  assert.equal(lines[2], "<gutter>   | </gutter><underline>^</underline>");
});

test("renderDiagnostics looks up each file's source and separates entries by a blank line", () => {
  const sources = new Map([["a.cf", new SourceFile("a.cf", "x\n")]]);
  const d = (file: string, code: DiagnosticCode) => makeDiagnostic(file, [0, 1], "warning", code, "m");
  const text = renderDiagnostics([d("a.cf", "unused"), d("b.cf", "deprecated")], (f) => sources.get(f));
  assert.equal(text, "a.cf:1:1: warning: m [unused]\n 1 | x\n   | ^\n\nb.cf: warning: m [deprecated]\n\n");
});

test("summary counts errors and warnings", () => {
  const d = (severity: "error" | "warning") => makeDiagnostic("a.cf", [0, 0], severity, "syntax-error", "m");
  assert.equal(renderSummary([d("error"), d("error"), d("warning")]), "2 errors, 1 warning");
  assert.equal(renderSummary([d("warning")]), "1 warning");
  assert.equal(renderSummary([]), "");
});

test("expandTabs moves to the next tab stop", () => {
  assert.equal(expandTabs("ab\tc", 4), "ab  c");
  assert.equal(expandTabs("abcd\te", 4), "abcd    e");
});
