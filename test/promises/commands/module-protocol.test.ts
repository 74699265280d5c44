/**
 * The module protocol decoder and the command-line helpers, case by case
 * (expectations taken from cf-agent 3.21 runs).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  buildCommandLine,
  commandPrefix,
  parseShellMode,
} from "../../../src/promises/commands/command-line.js";
import { outputLines } from "../../../src/promises/commands/index.js";
import { decodeModuleLine, parseModuleList } from "../../../src/promises/commands/module-protocol.js";

test("lists: quoted items, either quote, commas inside quotes", () => {
  assert.deepEqual(parseModuleList(`{"a", 'b,c'}`), ["a", "b,c"]);
  assert.deepEqual(parseModuleList(` { "{{x}}", '  " y}' } `), ["{{x}}", '  " y}']);
});

test("lists: 3.21 refuses empty lists, trailing commas and trailing text", () => {
  const endOfInput = { problem: "Parsing error : Malformed string (unexpected end of input)" };
  assert.deepEqual(parseModuleList("{ }"), endOfInput);
  assert.deepEqual(parseModuleList(`{ "x", }`), endOfInput);
  assert.deepEqual(parseModuleList(""), endOfInput);
  assert.deepEqual(parseModuleList(`{ "y" } trailing`), { problem: "Parsing error : Malformed string" });
});

test("directives", () => {
  assert.deepEqual(decodeModuleLine("=answer=42"), { kind: "string", name: "answer", value: "42" });
  assert.deepEqual(decodeModuleLine("=empty="), { kind: "string", name: "empty", value: "" });
  assert.deepEqual(decodeModuleLine("+a class"), { kind: "define", name: "a class" });
  assert.deepEqual(decodeModuleLine("-a,b"), { kind: "undefine", names: ["a", "b"] });
  assert.deepEqual(decodeModuleLine('%d={"x":1}'), { kind: "data", name: "d", json: { x: 1 } });
  // cf-agent 3.21 stops on `%d=[1e3]` with this message and exit code 1.
  assert.deepEqual(decodeModuleLine("%d=[1e3]"), {
    kind: "fatal",
    message: "Conversion error (-83 - Not terminated) on '1e3' (StringToLongExitOnError)",
  });
  assert.deepEqual(decodeModuleLine("^context=abc_1"), { kind: "context", name: "abc_1" });
  assert.deepEqual(decodeModuleLine("^meta=a,b"), { kind: "meta", tags: ["a", "b", "source=module"] });
  assert.deepEqual(decodeModuleLine("^persistence=10"), { kind: "persistence", minutes: 10 });
  assert.equal(decodeModuleLine("^context=bad-name").kind, "problem");
  assert.equal(decodeModuleLine("^other=1").kind, "problem");
  assert.equal(decodeModuleLine('%p="text"').kind, "problem");
  assert.deepEqual(decodeModuleLine("free text"), { kind: "text", line: "free text" });
  assert.deepEqual(decodeModuleLine(""), { kind: "none" });
});

test("the quoted prefix: 15 characters ending 5 after the program word", () => {
  assert.equal(commandPrefix("/bin/echo hello world"), "/bin/echo hello");
  assert.equal(commandPrefix("/usr/bin/printf 'a\\nb'"), "bin/printf 'a\\n");
  assert.equal(commandPrefix("/bin/pwd"), "/bin/pwd");
});

test("command line and shell words", () => {
  assert.equal(buildCommandLine("/bin/echo", "a  b", ["c d", "e"]), "/bin/echo a  b c d e");
  assert.equal(parseShellMode("true"), "useshell");
  assert.equal(parseShellMode("off"), "noshell");
  assert.equal(parseShellMode(undefined), "noshell");
});

test("output lines stop at cfengine-die and are cut at NUL", () => {
  assert.deepEqual(outputLines(Buffer.from("a\0b\nc\n")), ["a", "c"]);
  assert.deepEqual(outputLines(Buffer.from("a\ncfengine-die\nb\n")), ["a"]);
  assert.deepEqual(outputLines(Buffer.from("a\ncfengine-die\n")), ["a"]);
});
