/**
 * user and group actions beyond create/remove, as Chef documents them:
 * `modify` (fails without the account; why-run assumes it made), `manage`
 * (nothing without it), `lock`/`unlock` (the shadow password's `!`), and a
 * group's `members` with `append` (false by default: exactly `members`;
 * true: added, `excludedMembers` removed). On a temporary root whose
 * /etc files fake shadow tools edit: nothing on the machine is touched.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { ToolRunner } from "../../../src/providers/users/index.js";
import type { ConvergeEvent } from "../../../src/recipes/converge.js";
import type { Recipe } from "../../../src/recipes/dsl.js";
import { compile, run, tempDir } from "./helpers.js";

function machine(dir: string) {
  const root = join(dir, "root");
  const etc = join(root, "etc");
  mkdirSync(etc, { recursive: true });
  writeFileSync(
    join(etc, "passwd"),
    "root:x:0:0:root:/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\n",
  );
  writeFileSync(join(etc, "shadow"), "root:*:19000:0:99999:7:::\nalice:$6$salt$hash:19000:0:99999:7:::\n");
  writeFileSync(join(etc, "group"), "root:x:0:\ndevs:x:1500:alice,bob\n");
  const calls: string[] = [];
  const edit = (file: string, field: number, value: (old: string) => string, name: string) => {
    const path = join(etc, file);
    const lines = readFileSync(path, "utf8").trimEnd().split("\n");
    const out = lines.map((l) => {
      const f = l.split(":");
      if (f[0] === name) f[field] = value(f[field] ?? "");
      return f.join(":");
    });
    writeFileSync(path, `${out.join("\n")}\n`);
  };
  const tools: ToolRunner = (argv) => {
    const args = argv.filter((a, i) => a !== "-P" && argv[i - 1] !== "-P").slice(1);
    calls.push(`${argv[0]?.split("/").at(-1)} ${args.join(" ")}`);
    const name = args.at(-1) ?? "";
    if (argv[0]?.endsWith("usermod") && args[0] === "-L") edit("shadow", 1, (old) => `!${old}`, name);
    if (argv[0]?.endsWith("usermod") && args[0] === "-U")
      edit("shadow", 1, (old) => old.replace(/^!/, ""), name);
    if (argv[0]?.endsWith("usermod") && args[0] === "-s") edit("passwd", 6, () => args[1] ?? "", name);
    if (argv[0]?.endsWith("groupmod") && args[0] === "-U") edit("group", 3, () => args[1] ?? "", name);
    return { status: 0, stdout: "", stderr: "" };
  };
  return { root, tools, calls, read: (file: string) => readFileSync(join(etc, file), "utf8") };
}

type Action = Extract<ConvergeEvent, { kind: "action" }>;

async function converge(m: ReturnType<typeof machine>, recipe: Recipe, whyRun = false) {
  const result = await run(await compile(recipe), {
    whyRun,
    system: { root: m.root, accountTools: m.tools },
  });
  return { ...result, actions: result.events.filter((e): e is Action => e.kind === "action") };
}

test("lock and unlock: the shadow password's '!', once", async (t) => {
  const m = machine(tempDir(t));
  const lock: Recipe = (r) => {
    r.user("alice", { action: "lock" });
  };
  const first = await converge(m, lock);
  assert.deepEqual(first.journal, ["user[alice] lock updated"]);
  assert.deepEqual(first.actions[0]?.lines, ["lock the user alice"]);
  assert.match(m.read("shadow"), /^alice:!\$6\$salt\$hash:/m);
  assert.deepEqual((await converge(m, lock)).journal, ["user[alice] lock up-to-date"]);
  const unlock = await converge(m, (r) => {
    r.user("alice", { action: "unlock" });
  });
  assert.deepEqual(unlock.actions[0]?.lines, ["unlock user alice"]);
  assert.match(m.read("shadow"), /^alice:\$6\$salt\$hash:/m);
  assert.deepEqual(m.calls, ["usermod -L alice", "usermod -U alice"]);
});

test("modify and manage: an existing account changed; a missing one fails, or is left alone", async (t) => {
  const m = machine(tempDir(t));
  const changed = await converge(m, (r) => {
    r.user("alice", { action: "modify", shell: "/bin/bash" });
    r.user("alice", { action: "manage", shell: "/bin/bash" });
  });
  assert.deepEqual(changed.journal, ["user[alice] modify updated", "user[alice] manage up-to-date"]);
  assert.deepEqual(changed.actions[0]?.lines, ["modify user alice", "change shell"]);
  const missing = await converge(m, (r) => {
    r.user("nobody", { action: "manage", shell: "/bin/bash" });
    r.user("nobody", { action: "modify", shell: "/bin/bash" });
  });
  assert.deepEqual(missing.journal, ["user[nobody] manage up-to-date", "user[nobody] modify failed"]);
  assert.equal(missing.actions[1]?.error, "Cannot modify user nobody - does not exist!");
  const assumed = await converge(
    m,
    (r) => {
      r.user("nobody", { action: "lock" });
    },
    true,
  );
  assert.deepEqual(assumed.actions[0]?.assumptions, [
    "Cannot modify user nobody - does not exist!",
    "Assuming user nobody would have been created",
  ]);
  assert.equal(assumed.status.success, true);
});

test("group members: exactly by default; append adds and excludedMembers removes", async (t) => {
  const m = machine(tempDir(t));
  await converge(m, (r) => {
    r.group("devs", {
      action: "modify",
      members: ["alice", "carol"],
      append: true,
      excludedMembers: ["bob"],
    });
  });
  assert.match(m.read("group"), /^devs:x:1500:alice,carol$/m);
  const exact = await converge(m, (r) => {
    r.group("devs", { members: ["dave"] });
  });
  assert.deepEqual(exact.actions[0]?.lines, ["alter group devs", "change members"]);
  assert.match(m.read("group"), /^devs:x:1500:dave$/m);
  const missing = await converge(m, (r) => {
    r.group("ops", { action: "manage", members: ["x"] });
    r.group("ops", { action: "modify", members: ["x"], ignoreFailure: true });
  });
  assert.deepEqual(missing.journal, ["group[ops] manage up-to-date", "group[ops] modify failed"]);
  assert.equal(missing.actions[1]?.error, "Cannot modify group[ops] - group does not exist!");
});

test("a name both added and removed is a compile error, as Chef's", async () => {
  await assert.rejects(
    compile((r) => {
      r.group("devs", { members: ["a", "b"], excludedMembers: ["b"], append: true });
    }),
    /Attempting to both add and remove users from a group: 'b'/,
  );
});
