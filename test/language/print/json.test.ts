import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parse } from "../../../src/language/parser.js";
import { parseDataJson } from "../../../src/language/print/data-json.js";
import { policyToJson } from "../../../src/language/print/json.js";
import { SourceFile } from "../../../src/language/source.js";

const FIXTURES = fileURLToPath(new URL("../../../../test/fixtures/print/", import.meta.url));

/** tend's JSON of a fixture, read as cf-promises was run: `-f ./NAME.cf`. */
function tendJson(name: string): string {
  const source = new SourceFile(`./${name}.cf`, readFileSync(`${FIXTURES}${name}.cf`, "utf8"));
  return JSON.stringify(policyToJson([{ source, policy: parse(source).policy }]));
}

for (const file of readdirSync(FIXTURES).filter((f) => f.endsWith(".cf"))) {
  const name = file.slice(0, -3);
  test(`policyToJson matches cf-promises -p json: ${name}`, () => {
    // Re-serialising the recording compares values and key order alike.
    const expected = JSON.stringify(JSON.parse(readFileSync(`${FIXTURES}${name}.json`, "utf8")));
    assert.deepEqual(JSON.parse(tendJson(name)), JSON.parse(expected));
    assert.equal(tendJson(name), expected);
  });
}

test("policyToJson joins files in order", () => {
  const files = ["a", "b"].map((n) => {
    const source = new SourceFile(
      `${n}.cf`,
      `bundle agent ${n} {}\nbody action ${n} { ifelapsed => "1"; }\n`,
    );
    return { source, policy: parse(source).policy };
  });
  const json = policyToJson(files) as { bundles: { name: string; sourcePath: string }[]; bodies: unknown[] };
  assert.deepEqual(
    json.bundles.map((b) => [b.name, b.sourcePath]),
    [
      ["a", "a.cf"],
      ["b", "b.cf"],
    ],
  );
  assert.equal(json.bodies.length, 2);
});

test("parseDataJson reads containers only, as 3.21 does", () => {
  assert.deepEqual(parseDataJson(' {"a": [1, 2.5, "x\\\\y"]} trailing'), { a: [1, 2.5, "x\\y"] });
  assert.deepEqual(parseDataJson('["\\u00e9"]'), ["\\u00e9"]);
  assert.equal(parseDataJson('"text"'), undefined);
  assert.equal(parseDataJson("12"), undefined);
  assert.deepEqual(parseDataJson('{"a": "x\\"y\\q"}'), { a: 'x"y\\q' });
  assert.equal(parseDataJson("{"), undefined);
});
