/**
 * The PCRE translator on its own: first matches (unanchored, default
 * options) as PCRE 8.39 finds them (checked with pcregrep), compile errors
 * with PCRE's offsets, and the byte-string helpers.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeBytes, encodeBytes, fromByteString, toByteString } from "../../../src/eval/regex/bytes.js";
import { matchesFully } from "../../../src/eval/regex/match.js";
import { PcreError, compilePcre } from "../../../src/eval/regex/pcre.js";
import { regexReplace } from "../../../src/eval/regex/replace.js";

/** [pattern, subject, first match or null]. */
const MATCHES: [string, string, string | null][] = [
  ["a|ab", "xab", "a"],
  ["(?i)abc", "xABC", "ABC"],
  ["a(?i)b", "aB", "aB"],
  ["a(?i:b)c", "aBc", "aBc"],
  ["a(?i:b)c", "aBC", null],
  ["(a(?i)b|c)", "C", "C"],
  ["[[:alpha:]]+", "12abc3", "abc"],
  ["[[:^digit:]]+", "12ab3", "ab"],
  ["\\Aab", "ab", "ab"],
  ["ab\\z", "ab", "ab"],
  ["ab\\Z", "ab\n", "ab"],
  ["ab$", "ab\n", "ab"],
  ["ab$", "ab\nc", null],
  ["(?m)ab$", "ab\nc", "ab"],
  ["(?m)^c", "ab\nc", "c"],
  ["^c", "ab\nc", null],
  ["a.c", "a\nc", null],
  ["(?s)a.c", "a\nc", "a\nc"],
  ["a(?>bc|b)c", "abcc", "abcc"],
  ["a(?>bc|b)c", "abc", null],
  ["a*+a", "aaa", null],
  ["a++b", "aaab", "aaab"],
  ["a?+a", "a", null],
  ["a{1,3}+a", "aaaa", "aaaa"],
  ["(?:ab)*+c", "ababc", "ababc"],
  ["\\d+", "ab123", "123"],
  ["\\w+", "é_ab", "_ab"],
  ["\\s+", "a \t b", " \t "],
  ["\\h+", "a \t b", " \t "],
  ["\\Qa.b\\E+", "a.bbb", "a.bbb"],
  ["\\Qa.b", "a.b", "a.b"],
  ["(?P<n>a)(?P=n)", "xaa", "aa"],
  ["(?<n>a)\\k<n>", "aa", "aa"],
  ["(?'n'a)\\k{n}", "aa", "aa"],
  ["(a)\\g{-1}", "aa", "aa"],
  ["(a)\\g1", "aa", "aa"],
  ["é", "café", "é"],
  ["caf..", "café", "café"],
  ["a{,2}", "a{,2}", "a{,2}"],
  ["a{2}", "aaa", "aa"],
  ["x*?y", "xxy", "xxy"],
  ["a\\yb", "ayb", "ayb"],
  ["\\x41\\x{42}\\101", "ABA", "ABA"],
  ["\\cA", "\u0001", "\u0001"],
  ["[\\d-z]+", "1-z", "1-z"],
  ["[a-]+", "-a", "-a"],
  ["[]a]+", "]a", "]a"],
  ["[^]a]", "]b", "b"],
  ["(?x) a b # comment\n c", "abc", "abc"],
  ["(?x)[ ]a", "  a", " a"],
  ["a(?#comment)b", "ab", "ab"],
  ["(?<=ab)c", "abc", "c"],
  ["(?<!a)c", "ac bc", "c"],
  ["(?<=a|bc)d", "bcd", "d"],
  ["a\\8", "a8", "a8"],
  ["\\R", "\r\n", "\r\n"],
  ["a\\N", "ab", "ab"],
  ["[[:punct:]]+", "a!?b", "!?"],
  ["\\bfoo\\b", "a foo b", "foo"],
  ["(?i)[a-c]+", "ABC", "ABC"],
  ["(?i)[^a]", "Ab", "b"],
  ["(?i)(?-i:a)", "Aa", "a"],
  ["(*FAIL)|a", "a", "a"],
  ["\\p{Lu}+", "abCD", "CD"],
  ["(?U)a+", "aaa", "a"],
  ["(?U)a+?", "aaa", "aaa"],
  ["\\010", "\b", "\b"],
  ["[\\x00-\\x1f]", "a\tb", "\t"],
];

test("first matches agree with PCRE", () => {
  for (const [pattern, subject, want] of MATCHES) {
    const regex = compilePcre(pattern);
    assert.ok(
      !(regex instanceof PcreError),
      `${pattern}: ${regex instanceof PcreError ? regex.message : ""}`,
    );
    const match = regex.exec(toByteString(subject));
    assert.equal(match ? fromByteString(match[0]) : null, want, `${pattern} on ${JSON.stringify(subject)}`);
  }
});

/** [pattern, PCRE's error, offset]. */
const ERRORS: [string, string, number][] = [
  ["(", "missing )", 1],
  [")", "unmatched parentheses", 0],
  ["a)", "unmatched parentheses", 1],
  ["*a", "nothing to repeat", 0],
  ["a**", "nothing to repeat", 2],
  ["[z-a]", "range out of order in character class", 3],
  ["[[:foo:]]", "unknown POSIX class name", 3],
  ["x{3,2}", "numbers out of order in {} quantifier", 5],
  ["a{70000}", "number too big in {} quantifier", 7],
  ["(a)\\2", "reference to non-existent subpattern", 5],
  ["\\", "\\ at end of pattern", 1],
  ["\\c", "\\c at end of pattern", 2],
  ["\\Lx", "PCRE does not support \\L, \\l, \\N{name}, \\U, or \\u", 1],
  ["(?<=a+)d", "lookbehind assertion is not fixed length", 6],
  ["(?<=ab(c|de))f", "lookbehind assertion is not fixed length", 12],
  ["[abc", "missing terminating ] for character class", 4],
  ["\\p{Foo}", "unknown property name after \\P or \\p", 6],
];

test("invalid patterns give PCRE's error and offset", () => {
  for (const [pattern, reason, offset] of ERRORS) {
    const got = compilePcre(pattern);
    assert.ok(got instanceof PcreError, pattern);
    assert.equal(got.code, "pcre-syntax", pattern);
    assert.equal(got.reason, reason, pattern);
    assert.equal(got.offset, offset, pattern);
  }
});

test("constructs JavaScript cannot express are refused by name", () => {
  const table: [string, RegExp][] = [
    ["(?R)", /recursion/],
    ["a(?1)", /recursion/],
    ["(?(1)a|b)", /conditional/],
    ["\\Ga", /\\G/],
    ["(?C1)a", /callout/],
    ["(*UTF8)a", /\(\*UTF8\)/],
    ["a\\Kb", /\\K/],
    ["(?|a|b)", /branch reset/],
  ];
  for (const [pattern, construct] of table) {
    const got = compilePcre(pattern);
    assert.ok(got instanceof PcreError && got.code === "pcre-unsupported", pattern);
    assert.match(got.message, construct);
  }
});

test("group numbers and names survive the helper groups of atomic constructs", () => {
  const regex = compilePcre("(?>(a))(?<x>b)++(c)");
  assert.ok(!(regex instanceof PcreError));
  const match = regex.exec("abc");
  assert.ok(match);
  assert.deepEqual(regex.pcreGroups(match), ["abc", "a", "b", "c"]);
  assert.equal(regex.groupNames.get("x"), 2);
  assert.equal(compilePcre("(?>(a))(?<x>b)++(c)"), regex, "cached");
});

test("full matches take the first match at the start, as cf-agent", () => {
  assert.equal(matchesFully("a|ab", "ab"), false);
  assert.equal(matchesFully("ab|a", "ab"), true);
  assert.equal(matchesFully("a.b", "a\nb"), true);
  assert.equal(matchesFully("ab$", "ab\n"), false);
  assert.ok(matchesFully("(", "(") instanceof PcreError);
});

test("regex_replace options and replacement syntax", () => {
  assert.equal(regexReplace("abc", "(?=c)", "-", "g"), "ab--c");
  assert.equal(regexReplace("abc", "b", "x\\0y", ""), "ax");
  assert.equal(regexReplace("abc", "(b)", "$1\\1", "T"), "a$1\\1c");
  assert.equal(regexReplace("aBc", "b", "[$&]", "i"), "a[B]c");
});

test("bytes survive a round trip through strings", () => {
  const bytes = Buffer.from([0x61, 0xc3, 0xa9, 0xc3, 0xff, 0x80]);
  const text = decodeBytes(bytes);
  assert.equal(text, "aé\udcc3\udcff\udc80");
  assert.deepEqual(encodeBytes(text), bytes);
  assert.equal(toByteString("é"), "\u00c3\u00a9");
  assert.equal(fromByteString("\u00c3"), "\udcc3");
  assert.equal(fromByteString(toByteString("日本 😀")), "日本 😀");
});
