import assert from "node:assert/strict";
import { test } from "node:test";
import type { StringLiteral } from "../../../src/language/ast.js";
import { tokenize } from "../../../src/language/lexer.js";
import { parseText } from "../../../src/language/parser.js";
import { formatPolicy, formatString } from "../../../src/language/print/cf.js";

/** Formats policy text, failing on any parse diagnostic. */
function format(text: string): string {
  const { policy, diagnostics } = parseText(text);
  assert.deepEqual(diagnostics, []);
  return formatPolicy(policy);
}

/** The lexer's value for a formatted string literal. */
function relex(literal: Pick<StringLiteral, "value" | "quote">): string {
  const { tokens, diagnostics } = tokenize(formatString(literal));
  assert.deepEqual(diagnostics, []);
  assert.equal(tokens.length, 1);
  return tokens[0].value;
}

test("bundles: types at 2, guards at 4, promisers at 6, aligned attributes at 8", () => {
  const text = `bundle agent main(a,b){vars: "x" string=>"1",comment=>'c'; linux:: "y"->{"z",}slist=>{"a",@(b)}; reports: "hi";}`;
  assert.equal(
    format(text),
    `bundle agent main(a, b)
{
  vars:
      "x"
        string  => "1",
        comment => 'c';

    linux::
      "y" -> { "z" }
        slist => { "a", @(b) };

  reports:
      "hi";
}
`,
  );
});

test("bodies and promise blocks: guards at 2, attributes at 4", () => {
  const text = `body classes c(x){promise_kept=>{"$(x)"};linux::cancel_kept=>{};}
promise agent git{path=>"/p";interpreter=>"/usr/bin/python3";}body common control{bundlesequence=>{main};}`;
  assert.equal(
    format(text),
    `body classes c(x)
{
    promise_kept => { "$(x)" };

  linux::
    cancel_kept => { };
}

promise agent git
{
    path        => "/p";
    interpreter => "/usr/bin/python3";
}

body common control
{
    bundlesequence => { main };
}
`,
  );
});

test("quoted guards keep their quotes; guards without promises stay", () => {
  const out = format(`bundle agent b{classes:"$(x)"::"c" expression=>"any";'a"b'::!linux::}`);
  assert.equal(
    out,
    `bundle agent b\n{\n  classes:\n    "$(x)"::\n      "c"\n        expression => "any";\n\n    'a"b'::\n\n    !linux::\n}\n`,
  );
});

test("calls, symbols and variables print as written", () => {
  const out = format(`bundle agent b{methods:"m" usebundle=>ns:x(concat("a",$(v)),@{l}),action=>ns:act;}`);
  assert.match(out, /usebundle => ns:x\(concat\("a", \$\(v\)\), @\{l\}\),\n +action +=> ns:act;/);
});

test("long lists break one item per line", () => {
  const items = Array.from({ length: 8 }, (_, i) => `"/var/cfengine/inputs/item${i}.cf"`);
  const out = format(`bundle agent b{vars:"l" slist=>{${items.join(",")}};}`);
  assert.ok(out.includes(`slist => {\n          "/var/cfengine/inputs/item0.cf",\n`));
  assert.ok(out.includes(`"/var/cfengine/inputs/item7.cf"\n        };\n`));
});

test("strings keep their quote style and re-lex to the same value", () => {
  const values = [
    "",
    "plain",
    '"',
    "'",
    "\\",
    "\\\\",
    '\\"',
    "\\d+\\.",
    "a\\\nb",
    "`",
    "end\\",
    "x\r\ny",
    "$(x)",
  ];
  for (const value of values) {
    for (const quote of ['"', "'", "`"] as const) {
      assert.equal(relex({ value, quote }), value, `${quote}${value}${quote}`);
    }
  }
  assert.equal(formatString({ value: "\\d+", quote: '"' }), '"\\d+"');
  assert.equal(formatString({ value: 'say "hi"', quote: "'" }), `'say "hi"'`);
  assert.equal(formatString({ value: "a`b", quote: "`" }), '"a`b"');
});

test("a file without blocks formats as empty text", () => {
  assert.equal(format("# only a comment\n"), "");
});
