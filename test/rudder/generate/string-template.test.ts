// The StringTemplate subset Rudder's technique templates use.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: CFEngine variables in test data
import assert from "node:assert/strict";
import { test } from "node:test";
import { type StValue, renderStringTemplate } from "../../../src/rudder/generate/string-template.js";

const r = (tpl: string, attrs: Record<string, StValue>) =>
  renderStringTemplate(tpl, new Map(Object.entries(attrs)));

const CASES: [string, string, Record<string, StValue>, string][] = [
  ["a value", 'x "&A&" y', { A: "v" }, 'x "v" y'],
  ["a list's elements, one after another", "&A&", { A: ["1", "2"] }, "12"],
  ["iteration with i and i0", "&A:{x |[&i&/&i0&=&x&]}&", { A: ["a", "b"] }, "[1/0=a][2/1=b]"],
  ["it and a separator", '{&A: { "&it&"};separator=", "&}', { A: ["a", "b"] }, '{ "a",  "b"}'],
  ["two lists side by side", "&A, B:{a, b |&a&=&b&;}&", { A: ["1", "2"], B: ["x", "y"] }, "1=x;2=y;"],
  ["one blank after | is skipped (StringTemplate 3)", "&A:{x |  <&x&>}&", { A: "v" }, " <v>"],
  ["a newline after | is skipped", "&A:{x |\n<&x&>}&", { A: "v" }, "<v>"],
  ["blanks before the closing &", "&A:{x |<&x&>} &", { A: "v" }, "<v>"],
  ["a record's property", "&P:{p |&p.name&=&p.value&;}&", { P: [{ name: "a", value: "1" }] }, "a=1;"],
  [
    "an &endif& starting its line eats the empty line after it",
    "a\n&if(B)&\nb\n&endif&\n\nc\n  &if(B)&\n  d\n  &endif&\n\ne",
    {},
    "a\nc\n\ne",
  ],
  [
    "a value starting with a newline leaves its first line empty",
    "    &A:{\n  - &it&}&\nz",
    { A: ["1", "2"] },
    "\n      - 1\n      - 2\nz",
  ],
  ["braces of the text nest in a body", "&A:{x |${&x&}}&", { A: "v" }, "${v}"],
  [
    "a multi-line value is indented as its expression",
    "    &A:{x |l&x&;\n}&end",
    { A: ["1", "2"] },
    "    l1;\n    l2;\nend",
  ],
  [
    "if / else on their own lines disappear",
    "a\n  &if(B)&\n  yes\n  &else&\n  no\n  &endif&\nz",
    { B: true },
    "a\n  yes\nz",
  ],
  ["if on false takes else", "&if(B)&y&else&n&endif&", { B: false }, "n"],
  ["if on an absent value, negated", "&if(!B)&y&endif&", {}, "y"],
  ["a comment line disappears", "a\n&! note !&\nb", {}, "a\nb"],
  ["a line whose expression writes nothing disappears", "a\n    &A&\nb", { A: [] }, "a\nb"],
  ["\\\\ is one backslash", "\\\\d", {}, "\\d"],
];

for (const [name, tpl, attrs, expected] of CASES) {
  test(`StringTemplate: ${name}`, () => assert.equal(r(tpl, attrs), expected));
}

test("StringTemplate: a template it cannot read is an error with the offset", () => {
  assert.throws(() => r("&A:x&", {}), /offset/);
});
