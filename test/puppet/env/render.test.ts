/**
 * The catalog's JSON as Puppet prints it: compact, strings as Ruby's JSON
 * generator escapes them, Floats as Ruby's Float#to_s. The expected texts
 * are Puppet 7.23's output for `notify { 'floats': message => [...] }`
 * (`puppet catalog compile --render-as json`).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { renderRubyJson, rubyFloat } from "../../../src/puppet/env/render.js";
import { JsonFloat } from "../../../src/puppet/eval/compile-api.js";

test("Floats as Ruby writes them", () => {
  const floats = [1.0, 1.5, 100.0, 1e20, 1.0e-5, 0.1, -0.0, 12345678901234568.0].map((v) => new JsonFloat(v));
  // Puppet printed: [1.0,1.5,100.0,1.0e+20,1.0e-05,0.1,-0.0,1.2345678901234568e+16,3]
  assert.equal(
    renderRubyJson([...floats, 3]),
    "[1.0,1.5,100.0,1.0e+20,1.0e-05,0.1,-0.0,1.2345678901234568e+16,3]",
  );
  assert.equal(rubyFloat(0.0001), "0.0001");
  assert.equal(rubyFloat(1234567890123456), "1234567890123456.0");
  assert.equal(rubyFloat(1e16), "1.0e+16");
  assert.equal(rubyFloat(-2.5e-7), "-2.5e-07");
  assert.equal(rubyFloat(1.5e300), "1.5e+300");
  // A number that is not whole is a Float even unmarked.
  assert.equal(renderRubyJson({ a: 0.00001, b: 2 }), '{"a":1.0e-05,"b":2}');
});

test("strings, objects, null: as JSON.stringify writes them, compact and in order", () => {
  const text = 'tab\t nl\n bs\\ q" slash/ ctl\u0001 del\u007f ls\u2028 emoji\u{1F600}';
  // Puppet printed these bytes for the same string.
  assert.equal(
    renderRubyJson(text),
    '"tab\\t nl\\n bs\\\\ q\\" slash/ ctl\\u0001 del\u007f ls\u2028 emoji\u{1F600}"',
  );
  assert.equal(renderRubyJson({ z: null, a: [true, false], m: {} }), '{"z":null,"a":[true,false],"m":{}}');
  assert.equal(renderRubyJson({ skipped: undefined, kept: 1 }), '{"kept":1}');
});

test("a string or key with a NUL is not taken for a Float's placeholder", () => {
  const value = {
    "k\u00000": "\u00000",
    f: new JsonFloat(2),
    big: 12345678901234567890n,
    list: ["\u00001", 1.5],
  };
  assert.equal(
    renderRubyJson(value),
    '{"k\\u00000":"\\u00000","f":2.0,"big":12345678901234567890,"list":["\\u00001",1.5]}',
  );
  assert.equal(renderRubyJson({ f: new JsonFloat(2), n: [-0, 7n] }), '{"f":2.0,"n":[-0.0,7]}');
  assert.equal(renderRubyJson(undefined), "null");
});
