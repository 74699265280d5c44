import assert from "node:assert/strict";
import { test } from "node:test";
import { compareVersion, deEscape, tokenize } from "../../src/language/lexer.js";

/** `kind:value` of every token, for one-line expectations. */
function lex(text: string): string[] {
  return tokenize(text).tokens.map((t) => `${t.kind}:${t.value}`);
}

function errors(text: string): string[] {
  return tokenize(text).diagnostics.map((d) => d.code);
}

test("longest match decides between promise types, class guards and identifiers", () => {
  assert.deepEqual(lex("vars:"), ["promise-guard:vars"]);
  assert.deepEqual(lex("any::"), ["class-guard:any"]);
  assert.deepEqual(lex("bundles"), ["identifier:bundles"]);
  assert.deepEqual(lex("bundle"), ["bundle:bundle"]);
  assert.deepEqual(lex("ns:name"), ["identifier:ns:name"]);
  assert.deepEqual(lex("(a|b).!c::"), ["class-guard:(a|b).!c"]);
  assert.deepEqual(lex("default:linux::"), ["class-guard:default:linux"]);
  assert.deepEqual(lex("vars: any::"), ["class-guard:vars: any"]);
  assert.deepEqual(lex("123"), ["identifier:123"]);
});

test("quoted class guards", () => {
  assert.deepEqual(lex('"$(x)"::'), ["var-class-guard:$(x)"]);
  assert.deepEqual(lex("'a.b'::"), ["var-class-guard:a.b"]);
  assert.deepEqual(lex('"a\\"b"::'), ['string:a"b', "char::", "char::"]);
});

test("strings de-escape as 3.21 does", () => {
  assert.deepEqual(lex('"a\\"b"'), ['string:a"b']);
  assert.deepEqual(lex('"a\\\\b"'), ["string:a\\b"]);
  assert.deepEqual(lex('"a\\nb"'), ["string:a\\nb"]);
  assert.deepEqual(lex("'it\\'s'"), ["string:it's"]);
  assert.deepEqual(lex('"x\\\ny"'), ["string:xy"]);
  assert.deepEqual(lex("`a\\`"), ["string:a\\"]);
  assert.deepEqual(lex('`say "hi"`'), ['string:say "hi"']);
  assert.deepEqual(lex('"multi\nline"'), ["string:multi\nline"]);
  assert.equal(deEscape("a\\'b\\\\c\\d"), "a'b\\c\\d");
});

test("variable references", () => {
  assert.deepEqual(lex("$(x)"), ["nakedvar:$(x)"]);
  assert.deepEqual(lex("@{ns:b.list}"), ["nakedvar:@{ns:b.list}"]);
  assert.deepEqual(lex("$(a[$(k)])"), ["nakedvar:$(a[$(k)])"]);
  assert.deepEqual(lex("$(a[b)c])"), ["nakedvar:$(a[b)c])"]);
  assert.deepEqual(lex("$(a b)"), ["char:$", "(:(", "identifier:a", "identifier:b", "):)"]);
});

test("punctuation, comments and whitespace", () => {
  assert.deepEqual(lex("a => b -> { c, d }; # note\n( )"), [
    "identifier:a",
    "=>:=>",
    "identifier:b",
    "->:->",
    "{:{",
    "identifier:c",
    ",:,",
    "identifier:d",
    "}:}",
    ";:;",
    "(:(",
    "):)",
  ]);
  assert.deepEqual(lex("a\r\nb"), ["identifier:a", "identifier:b"]);
  assert.deepEqual(lex("a\rb"), ["identifier:a", "char:\r", "identifier:b"]);
});

test("unterminated strings are reported once", () => {
  assert.deepEqual(errors('"abc'), ["unterminated-string"]);
  assert.deepEqual(errors("`abc"), ["unterminated-string"]);
});

test("@if macros keep or drop lines by version and feature", () => {
  assert.deepEqual(lex("@if minimum_version(3.7)\na\n@endif\nb"), ["identifier:a", "identifier:b"]);
  assert.deepEqual(lex("@if minimum_version(300.700)\na\n@else\nc\n@endif\nb"), [
    "identifier:c",
    "identifier:b",
  ]);
  assert.deepEqual(lex("@if maximum_version(3.21)\na\n@endif"), ["identifier:a"]);
  assert.deepEqual(lex("@if before_version(3.21.0)\na\n@endif"), []);
  assert.deepEqual(lex("@if at_version(3.21)\na\n@endif"), ["identifier:a"]);
  assert.deepEqual(lex("@if after_version(3.20)\na\n@endif"), ["identifier:a"]);
  assert.deepEqual(lex("@if between_versions(3.18, 3.22)\na\n@endif"), ["identifier:a"]);
  assert.deepEqual(lex("@if feature(xml)\na\n@endif"), ["identifier:a"]);
  assert.deepEqual(lex("@if feature(nope)\na\n@if x\n@endif"), []);
  assert.deepEqual(lex("@if minimum_version(3.7)\na\n@else\nb\n@endif"), ["identifier:a"]);
});

test("macro misuse is reported", () => {
  assert.deepEqual(errors("@if minimum_version(3.7)\na"), ["macro-error"]);
  assert.deepEqual(errors("@endif"), ["macro-error"]);
  assert.deepEqual(errors("@else"), ["macro-error"]);
  assert.deepEqual(errors(" @if minimum_version(3.7)\n@endif"), ["macro-error", "macro-error"]);
  assert.deepEqual(errors("@if minimum_version(3.7)\n@if minimum_version(3.7)\n@endif\n@endif"), [
    "macro-error",
    "macro-error",
  ]);
  assert.deepEqual(lex("@if nonsense(1)"), [
    "char:@",
    "identifier:if",
    "identifier:nonsense",
    "(:(",
    "identifier:1",
    "):)",
  ]);
});

test("versions compare over the components the macro names", () => {
  assert.equal(compareVersion("3.21.0", "3.21"), 0);
  assert.equal(compareVersion("3.21.0", "3.7"), 1);
  assert.equal(compareVersion("3.21.0", "3.21.1"), -1);
  assert.equal(compareVersion("3.21.0", "4"), -1);
});
