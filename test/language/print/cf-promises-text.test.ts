import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parse } from "../../../src/language/parser.js";
import { policyToCfPromisesText } from "../../../src/language/print/cf-promises-text.js";
import { writeCfengineJson } from "../../../src/language/print/cfengine-json.js";
import { JsonReal } from "../../../src/language/print/data-json.js";
import { policyToJson } from "../../../src/language/print/json.js";
import { SourceFile } from "../../../src/language/source.js";

const FIXTURES = fileURLToPath(new URL("../../../../test/fixtures/print/", import.meta.url));

/** A fixture parsed as cf-promises was run: `-f ./NAME.cf`. */
function parsed(name: string) {
  const source = new SourceFile(`./${name}.cf`, readFileSync(`${FIXTURES}${name}.cf`, "utf8"));
  return [{ source, policy: parse(source).policy }];
}

for (const file of readdirSync(FIXTURES).filter((f) => f.endsWith(".cf"))) {
  const name = file.slice(0, -3);
  test(`policyToCfPromisesText matches cf-promises -p cf: ${name}`, () => {
    const expected = readFileSync(`${FIXTURES}${name}.p-cf.txt`, "utf8");
    assert.equal(policyToCfPromisesText(parsed(name)), expected);
  });
}

test("writeCfengineJson lays out -p json as cf-promises does", () => {
  const expected = readFileSync(`${FIXTURES}basics.p-json.txt`, "utf8");
  assert.equal(writeCfengineJson(policyToJson(parsed("basics")), 2), expected);
});

test("writeCfengineJson writes empty containers and reals as 3.21", () => {
  assert.equal(
    writeCfengineJson({ a: {}, b: [], c: 1.5, d: new JsonReal(2), e: 'x"\n/' }),
    [
      "{",
      '  "a": {',
      "  },",
      '  "b": [],',
      '  "c": 1.5000,',
      '  "d": 2.0000,',
      '  "e": "x\\"\\n/"',
      "}",
    ].join("\n"),
  );
});
