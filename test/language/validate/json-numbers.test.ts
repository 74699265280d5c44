/**
 * Which JSON numbers 3.21 cannot store (cf-promises 3.21 printed these
 * messages for `data => '...'` literals holding them).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { findUnstorableJsonNumber } from "../../../src/language/validate/json-numbers.js";

const CASES: readonly [string, string | undefined][] = [
  ['{"e":1e3}', "Conversion error (-83 - Not terminated) on '1e3' (StringToLongExitOnError)"],
  ['{"e":-1e3}', "Conversion error (-83 - Not terminated) on '-1e3' (StringToLongExitOnError)"],
  ["[1E+3]", "Conversion error (-83 - Not terminated) on '1E+3' (StringToLongExitOnError)"],
  ['{"e":0e0}', "Conversion error (-83 - Not terminated) on '0e0' (StringToLongExitOnError)"],
  [
    '{"e":99999999999999999999}',
    "Conversion error (34 - Overflow) on '99999999999999999999' (StringToLongExitOnError)",
  ],
  [
    '{"e":9223372036854775808}',
    "Conversion error (34 - Overflow) on '9223372036854775808' (StringToLongExitOnError)",
  ],
  ['{"e":9223372036854775807}', undefined],
  ['{"e":2147483648}', undefined],
  ['{"e":1.5e3}', undefined],
  ['{"e":"1e3", "1e3": [1, 2.0]}', undefined],
  ['{"a\\"1e3":1}', undefined],
];

for (const [text, expected] of CASES) {
  test(`findUnstorableJsonNumber(${text})`, () => {
    assert.equal(findUnstorableJsonNumber(text), expected);
  });
}
