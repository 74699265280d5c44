/**
 * Promise modules are started ahead of their first promise (see
 * src/promises/custom/early-start.ts): the first promise takes the process
 * over, a module whose file changed by then is started anew from the new
 * file, and one no promise comes to ends with the run. The modules are
 * shell scripts on the fixture library (test/fixtures/modules/lib.sh) that
 * note their process id and when they started.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { scratchDirectory } from "../../scratch.js";
import { fixtureDir, runPolicy } from "./run-module.js";

const LIMITS = { timeout: 30_000 };

/** A module that notes its pid and start (ns) in `dir` and defines `resultClass` for every promise. */
function noteTakingModule(dir: string, resultClass: string): string {
  return `misbehave() {
  [ "$1" = evaluate_promise ] || return 1
  printf 'operation=evaluate_promise\\nresult=kept\\nresult_classes=${resultClass}\\n\\n'
}
echo $$ > "${dir}/pid"
date +%s%N > "${dir}/started"
. "${fixtureDir}/lib.sh"
`;
}

function declaration(modulePath: string): string {
  return `promise agent fx\n{\n  interpreter => "/bin/sh";\n  path => "${modulePath}";\n}\n`;
}

test("a module started ahead is taken over by its first promise", LIMITS, () => {
  const dir = scratchDirectory("tend-early-start-");
  const module = join(dir, "module.sh");
  writeFileSync(module, noteTakingModule(dir, "answered"));
  const run = runPolicy(`${declaration(module)}
bundle agent main
{
  commands:
      "/bin/sh -c 'sleep 0.3; date +%s%N > ${dir}/commands-ended'";
  fx:
      "one" x => "1";
      "two" x => "1";
  classes:
      "seen" expression => "answered", scope => "namespace";
}
`);
  assert.equal(run.exitCode, 0);
  assert.deepEqual([run.outcome("one"), run.outcome("two")], ["kept", "kept"]);
  assert.ok(run.classes.includes("seen"));
  assert.equal(run.logged(/Starting custom promise module/).length, 1);
  // It was running while the commands promise before it slept.
  const started = BigInt(readFileSync(join(dir, "started"), "utf8").trim());
  const commandsEnded = BigInt(readFileSync(join(dir, "commands-ended"), "utf8").trim());
  assert.ok(
    commandsEnded - started > 200_000_000n,
    `started ${(commandsEnded - started) / 1_000_000n} ms before`,
  );
});

test("a module whose file changes before its first promise is started anew from the new file", LIMITS, () => {
  const dir = scratchDirectory("tend-early-start-");
  const module = join(dir, "module.sh");
  writeFileSync(module, noteTakingModule(dir, "from_old_file"));
  writeFileSync(join(dir, "new.sh"), noteTakingModule(dir, "from_new_file"));
  const run = runPolicy(`${declaration(module)}
bundle agent main
{
  commands:
      "/bin/cp ${dir}/new.sh ${module}";
  fx:
      "one" x => "1";
  classes:
      "old" expression => "from_old_file", scope => "namespace";
      "new" expression => "from_new_file", scope => "namespace";
}
`);
  assert.equal(run.exitCode, 0);
  assert.equal(run.outcome("one"), "kept");
  assert.ok(run.classes.includes("new") && !run.classes.includes("old"), run.classes.join(" "));
});

test("a module no promise comes to ends with the run", LIMITS, () => {
  const dir = scratchDirectory("tend-early-start-");
  const module = join(dir, "module.sh");
  writeFileSync(module, noteTakingModule(dir, "answered"));
  const run = runPolicy(`${declaration(module)}
bundle agent main
{
  commands:
      "/bin/sleep 0.2";
  reports:
      "main ran";
}
bundle agent never_called
{
  fx:
      "one" x => "1";
}
`);
  assert.equal(run.exitCode, 0);
  assert.deepEqual(run.reports, ["main ran"]);
  assert.deepEqual(run.logged(/Starting custom promise module|promise module/i), []);
  // Started ahead (a module should do nothing before the agent's header), and killed since.
  const pid = readFileSync(join(dir, "pid"), "utf8").trim();
  let state = "gone";
  try {
    state = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] ?? "gone";
  } catch {
    // Reaped.
  }
  assert.ok(state === "gone" || state === "Z", `process ${pid} is in state ${state}`);
});
