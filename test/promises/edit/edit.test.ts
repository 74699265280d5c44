/**
 * edit_line through `tend agent`, each case compared with what cf-agent
 * 3.21 wrote for the same policy and files (recorded from cf-agent runs).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { scratchDirectory } from "../../scratch.js";

interface Run {
  readonly status: number | null;
  readonly out: string[];
}

interface Case {
  readonly root: string;
  readonly dir: string;
  readonly policy: string;
}

/** Writes `files` into a fresh temp dir, the policy (main gets `$(d)`) beside it. */
function makeCase(files: Record<string, string>, body: string): Case {
  const root = scratchDirectory("tend-edit-");
  const dir = join(root, "d");
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const policy = join(root, "policy.cf");
  writeFileSync(
    policy,
    `body common control { bundlesequence => { "main" }; }
bundle agent main {
vars: "d" string => "${dir}";
${body}`,
  );
  return { root, dir, policy };
}

function runTend(c: Case): Run {
  const result = spawnSync(process.execPath, ["bin/tend.js", "agent", "-KI", "-f", c.policy], {
    env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: join(c.root, "wd") },
    encoding: "utf8",
  });
  const out = `${result.stdout}${result.stderr}`
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => l.split(c.dir).join("D").split(c.root).join("R"))
    // The load-time notes about shared anchors are checked by differential.test.ts.
    .filter(
      (l, i, all) =>
        !l.includes("same select_line_matching anchor") &&
        !all[i - 1]?.includes("same select_line_matching anchor"),
    );
  return { status: result.status, out };
}

function contents(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) out[name] = readFileSync(join(dir, name), "utf8");
  return out;
}

const INSERT_POLICY = `files:
  "$(d)/f1" edit_line => ins;
  "$(d)/f2" edit_line => ins2;
  "$(d)/f3" edit_line => ins3;
  "$(d)/f4" edit_line => ins4;
  "$(d)/new" create => "true", edit_line => ins2;
}
bundle edit_line ins {
insert_lines:
  "a";
  "z";
  "top" location => start;
  "after-b" location => after("b");
  "before-b" location => before("b");
  "end" location => after("c");
}
bundle edit_line ins2 {
insert_lines:
  "one
x1
x2";
  "p1
p2" location => start;
}
bundle edit_line ins3 {
insert_lines:
  "bl1
x
bl2" insert_type => "preserve_block";
}
bundle edit_line ins4 {
insert_lines:
  "after-first" location => afterfirst("k=.*");
  "after-last" location => after("k=.*");
  "before-first" location => beforefirst("k=.*");
}
body location start { before_after => "before"; }
body location after(s) { select_line_matching => "$(s)"; before_after => "after"; }
body location before(s) { select_line_matching => "$(s)"; before_after => "before"; }
body location afterfirst(s) { select_line_matching => "$(s)"; before_after => "after"; first_last => "first"; }
body location beforefirst(s) { select_line_matching => "$(s)"; before_after => "before"; first_last => "first"; }
`;

test("insert_lines: end, start, before/after the first or last locator, blocks (as cf-agent)", () => {
  const c = makeCase({ f1: "a\nb\nc\n", f2: "one\ntwo\nthree", f3: "x\n", f4: "k=1\nk=2\n" }, INSERT_POLICY);
  const first = runTend(c);
  assert.equal(first.status, 0, first.out.join("\n"));
  assert.deepEqual(contents(c.dir), {
    f1: "top\na\nbefore-b\nb\nafter-b\nc\nend\nz\n",
    "f1.cf-before-edit": "a\nb\nc\n",
    f2: "p1\np2\none\ntwo\nthree\nx1\nx2\n",
    "f2.cf-before-edit": "one\ntwo\nthree",
    f3: "x\nbl1\nx\nbl2\n",
    "f3.cf-before-edit": "x\n",
    f4: "before-first\nk=1\nafter-first\nk=2\nafter-last\n",
    "f4.cf-before-edit": "k=1\nk=2\n",
    new: "p1\np2\none\nx1\nx2\n",
    "new.cf-before-edit": "",
  });
  assert.deepEqual(first.out.slice(0, 3), [
    "    info: Inserted the promised line 'z' into 'D/f1' after locator",
    "    info: insert_lines promise 'z' repaired",
    "    info: Prepended the promised line 'top' to D/f1",
  ]);
  assert.ok(first.out.includes("    info: Edited file 'D/f1'"));
  const second = runTend(c);
  assert.deepEqual(second.out, [], "a second run keeps everything");
});

const DELETE_REPLACE_POLICY = `files:
  "$(d)/f1" edit_line => del;
  "$(d)/f2" edit_line => notm;
  "$(d)/f3" edit_line => rep;
  "$(d)/f4" edit_line => ins("new"), edit_defaults => ed("true", "false");
  "$(d)/f5" edit_line => ins("old"), edit_defaults => ed("true", "false");
  "$(d)/f6" edit_line => rep1, edit_defaults => ed("false", "false");
  "$(d)/missing" edit_line => ins("x");
}
bundle edit_line del {
delete_lines:
  "#.*";
  "BEGIN
mid
END";
}
bundle edit_line notm { delete_lines: "b.*" not_matching => "true"; }
bundle edit_line rep {
replace_patterns:
  "port=(\\d+)(?! )" replace_with => with("PORT[$(match.1)]");
  "name: (\\w+)" replace_with => with("user $(match.1) ($(match.0))");
}
bundle edit_line rep1 { replace_patterns: "v=1" replace_with => first("v=2"); }
bundle edit_line ins(x) { insert_lines: "$(x)"; }
body replace_with with(v) { replace_value => "$(v)"; }
body replace_with first(v) { replace_value => "$(v)"; occurrences => "first"; }
body edit_defaults ed(e, b) { empty_file_before_editing => "$(e)"; edit_backup => "$(b)"; }
`;

test("delete_lines, replace_patterns with match groups, edit_defaults (as cf-agent)", () => {
  const c = makeCase(
    {
      f1: "# c1\nkeep\n# c2\nBEGIN\nmid\nEND\ntail\n",
      f2: "a1\nb2\nc3\n",
      f3: "port=80 host=x port=81\nname: joe\n",
      f4: "old\n",
      f5: "old\n",
      f6: "v=1\n",
    },
    DELETE_REPLACE_POLICY,
  );
  const first = runTend(c);
  assert.equal(first.status, 0, first.out.join("\n"));
  assert.deepEqual(contents(c.dir), {
    f1: "keep\ntail\n",
    "f1.cf-before-edit": "# c1\nkeep\n# c2\nBEGIN\nmid\nEND\ntail\n",
    f2: "b2\n",
    "f2.cf-before-edit": "a1\nb2\nc3\n",
    f3: "PORT[8]0 host=x PORT[81]\nname: joe\n",
    "f3.cf-before-edit": "port=80 host=x port=81\nname: joe\n",
    f4: "new\n",
    f5: "old\n",
    f6: "v=2\n",
  });
  assert.ok(first.out.includes("    info: Deleted the promised line 3 'END' from D/f1"));
  assert.ok(!first.out.some((l) => l.includes("'old'")), "edits of a file left as it was are not reported");
  const second = runTend(c);
  const loop = `${"user joe (".repeat(20)}name: joe${")".repeat(20)}`;
  assert.deepEqual(second.out, [
    `   error: Promised replacement '${loop}' on line 'name: joe' for pattern 'name: (\\w+)' is not convergent while editing 'D/f3' (regular expression matches the replacement string)`,
    "   error: Promise belongs to bundle 'rep' in file 'R/policy.cf' near line 24",
    "   error: Errors encountered when actuating replace_patterns promise 'name: (\\w+)'",
    " warning: Setting replace-occurrences policy to 'first' is not convergent",
    "   error: File 'D/missing' was marked for editing but could not be opened",
    "   error: Errors encountered when actuating files promise 'D/missing'",
  ]);
});
