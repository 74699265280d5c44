/**
 * Where tend deliberately does better than cf-agent 3.21 with users
 * promises, pinned: what tend leaves, and (when cf-agent is installed)
 * what 3.21 does instead, so the difference stays known.
 *
 * - Unlocking an account whose hash is a bare `!` (what useradd leaves):
 *   3.21 strips the `!` and leaves an empty password, which lets anyone
 *   log in; tend sets `x`, a hash no password matches.
 * - An empty stored hash and a plaintext password: 3.21 asks PAM, which
 *   (`nullok`) accepts any password for it, so the password is never set;
 *   tend sets it.
 * - Shell characters in a value: 3.21 runs useradd/usermod through a
 *   shell with the value in double quotes, so `$HOME` is expanded and
 *   quotes vanish (and the promise is repaired on every run); tend passes
 *   the value as it is.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { type UsersScenario, runScenario } from "./harness.js";
import { sandboxUnavailable } from "./sandbox.js";

const skip = sandboxUnavailable() ?? false;
const haveCfAgent = spawnSync("cf-agent", ["--version"]).status === 0;

function shadowOf(state: readonly string[], user: string): string | undefined {
  return state.find((line) => line.startsWith(`shadow: ${user}:`));
}

test("unlocking a bare ! sets the x hash, not an empty password", { skip }, async () => {
  const scenario: UsersScenario = {
    name: "unlock-bare-bang",
    setup: "useradd tu1",
    main: `users: "tu1" policy => "present", classes => c("x");`,
    users: ["tu1"],
  };
  const tend = await runScenario(scenario, "tend");
  assert.equal(shadowOf(tend.state, "tu1"), "shadow: tu1:x:<day>:0:99999:7:::");
  assert.deepEqual(tend.runs[0]?.log, ["info: Modified user 'tu1'"]);
  assert.deepEqual(tend.runs[1]?.reports, ["classes: x_kept"]);
  if (!haveCfAgent) return;
  const cfAgent = await runScenario(scenario, "cf-agent");
  assert.equal(shadowOf(cfAgent.state, "tu1"), "shadow: tu1::<day>:0:99999:7:::");
});

test("a plaintext password is set over an empty hash", { skip }, async () => {
  const scenario: UsersScenario = {
    name: "plaintext-over-empty-hash",
    setup: "useradd tu1\npasswd -d tu1 >/dev/null",
    main: `users: "tu1" policy => "present", password => pw("plaintext", "Not0Empty!"), classes => c("x");`,
    users: ["tu1"],
    plaintext: ["Not0Empty!"],
  };
  const tend = await runScenario(scenario, "tend");
  assert.equal(shadowOf(tend.state, "tu1"), "shadow: tu1:<crypt:Not0Empty!>:<day>:0:99999:7:::");
  assert.deepEqual(tend.runs[1]?.reports, ["classes: x_kept"]);
  if (!haveCfAgent) return;
  const cfAgent = await runScenario(scenario, "cf-agent");
  assert.equal(shadowOf(cfAgent.state, "tu1"), "shadow: tu1::<day>:0:99999:7:::");
  assert.deepEqual(cfAgent.runs[0]?.reports, ["classes: x_kept"]);
});

test("values reach the shadow tools as written, shell characters included", { skip }, async () => {
  const scenario: UsersScenario = {
    name: "shell-characters",
    main: `users: "tu1" policy => "present", description => "Costs $HOME and \\"more\\"", classes => c("x");`,
    users: ["tu1"],
  };
  const tend = await runScenario(scenario, "tend");
  const gecos = (state: readonly string[]) => state.find((l) => l.startsWith("passwd: tu1:"))?.split(":")[5];
  assert.equal(gecos(tend.state), 'Costs $HOME and "more"');
  assert.deepEqual(tend.runs[1]?.reports, ["classes: x_kept"]);
  if (!haveCfAgent) return;
  const cfAgent = await runScenario(scenario, "cf-agent");
  assert.match(gecos(cfAgent.state) ?? "", /^Costs \/\S* and more$/);
  assert.deepEqual(cfAgent.runs[1]?.reports, ["classes: x_repaired"]);
});
