/**
 * insert_lines with a multi-line promiser skips a line already in the
 * file, looking from the line that was first when the promise began — so
 * into an empty file (empty_file_before_editing) every line goes, repeated
 * ones too. Expected files recorded from cf-agent 3.21.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { scratchDirectory } from "../../scratch.js";

const CHUNK = "<P>\n  </a>\n  <b>\n  </a>\n</P>";

test("insert_lines: repeated lines of a chunk, into an empty and a non-empty file (as cf-agent)", () => {
  const dir = scratchDirectory("tend-insert-region-");
  writeFileSync(join(dir, "g"), "x\n  </a>\n");
  writeFileSync(join(dir, "h"), "x\n  </a>\n");
  writeFileSync(
    join(dir, "p.cf"),
    `body common control { bundlesequence => { "main" }; }
bundle agent main {
vars:
  "s" string => "${CHUNK}";
files:
  "${dir}/f" create => "true", edit_line => ins("$(s)"), edit_defaults => empty;
  "${dir}/g" edit_line => ins("$(s)");
  "${dir}/h" edit_line => ins_start("$(s)");
}
bundle edit_line ins(s) { insert_lines: "$(s)"; }
bundle edit_line ins_start(s) { insert_lines: "$(s)" location => start; }
body location start { before_after => "before"; }
body edit_defaults empty { empty_file_before_editing => "true"; }
`,
  );
  const run = spawnSync(process.execPath, ["bin/tend.js", "agent", "-K", "-f", join(dir, "p.cf")], {
    env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: join(dir, "wd") },
    encoding: "utf8",
  });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(readFileSync(join(dir, "f"), "utf8"), `${CHUNK}\n`);
  assert.equal(readFileSync(join(dir, "g"), "utf8"), "x\n  </a>\n<P>\n  <b>\n</P>\n");
  assert.equal(readFileSync(join(dir, "h"), "utf8"), "<P>\n  <b>\n</P>\nx\n  </a>\n");
});
