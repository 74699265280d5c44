import assert from "node:assert/strict";
import { test } from "node:test";
import type { Bundle, Body, Rval } from "../../src/language/ast.js";
import { parseText } from "../../src/language/parser.js";

/** The messages of a parse, for one-line expectations. */
function problems(text: string): string[] {
  return parseText(text).diagnostics.map((d) => d.message);
}

function firstBundle(text: string): Bundle {
  const { policy, diagnostics } = parseText(text);
  assert.deepEqual(diagnostics, []);
  return policy.blocks[0] as Bundle;
}

/** The value of the first attribute of the first promise. */
function value(rval: string): Rval {
  return firstBundle(`bundle agent m { vars: "x" string => ${rval}; }`).sections[0].groups[0].promises[0]
    .attributes[0].value;
}

function shape(rval: Rval): unknown {
  switch (rval.kind) {
    case "string":
      return rval.value;
    case "symbol":
      return `sym:${rval.name}`;
    case "nakedvar":
      return `var:${rval.text}`;
    case "list":
      return rval.items.map(shape);
    case "call":
      return { [rval.name]: rval.args.map(shape) };
  }
}

test("bundles: type, name, parameters, sections, guards", () => {
  const b = firstBundle(`bundle agent main(a, b,)
{
  vars:
      "v" string => "x";
    linux.!debian::
      "w" -> { "me" } string => "y", comment => "c";
  reports:
    "$(v)"::
      "hi";
}`);
  assert.equal(b.type.text, "agent");
  assert.equal(b.name.text, "main");
  assert.deepEqual(
    b.params?.map((p) => p.text),
    ["a", "b"],
  );
  assert.deepEqual(
    b.sections.map((s) => s.type.text),
    ["vars", "reports"],
  );
  const vars = b.sections[0];
  assert.equal(vars.groups[0].guard, null);
  assert.equal(vars.groups[1].guard?.expression, "linux.!debian");
  const w = vars.groups[1].promises[0];
  assert.equal(w.promiser.value, "w");
  assert.deepEqual(shape(w.promisee!), ["me"]);
  assert.deepEqual(
    w.attributes.map((a) => a.name.text),
    ["string", "comment"],
  );
  assert.equal(b.sections[1].groups[0].guard?.quoted, true);
});

test("bodies, control bodies and custom promise blocks", () => {
  const { policy, diagnostics } = parseText(`
body common control { bundlesequence => { main }; any:: inputs => { "a.cf" }; }
body classes if_ok(x) { promise_repaired => { "$(x)" }; }
promise agent git { path => "/m/git.py"; interpreter => "/usr/bin/python3"; }`);
  assert.deepEqual(diagnostics, []);
  const [control, classes, custom] = policy.blocks;
  assert.equal(control.kind, "body");
  assert.equal(control.params, null);
  assert.equal((control as Body).groups.length, 2);
  assert.deepEqual(
    classes.params?.map((p) => p.text),
    ["x"],
  );
  assert.equal(custom.kind, "promise-block");
  assert.equal(custom.name.text, "git");
});

test("namespaces follow body file control", () => {
  const { policy } = parseText(`bundle agent a {}
body file control { namespace => "ns1"; }
bundle agent b {}
body file control { namespace => other; }
bundle agent c {}`);
  assert.deepEqual(
    policy.blocks.map((b) => b.namespace),
    ["default", "default", "ns1", "ns1", "other"],
  );
});

test("values: strings, names, variables, lists, nested calls", () => {
  assert.deepEqual(shape(value('"a"')), "a");
  assert.deepEqual(shape(value("'b'")), "b");
  assert.deepEqual(shape(value("`c`")), "c");
  assert.deepEqual(shape(value("name")), "sym:name");
  assert.deepEqual(shape(value("ns:name")), "sym:ns:name");
  assert.deepEqual(shape(value("$(x)")), "var:$(x)");
  assert.deepEqual(shape(value("@(l)")), "var:@(l)");
  assert.deepEqual(shape(value('{ "a", b, @(c), f(1), }')), ["a", "sym:b", "var:@(c)", { f: ["sym:1"] }]);
  assert.deepEqual(shape(value("{}")), []);
  assert.deepEqual(shape(value('concat("a", ifelse(x, "y", $(z)))')), {
    concat: ["a", { ifelse: ["sym:x", "y", "var:$(z)"] }],
  });
  assert.deepEqual(shape(value("$(f)()")), { "$(f)": [] });
});

test("every node has a span that covers its text", () => {
  const text = 'bundle agent m { vars: "x" string => concat("a", $(b)); }';
  const b = firstBundle(text);
  const attr = b.sections[0].groups[0].promises[0].attributes[0];
  assert.equal(text.slice(...attr.span), 'string => concat("a", $(b))');
  assert.equal(text.slice(...attr.value.span), 'concat("a", $(b))');
  assert.equal(text.slice(...b.span), text);
  assert.equal(text.slice(...b.sections[0].type.span), "vars");
});

test("syntax errors cf-promises reports, one each, with what was expected", () => {
  const cases: [string, RegExp][] = [
    ['bundle agent m { vars: "x" string => "a" }', /expected ';' to end the promise/],
    ['bundle agent m { vars: "x" string => "a"', /expected ';'/],
    ['bundle agent m { vars: "x", string => "a"; }', /comma may not follow the promiser/],
    ['bundle agent m { vars: "x" string => "a", ; }', /expected an attribute name after ','/],
    ['bundle agent m { vars: "x" string => "a" comment => "b"; }', /expected ',' between attributes/],
    ['bundle agent m { vars: "x" string "a"; }', /expected '=>' after the attribute name 'string'/],
    ['bundle agent m { vars: "x" string => concat("a",); }', /trailing comma in calls/],
    ['bundle agent m { vars: "x" slist => { "a" "b" }; }', /expected ',' or '}' after a list item/],
    ['bundle agent m { vars: "x" slist => { { "a" } }; }', /lists cannot be nested/],
    ['bundle agent m { vars: "x" string => f({ "a" }); }', /a list cannot be a function argument/],
    ['bundle agent m { "x" string => "a"; }', /expected a promise type such as 'vars:'/],
    ["bundle agent m { any:: }", /expected a promise type such as 'vars:' before the class guard/],
    ["bundle agent m(,a) { }", /expected a parameter name or '\)'/],
    ['bundle agent m { vars: any::\n"x" string => "a"; }', /expected a promise type|./],
    ["bundle m { }", /expected a bundle name after 'm'/],
    ["bundle agent m { vars: }\nbody x", /expected a body name after 'x'/],
    ["foo bundle agent m { }", /expected 'bundle', 'body' or 'promise' to start a block/],
    ['body common control { inputs => { "a" } }', /expected ';' after the value of 'inputs'/],
    ['bundle agent m { vars: "x string => "a"; }', /./],
    ['bundle agent m { vars: cf e::\n "x" string => "a"; }', /separated by whitespace/],
    ['bundle agent m { vars:\n "x" string => "a";\n', /never closed/],
    ['body classes b { "x":: promise_kept => { "a" }; }', /variable class/],
  ];
  for (const [text, expected] of cases) {
    const found = problems(text);
    assert.equal(found.length >= 1, true, `no diagnostic for: ${text}`);
    assert.ok(
      found.some((m) => expected.test(m)),
      `${text}\n  gave: ${found.join(" | ")}`,
    );
  }
});

test("a glued promise type and guard gets a hint", () => {
  assert.match(problems('bundle agent m { vars: any::\n "x" string => "a"; }')[0], /share a line/);
});

test("a problem after a line break is placed after the previous value", () => {
  const text = 'bundle agent m {\n vars:\n  "x" string => "a"\n  "y" string => "b";\n}';
  const [d] = parseText(text).diagnostics;
  assert.equal(d.span[0], text.indexOf('"a"') + 3);
});

test("the parser recovers and keeps parsing after an error", () => {
  const { policy, diagnostics } = parseText(
    'bundle agent a { vars: "x" string => ; "y" string => "b"; }\nbundle agent b { }',
  );
  assert.equal(diagnostics.length, 1);
  assert.equal(policy.blocks.length, 2);
  assert.equal((policy.blocks[0] as Bundle).sections[0].groups[0].promises[0].promiser.value, "y");
});

test("function calls nest at most nine deep", () => {
  const nest = (n: number) => "f(".repeat(n) + '"a"' + ")".repeat(n);
  assert.deepEqual(problems(`bundle agent m { vars: "x" string => ${nest(9)}; }`), []);
  assert.match(problems(`bundle agent m { vars: "x" string => ${nest(10)}; }`)[0], /at most 9/);
});

test("the parser always makes progress (fuzz regressions)", () => {
  // A promise type inside a body once sent recovery into an endless loop.
  assert.ok(problems("body a b{x:").length > 0);
  // Deep nesting gives up on the statement instead of recursing on.
  assert.match(problems(`bundle agent m { vars: "x" string => ${"f(".repeat(20000)}; }`)[0], /at most 9/);
  // A long line of guard characters is scanned once, not once per word.
  const line = "a ".repeat(50000);
  assert.deepEqual(
    parseText(`bundle agent m { vars: ${line}:: "x" string => "y"; }`).diagnostics.length > 0,
    true,
  );
});
