/**
 * The users provider on its own: parsing the account databases, resolving
 * groups, and the commands it runs (through a fake runner, on databases in
 * a temporary root), so nothing here touches the system.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  type ToolResult,
  type UserSpec,
  ensureUser,
  groupName,
  parseGroup,
  parsePasswd,
  parseShadow,
  secondaryGroups,
} from "../../../src/providers/users/index.js";

test("passwd entries: fields, comments and malformed lines skipped", () => {
  const text =
    "root:x:0:0:root:/root:/bin/bash\n# comment\n\nbad:x:zero:0::/:/bin/sh\nshort:x:1\nu:x:1000:100:U, Name:/home/u:/bin/sh\n";
  assert.deepEqual(parsePasswd(text), [
    { name: "root", passwd: "x", uid: 0, gid: 0, gecos: "root", dir: "/root", shell: "/bin/bash" },
    { name: "u", passwd: "x", uid: 1000, gid: 100, gecos: "U, Name", dir: "/home/u", shell: "/bin/sh" },
  ]);
});

test("shadow entries: name, hash and expiry", () => {
  assert.deepEqual(parseShadow("u:$6$s$h:20000:0:99999:7:::\nv:!:1:::::21915:\n"), [
    { name: "u", hash: "$6$s$h", expire: "" },
    { name: "v", hash: "!", expire: "21915" },
  ]);
});

test("group entries: members split, empty member list", () => {
  assert.deepEqual(parseGroup("adm:x:4:syslog,u\nusers:x:100:\nbad:x:x:\n"), [
    { name: "adm", gid: 4, members: ["syslog", "u"] },
    { name: "users", gid: 100, members: [] },
  ]);
});

const GROUPS = parseGroup("adm:x:4:u\nsys:x:3:\n100:x:500:\nusers:x:100:u,v\n");

test("a gid names its group; a group named by the digits wins; unknown stays", () => {
  assert.equal(groupName("3", GROUPS), "sys");
  assert.equal(groupName("100", GROUPS), "100");
  assert.equal(groupName("999", GROUPS), "999");
  assert.equal(groupName("adm", GROUPS), "adm");
});

test("secondary groups: wanted ones that exist, in file order, against the current ones", () => {
  assert.deepEqual(secondaryGroups("u", ["users", "3", "nosuch"], GROUPS), {
    toSet: ["sys", "users"],
    current: ["adm", "users"],
  });
  assert.deepEqual(secondaryGroups("w", [], GROUPS), { toSet: [], current: [] });
});

interface Call {
  readonly argv: readonly string[];
  readonly input?: string;
}

/** A root with the given databases, a runner that records calls, and the provider's messages. */
function fixture(
  files: { passwd?: string; shadow?: string; group?: string },
  answer?: (argv: readonly string[]) => ToolResult,
) {
  const root = mkdtempSync(join(tmpdir(), "tend-users-provider-"));
  mkdirSync(join(root, "etc"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, "etc", name), text);
  const calls: Call[] = [];
  const log: string[] = [];
  const run = (argv: readonly string[], input?: string): ToolResult => {
    calls.push({ argv, input });
    return answer?.(argv) ?? { status: 0, stdout: "", stderr: "" };
  };
  const ensure = (spec: UserSpec, dryRun = false, onCreate?: () => boolean) =>
    ensureUser(spec, {
      root,
      dryRun,
      run,
      log: (level, message) => log.push(`${level}: ${message}`),
      onCreate,
    });
  return { root, calls, log, ensure, done: () => rmSync(root, { recursive: true, force: true }) };
}

const BASE = {
  passwd: "root:x:0:0:root:/root:/bin/bash\nu:x:1000:1000:U:/home/u:/bin/sh\n",
  shadow: "root:*:1::::::\nu:$6$s$h:1:0:99999:7:::\n",
  group: "root:x:0:\nu:x:1000:\nadm:x:4:u\nusers:x:100:\n",
};

test("an absent account promised absent is kept; nothing runs", () => {
  const f = fixture(BASE);
  try {
    assert.deepEqual(f.ensure({ name: "nobody_here", policy: "absent" }), { status: "kept", changes: [] });
    assert.deepEqual(f.calls, []);
  } finally {
    f.done();
  }
});

test("creating: useradd with every property, groups again, the x hash, home bundle, then the password", () => {
  const f = fixture(BASE);
  const order: string[] = [];
  try {
    const spec: UserSpec = {
      name: "n",
      policy: "present",
      uid: "2000",
      description: 'Quote " and $HOME',
      groupPrimary: "users",
      groupsSecondary: ["adm"],
      homeDir: "/home/n",
      shell: "/bin/bash",
      password: { format: "hash", data: "$6$t$u" },
    };
    const result = f.ensure(spec, false, () => order.push(`home bundle after ${f.calls.length} calls`) > 0);
    assert.equal(result.status, "changed");
    const P = ["-P", f.root];
    assert.deepEqual(
      f.calls.map((c) => [c.argv, c.input]),
      [
        [
          [
            "/usr/sbin/useradd",
            ...P,
            "-u",
            "2000",
            "-c",
            'Quote " and $HOME',
            "-g",
            "users",
            "-G",
            "adm",
            "-d",
            "/home/n",
            "-s",
            "/bin/bash",
            "-M",
            "n",
          ],
          "",
        ],
        [["/usr/sbin/usermod", ...P, "-G", "adm", "n"], undefined],
        [["/usr/sbin/chpasswd", "-R", f.root, "-e"], "n:x\n"],
        [["/usr/sbin/chpasswd", "-R", f.root, "-e"], "n:$6$t$u\n"],
      ].map(([argv, input]) => [argv, input === "" ? undefined : input]),
    );
    assert.deepEqual(order, ["home bundle after 3 calls"]);
    assert.ok(
      f.log.includes(
        `verbose: Creating user 'n'. (command: '/usr/sbin/useradd -u "2000" -c "Quote " and $HOME" -g "users" -G "adm" -d "/home/n" -s "/bin/bash" -M n')`,
      ),
    );
    assert.equal(f.log.at(-1), "info: Created user 'n'");
  } finally {
    f.done();
  }
});

test("a dry run creates nothing: it warns, fails, and reports the change as not applied", () => {
  const f = fixture(BASE);
  try {
    const result = f.ensure({ name: "n", policy: "present" }, true);
    assert.equal(result.status, "failed");
    assert.deepEqual(result.changes, [
      { property: "ensure", old: "absent", new: "present", message: "account created", applied: false },
    ]);
    assert.deepEqual(f.calls, []);
    assert.deepEqual(f.log, ["warning: Need to create user 'n'.", "error: Failed to create user 'n'"]);
  } finally {
    f.done();
  }
});

test("modifying: one usermod for the properties that differ, the changes as data", () => {
  const f = fixture(BASE);
  try {
    const result = f.ensure({
      name: "u",
      policy: "present",
      shell: "/bin/bash",
      uid: "1000",
      groupsSecondary: [],
    });
    assert.equal(result.status, "changed");
    assert.deepEqual(
      f.calls.map((c) => c.argv),
      [["/usr/sbin/usermod", "-P", f.root, "-s", "/bin/bash", "-G", "", "u"]],
    );
    assert.deepEqual(
      result.changes.map((c) => [c.property, c.old, c.new, c.applied]),
      [
        ["shell", "/bin/sh", "/bin/bash", true],
        ["groups_secondary", "adm", "", true],
      ],
    );
  } finally {
    f.done();
  }
});

test("locking: a ! before the hash, then the 1970 expiry date", () => {
  const f = fixture(BASE);
  try {
    assert.equal(f.ensure({ name: "u", policy: "locked" }).status, "changed");
    assert.deepEqual(
      f.calls.map((c) => [c.argv.at(-1), c.input]),
      [
        ["-e", "u:!$6$s$h\n"],
        ["u", undefined],
      ],
    );
    assert.deepEqual(f.calls[1]?.argv, ["/usr/sbin/usermod", "-P", f.root, "-e", "1970-01-02", "u"]);
  } finally {
    f.done();
  }
});

test("unlocking a bare ! (as useradd leaves it) sets x, not an empty password (3.21 empties it)", () => {
  const f = fixture({ ...BASE, shadow: "u:!:1:0:99999:7:::\n" });
  try {
    assert.equal(f.ensure({ name: "u", policy: "present" }).status, "changed");
    assert.equal(f.calls[0]?.input, "u:x\n");
    assert.deepEqual(f.calls[1]?.argv.slice(-3), ["-e", "", "u"]);
  } finally {
    f.done();
  }
});

test("a plaintext password is checked with crypt against the stored hash", () => {
  const f = fixture(BASE, (argv) => ({ status: 0, stdout: argv[0] === "perl" ? "1" : "", stderr: "" }));
  try {
    const result = f.ensure({ name: "u", policy: "present", password: { format: "plaintext", data: "pw" } });
    assert.equal(result.status, "kept");
    assert.deepEqual(
      f.calls.map((c) => [c.argv[0], c.input]),
      [["perl", "$6$s$h\npw"]],
    );
    assert.ok(f.log.includes("verbose: Verifying plaintext password for user 'u': correct."));
  } finally {
    f.done();
  }
});

test("a primary group that does not exist is logged and the usermod failure reported", () => {
  const f = fixture(BASE, () => ({ status: 6, stdout: "", stderr: "usermod: group 'nog' does not exist\n" }));
  try {
    assert.equal(f.ensure({ name: "u", policy: "present", groupPrimary: "nog" }).status, "failed");
    assert.deepEqual(
      f.log.filter((l) => !l.startsWith("verbose")),
      [
        "error: No such group 'nog'.",
        "notice: usermod: group 'nog' does not exist",
        `error: Command returned error while modifying user 'u'. (Command line: '/usr/sbin/usermod -g "nog" u')`,
        "error: Failed to modify user 'u'",
      ],
    );
  } finally {
    f.done();
  }
});

test("no passwd database: the failure is reported, nothing runs", () => {
  const f = fixture({});
  try {
    assert.equal(f.ensure({ name: "u", policy: "present" }).status, "failed");
    assert.deepEqual(f.log, [
      "error: Could not open '/etc/passwd': No such file or directory",
      "error: Could not get information from user database.",
    ]);
    assert.deepEqual(f.calls, []);
  } finally {
    f.done();
  }
});

test("a front end that stops at onCreate stops the provider: no password, no more messages", () => {
  const f = fixture(BASE);
  try {
    const spec: UserSpec = { name: "n", policy: "present", password: { format: "hash", data: "$6$t$u" } };
    assert.equal(f.ensure(spec, false, () => false).status, "failed");
    assert.deepEqual(
      f.calls.map((c) => c.input),
      [undefined, "n:x\n"],
    );
    assert.equal(f.log.filter((l) => !l.startsWith("verbose")).length, 0);
  } finally {
    f.done();
  }
});
