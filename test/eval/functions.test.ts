import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { expandRval } from "../../src/eval/expand.js";
import { listFunctionNames } from "../../src/eval/functions/registry.js";
import { type Value, data, isList, list, scalar } from "../../src/eval/values.js";
import { makeContext, rval } from "./helpers.js";
import { scratchDirectory } from "../scratch.js";

const ctx = makeContext({
  s: "hello world",
  lst: ["b", "a", "c", "a"],
  nums: ["10", "9", "100"],
  "input[one]": "1.cf",
  "input[two]": "2.cf",
  d: data({ k1: "v1", k2: ["x", "y"], k3: { deep: true } }),
  arr: data(["p", "q"]),
});
ctx.defineClass("linux");

function call(text: string): Value | undefined {
  return expandRval(ctx, rval(text));
}

test("class functions return any or !any", () => {
  const table: [string, string][] = [
    ['and("linux", "any")', "any"],
    ['and("linux", "windows")', "!any"],
    ['or("windows", "linux")', "any"],
    ['not("windows")', "any"],
    ['not(isvariable("s"))', "!any"],
    ['isvariable("nope")', "!any"],
    ['isvariable("main.s")', "any"],
    ['strcmp("a", "a")', "any"],
    ['regcmp("h.*d", "$(s)")', "any"],
    ['regcmp("world", "$(s)")', "!any"],
    ['classmatch("lin.*")', "any"],
    ['classify("linux")', "any"],
    ['every("[a-c]", lst)', "any"],
    ['some("c", lst)', "any"],
    ['none("z", lst)', "any"],
    ['isgreaterthan("10", "9")', "any"],
  ];
  for (const [text, expected] of table) assert.deepEqual(call(text), scalar(expected), text);
});

test("ifelse picks the first true class expression", () => {
  assert.deepEqual(call('ifelse("windows", "w", "linux", "l", "other")'), scalar("l"));
  assert.deepEqual(call('ifelse("windows", "w", "other")'), scalar("other"));
  assert.deepEqual(call('ifelse(strcmp("a", "b"), "yes", "no")'), scalar("no"));
});

test("string functions", () => {
  const table: [string, string][] = [
    ['canonify("a-b.c")', "a_b_c"],
    ['concat("a", "$(s)")', "ahello world"],
    ['join(":", lst)', "b:a:c:a"],
    ['format("%s-%d-%5s|%-3s|", "a", "42", "r", "l")', "a-42-    r|l  |"],
    ['format("%S", lst)', '{ "b", "a", "c", "a" }'],
    ['format("%S", d)', '{"k1":"v1","k2":["x","y"],"k3":{"deep":true}}'],
    ['regex_replace("aXbX", "X", "-", "g")', "a-b-"],
    ['regex_replace("ab", "(a)(b)", "\\2\\1", "")', "ba"],
    ['string_replace("a.b.c", ".", "/")', "a/b/c"],
    ['lastnode("/a/b/c.cf", "/")', "c.cf"],
    ['string_upcase("ab")', "AB"],
    ['strftime("gmtime", "%Y-%m-%d %H:%M", 0)', "1970-01-01 00:00"],
  ];
  for (const [text, expected] of table) assert.deepEqual(call(text), scalar(expected), text);
  assert.deepEqual(call('splitstring("a,b,c", ",", 2)'), list(["a", "b"]));
  assert.deepEqual(call('string_split("a,b,c", ",", 2)'), list(["a", "b,c"]));
});

/** A list's items sorted: 3.21 lists a classic array in its variable table's (hash) order. */
function sorted(value: Value | undefined): Value | undefined {
  return value && isList(value) ? list([...value.value].sort()) : value;
}

test("collection functions accept names, @(refs), classic arrays and data", () => {
  assert.deepEqual(sorted(call('getvalues("input")')), list(["1.cf", "2.cf"]));
  assert.deepEqual(sorted(call("getindices(input)")), list(["one", "two"]));
  assert.deepEqual(call('getvalues("d")'), list(["v1", "x", "y", "true"]));
  assert.deepEqual(call('getindices("d")'), list(["k1", "k2", "k3"]));
  assert.deepEqual(call('sort("nums", "int")'), list(["9", "10", "100"]));
  assert.deepEqual(call("sort(lst)"), list(["a", "a", "b", "c"]));
  assert.deepEqual(call("unique(lst)"), list(["b", "a", "c"]));
  assert.deepEqual(call('filter("a", lst, "false", "false", 99)'), list(["a", "a"]));
  assert.deepEqual(call('grep("[ab]", lst)'), list(["b", "a", "a"]));
  assert.deepEqual(call("length(lst)"), scalar("4", "int"));
  assert.deepEqual(call('nth("lst", 2)'), scalar("c"));
  assert.deepEqual(call('nth("d", "k1")'), scalar("v1"));
  assert.deepEqual(call('maplist("x_$(this)", lst)'), list(["x_b", "x_a", "x_c", "x_a"]));
  assert.deepEqual(call("mergedata(arr, lst)"), data(["p", "q", "b", "a", "c", "a"]));
  assert.deepEqual(call('mergedata("d[k2]")'), data(["x", "y"]));
  assert.deepEqual(call("mergedata('{\"a\":1}', '{\"b\":2}')"), data({ a: 1, b: 2 }));
  assert.deepEqual(call("parsejson('[1, \"two\"]')"), data([1, "two"]));
  assert.deepEqual(
    sorted(call('variablesmatching("default:main\\.inp.*")')),
    list(["default:main.input[one]", "default:main.input[two]"]),
  );
});

test("file functions read the file system synchronously", () => {
  const dir = scratchDirectory("tend-fn-");
  mkdirSync(join(dir, "sub"));
  writeFileSync(join(dir, "a.cf"), "");
  writeFileSync(join(dir, "b.txt"), "x\n# comment\ny\n");
  writeFileSync(join(dir, "sub", "c.cf"), "");
  writeFileSync(join(dir, "d.json"), '{"inputs": ["x.cf"]}');
  assert.deepEqual(call(`fileexists("${dir}/a.cf")`), scalar("any"));
  assert.deepEqual(call(`fileexists("${dir}/nope")`), scalar("!any"));
  assert.deepEqual(call(`isdir("${dir}/sub")`), scalar("any"));
  assert.deepEqual(call(`lsdir("${dir}", ".*\\.cf", "true")`), list([`${dir}/a.cf`]));
  // lsdir lists in directory order, as 3.21 does.
  assert.deepEqual([...((call(`lsdir("${dir}", "[ab].*", "false")`)?.value ?? []) as string[])].sort(), [
    "a.cf",
    "b.txt",
  ]);
  assert.deepEqual(
    call(`findfiles("${dir}/*.cf", "${dir}/*/*.cf")`),
    list([`${dir}/a.cf`, `${dir}/sub/c.cf`]),
  );
  assert.deepEqual(call(`readfile("${dir}/b.txt", 1)`), scalar("x"));
  assert.deepEqual(call(`readjson("${dir}/d.json")`), data({ inputs: ["x.cf"] }));
  assert.equal(call(`readjson("${dir}/b.txt")`), undefined);
  assert.deepEqual(call(`readstringlist("${dir}/b.txt", "#[^\\n]*", "\\n", 10, 1000)`), list(["x", "y"]));
});

test("the registry covers what the MPF's common bundles call", () => {
  const names = listFunctionNames();
  for (const name of [
    "getvalues",
    "isvariable",
    "fileexists",
    "ifelse",
    "strcmp",
    "and",
    "isdir",
    "getindices",
  ]) {
    assert.ok(names.includes(name), name);
  }
});
