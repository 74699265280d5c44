import assert from "node:assert/strict";
import { test } from "node:test";
import { lex } from "../../../src/puppet/lang/lexer.js";
import {
  Locator,
  formatDiagnosticLine,
  parsePuppet,
  renderPnJson,
  toPn,
} from "../../../src/puppet/lang/index.js";
import type { Expression, Program } from "../../../src/puppet/lang/index.js";

const kinds = (code: string) => lex(code).tokens.map((t) => t.kind);
function parse(code: string): Program {
  const r = parsePuppet(code);
  if (!r.ok) assert.fail(r.error.message);
  return r.program;
}
const dump = (code: string, epp = false) => {
  const r = parsePuppet(code, { epp });
  return r.ok ? renderPnJson(toPn(r.program)) : `error: ${r.error.message}`;
};

test("lexer: context decides [ ( { and /", () => {
  assert.deepEqual(kinds("$a[1] $a [1]"), [
    "VARIABLE",
    "LBRACK",
    "NUMBER",
    "RBRACK",
    "VARIABLE",
    "LISTSTART",
    "NUMBER",
    "RBRACK",
  ]);
  assert.deepEqual(kinds("f(1)\n(2)"), [
    "NAME",
    "LPAREN",
    "NUMBER",
    "RPAREN",
    "WSLPAREN",
    "NUMBER",
    "RPAREN",
  ]);
  assert.deepEqual(kinds("$a ? {"), ["VARIABLE", "QMARK", "SELBRACE"]);
  assert.deepEqual(kinds("$a / 2 =~ /x/"), ["VARIABLE", "DIV", "NUMBER", "MATCH", "REGEX"]);
  assert.deepEqual(kinds("<| |> <<| |>> -> ~> <- <~ += -= +> =>"), [
    "LCOLLECT",
    "RCOLLECT",
    "LLCOLLECT",
    "RRCOLLECT",
    "IN_EDGE",
    "IN_EDGE_SUB",
    "OUT_EDGE",
    "OUT_EDGE_SUB",
    "APPENDS",
    "DELETES",
    "PARROW",
    "FARROW",
  ]);
});

test("lexer: strings are decoded and split around interpolation", () => {
  const t = lex('"a$' + '{x}b$y"').tokens;
  assert.deepEqual(
    t.map((x) => [x.kind, x.value]),
    [
      ["DQPRE", "a"],
      ["VARIABLE", "x"],
      ["DQMID", "b"],
      ["VARIABLE", "y"],
      ["DQPOST", ""],
    ],
  );
  assert.equal(lex("'a\\'b\\\\c\\n'").tokens[0]?.value, "a'b\\c\\n");
  assert.equal(lex('"\\u{1F600}\\t\\$"').tokens[0]?.value, "😀\t$");
});

test("lexer: heredoc text comes from the following lines, margin removed", () => {
  const t = lex("$a = @(END) + 1\n    text\n  |-END\n$b").tokens;
  assert.deepEqual(
    t.map((x) => [x.kind, x.value]),
    [
      ["VARIABLE", "a"],
      ["EQUALS", "="],
      ["HEREDOC", ""],
      ["STRING", "  text"],
      ["PLUS", "+"],
      ["NUMBER", "1"],
      ["VARIABLE", "b"],
    ],
  );
  // The text token points at the text in the source, after the margin.
  assert.equal(t[3]?.offset, "$a = @(END) + 1\n  ".length);
});

test("parser: Puppet's precedence", () => {
  assert.equal(dump("$x = 1 < 2 == true"), '{"^":["=",{"^":["var","x"]},{"^":["<",1,{"^":["==",2,true]}]}]}');
  assert.equal(dump("-$a[1]"), '{"^":["-",{"^":["access",{"^":["var","a"]},1]}]}');
  assert.equal(
    dump("$a and $b ? {1 => 2}"),
    '{"^":["and",{"^":["var","a"]},{"^":["?",{"^":["var","b"]},[{"^":["=>",1,2]}]]}]}',
  );
});

test("parser: statement calls, resources, collectors and relationships", () => {
  assert.equal(
    dump("include a, b"),
    '{"^":["invoke",{"#":["functor",{"^":["qn","include"]},"args",[{"^":["qn","a"]},{"^":["qn","b"]}]]}]}',
  );
  const program = parse("@file { 'a': ensure => file } -> User <| title == 'x' |>");
  const rel = program.body as Extract<Expression, { kind: "Relationship" }>;
  assert.equal(rel.kind, "Relationship");
  assert.equal(rel.left.kind === "Resource" && rel.left.form, "virtual");
  assert.equal(rel.right.kind, "Collect");
});

test("parser: every node has a position the locator turns into line and column", () => {
  const r = parsePuppet("\n\nclass a {\n  file { '/x': }\n}\n", { file: "site.pp" });
  assert.ok(r.ok);
  const cls = r.program.body as Extract<Expression, { kind: "HostClass" }>;
  const res = (cls.body as Extract<Expression, { kind: "Block" }>).statements[0] as Expression;
  assert.deepEqual(r.locator.position(cls.offset), { line: 3, column: 1 });
  assert.deepEqual(r.locator.position(res.offset), { line: 4, column: 3 });
  assert.deepEqual(
    r.program.definitions.map((d) => d.kind),
    ["HostClass"],
  );
});

test("parser: errors are data with Puppet's message and position", () => {
  const r = parsePuppet("class a {\n  $x = \n}\n", { file: "init.pp" });
  assert.equal(r.ok, false);
  if (r.ok) return;
  assert.equal(formatDiagnosticLine(r.error, r.locator), "init.pp:3:1: Syntax error at '}'");
  const eof = parsePuppet("notice(1);");
  assert.ok(
    !eof.ok && eof.error.message === "Syntax error at end of input" && eof.error.offset === undefined,
  );
});

test("EPP templates parse to a lambda of render expressions", () => {
  assert.equal(
    dump("<%- | $x = 1 | -%>\na<%= $x %>", true),
    '{"^":["lambda",{"#":["params",{"#":["x",{"#":["value",1]}]},"body",[{"^":["epp",{"^":["render-s","a"]},{"^":["render",{"^":["var","x"]}]}]}]]}]}',
  );
});

test("parser: nesting too deep for the stack is a diagnostic, not a crash", () => {
  const r = parsePuppet(`$x = ${"[".repeat(20000)}${"]".repeat(20000)}`);
  assert.equal(r.ok, false);
  if (!r.ok) assert.match(r.error.message, /nested too deeply/);
  assert.ok(parsePuppet(`$x = ${"[".repeat(200)}${"]".repeat(200)}`).ok);
});

test("locator: lines and columns of offsets asked in any order", () => {
  const text = "a\n\nbc\ndef\n\n\nlast";
  const locator = new Locator(text, "x.pp");
  const expected = (offset: number) => text.slice(0, offset).split("\n").length;
  const offsets = [...Array(text.length + 1).keys()];
  // In order (the compiler's way), backwards, then jumping about.
  const orders = [offsets, [...offsets].reverse(), offsets.map((_, i) => (i * 7) % offsets.length)];
  for (const order of orders) {
    for (const offset of order) assert.equal(locator.line(offset), expected(offset), `offset ${offset}`);
  }
  assert.deepEqual(locator.position(8), { line: 4, column: 3 });
});
