import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { type LoadOptions, loadPolicy, resolveEntryPath } from "../../src/loader/load.js";
import { scratchDirectory } from "../scratch.js";

/** Writes files (path → text) into a fresh temporary directory. */
function tree(files: Record<string, string>): string {
  const root = scratchDirectory("tend-load-");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** Loads `root/main.cf`; returns the loaded paths relative to root, and the diagnostics. */
function load(root: string, options: LoadOptions = {}) {
  const result = loadPolicy(join(root, "main.cf"), options);
  const files = result.set.files.map((f) => resolve(f.source.path).slice(root.length + 1));
  const problems = result.diagnostics.map((d) => `${d.severity} ${d.code} ${d.file.slice(root.length + 1)}`);
  return { files, problems, result };
}

/** Sinks keeping what evaluation logs, as `level message` lines. */
function noted(): { sinks: NonNullable<LoadOptions["messages"]>; lines: string[] } {
  const lines: string[] = [];
  return {
    sinks: { note: (level, message) => lines.push(`${level} ${message}`), fromFunction: () => {} },
    lines,
  };
}

const control = (...inputs: string[]) => `body common control { inputs => { ${inputs.join(", ")} }; }\n`;
const fileControl = (...inputs: string[]) => `body file control { inputs => { ${inputs.join(", ")} }; }\n`;
const bundle = (name: string) => `bundle agent ${name} { reports: "${name}"; }\n`;

test("nested inputs load depth first, relative to the entry file's directory", () => {
  const root = tree({
    "main.cf": control('"lib/a.cf"', '"b.cf"'),
    "lib/a.cf": fileControl('"lib/c.cf"') + bundle("a"),
    "lib/c.cf": bundle("c"),
    "b.cf": bundle("b"),
  });
  assert.deepEqual(load(root).files, ["main.cf", "lib/a.cf", "lib/c.cf", "b.cf"]);
});

test("an input relative to the including file's own directory is not found", () => {
  const root = tree({
    "main.cf": control('"lib/a.cf"'),
    "lib/a.cf": fileControl('"c.cf"') + bundle("a"),
    "lib/c.cf": bundle("c"),
  });
  const { files, problems, result } = load(root);
  assert.deepEqual(files, ["main.cf", "lib/a.cf"]);
  assert.deepEqual(problems, ["error input-not-found lib/a.cf"]);
  const diagnostic = result.diagnostics[0];
  const text = result.set.files[1].source.text;
  assert.equal(text.slice(diagnostic.span[0], diagnostic.span[1]), '"c.cf"');
});

test("cycles and duplicates are loaded once", () => {
  const root = tree({
    "main.cf": control('"a.cf"', '"./a.cf"', '"b.cf"', '"main.cf"') + bundle("main"),
    "a.cf": fileControl('"b.cf"', '"main.cf"') + bundle("a"),
    "b.cf": fileControl('"a.cf"') + bundle("b"),
  });
  const { files, problems } = load(root);
  assert.deepEqual(files, ["main.cf", "a.cf", "b.cf"]);
  assert.deepEqual(problems, []);
});

test("files with identical content are loaded once, as cf-promises does", () => {
  const root = tree({
    "main.cf": control('"one.cf"', '"two.cf"'),
    "one.cf": bundle("same"),
    "two.cf": bundle("same"),
  });
  assert.deepEqual(load(root).files, ["main.cf", "one.cf"]);
});

test("inputs may use variables of common bundles, sys vars and function results", () => {
  const root = tree({
    "main.cf":
      control('"defs.cf"', "@(defs.inputs)", '"$(defs.dir)/d.cf"', '"$(sys.inputdir)/e.cf"') +
      'bundle common top { vars: "unused" string => "x"; }\n',
    "defs.cf": `bundle common defs {
  vars:
    "input[b]" string => "b.cf";
    linux|!linux::
      "input[c]" string => "c.cf";
    any::
      "inputs" slist => sort(getvalues("input"), "lex");
      "dir" string => "$(this.promise_dirname)/sub";
}\n`,
    "b.cf": bundle("b"),
    "c.cf": bundle("c"),
    "sub/d.cf": bundle("d"),
    "in/e.cf": bundle("e"),
  });
  const { files, problems } = load(root, { inputDir: join(root, "in") });
  assert.deepEqual(files, ["main.cf", "defs.cf", "b.cf", "c.cf", "sub/d.cf", "in/e.cf"]);
  assert.deepEqual(problems, []);
});

test("a variable defined in a later file is unresolved when the input is evaluated", () => {
  const root = tree({
    "main.cf": control("@(late.inputs)", '"late.cf"'),
    "late.cf": 'bundle common late { vars: "inputs" slist => { "x.cf" }; }\n',
    "x.cf": bundle("x"),
  });
  const notes = noted();
  const { files, problems } = load(root, { messages: notes.sinks });
  assert.deepEqual(files, ["main.cf", "late.cf"]);
  // As 3.21: an error logged, not a problem of the policy.
  assert.deepEqual(problems, []);
  assert.deepEqual(notes.lines, ["error Unresolved variable '@(late.inputs)' in input list, cannot parse"]);
});

test("this.promise_dirname does not resolve in a control body", () => {
  const root = tree({ "main.cf": control('"$(this.promise_dirname)/x.cf"'), "x.cf": bundle("x") });
  const notes = noted();
  assert.deepEqual(load(root, { messages: notes.sinks }).problems, []);
  assert.deepEqual(notes.lines, [
    "error Unresolved variable '$(this.promise_dirname)/x.cf' in input list, cannot parse",
  ]);
});

test("class guards and -D/-N classes pick inputs", () => {
  const root = tree({
    "main.cf": `body common control {
  special:: inputs => { "s.cf" };
  !special:: inputs => { "n.cf" };
}\n`,
    "s.cf": bundle("s"),
    "n.cf": bundle("n"),
  });
  assert.deepEqual(load(root).files, ["main.cf", "n.cf"]);
  assert.deepEqual(load(root, { defines: ["special"] }).files, ["main.cf", "s.cf"]);
  assert.deepEqual(load(root, { defines: ["special"], negates: ["special"] }).files, ["main.cf", "n.cf"]);
});

test("missing inputs: an error at the input, or silence with ignoreMissingInputs", () => {
  const root = tree({ "main.cf": control('"gone.cf"', '"here.cf"'), "here.cf": bundle("here") });
  assert.deepEqual(load(root).problems, ["error input-not-found main.cf"]);
  assert.deepEqual(load(root).files, ["main.cf", "here.cf"]);
  assert.deepEqual(load(root, { ignoreMissingInputs: true }).problems, []);
});

test("ignore_missing_inputs in body common control is honoured", () => {
  const root = tree({
    "main.cf": 'body common control { ignore_missing_inputs => "true"; inputs => { "gone.cf" }; }\n',
  });
  assert.deepEqual(load(root).problems, []);
});

test("a missing entry file is an error at the entry file", () => {
  const result = loadPolicy(join(tmpdir(), "tend-no-such-dir", "main.cf"));
  assert.deepEqual(
    result.diagnostics.map((d) => d.code),
    ["input-not-found"],
  );
  assert.equal(result.set.files.length, 0);
});

test("def.json inputs and vars are installed before the policy loads", () => {
  const root = tree({
    "def.json":
      '{ "inputs": ["aug.cf"], "vars": { "extra": "x.cf" }, "classes": { "from_augments": ["any"] } }',
    "main.cf": `${control("@(def.augments_inputs)", '"$(def.extra)"')}
body file control { from_augments:: inputs => { "cls.cf" }; }\n`,
    "aug.cf": bundle("aug"),
    "x.cf": bundle("x"),
    "cls.cf": bundle("cls"),
  });
  assert.deepEqual(load(root).files, ["main.cf", "aug.cf", "x.cf", "cls.cf"]);
});

test("resolveEntryPath follows cf-promises' -f rule", () => {
  assert.equal(resolveEntryPath("promises.cf", "/in"), "/in/promises.cf");
  assert.equal(resolveEntryPath("./promises.cf", "/in"), "./promises.cf");
  assert.equal(resolveEntryPath("/x/promises.cf", "/in"), "/x/promises.cf");
});

const MASTERFILES = "/var/lib/cfengine3/masterfiles/promises.cf";

/** The files cf-promises parses, from its verbose log. */
function cfPromisesFiles(entry: string): string[] | undefined {
  const run = spawnSync("cf-promises", ["-v", "-f", entry], { encoding: "utf8", timeout: 60_000 });
  if (run.error || run.status !== 0) return undefined;
  const marker = "BEGIN parsing file: ";
  return run.stdout
    .split("\n")
    .filter((line) => line.includes(marker))
    .map((line) => line.slice(line.indexOf(marker) + marker.length).trim());
}

test("the Masterfiles Policy Framework loads the same files as cf-promises", (t) => {
  if (!existsSync(MASTERFILES)) {
    t.skip("no masterfiles at /var/lib/cfengine3/masterfiles");
    return;
  }
  const result = loadPolicy(MASTERFILES);
  const ours = result.set.files.map((f) => resolve(f.source.path));
  assert.deepEqual(
    result.diagnostics.filter((d) => d.code.startsWith("input")),
    [],
  );
  const theirs = cfPromisesFiles(MASTERFILES);
  if (!theirs) {
    // Without cf-promises, check against the list 3.21.0 loads on Debian 12.
    assert.ok(ours.length >= 40, `only ${ours.length} files`);
    return;
  }
  // Order differs only where 3.21 iterates a hash table (getvalues of an array).
  assert.deepEqual([...ours].sort(), theirs.map((p) => resolve(p)).sort());
});
