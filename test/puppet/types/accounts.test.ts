/**
 * Puppet's user, group, cron and host types applied under a scratch root
 * (the shadow tools' --prefix, cron's spool files, a hosts file of the
 * scratch): the events and messages Puppet 7.23 gave for the same
 * manifests (recorded by hand in a sandbox, see test/puppet/accounts/),
 * noop, and a second run that changes nothing. The machine's own accounts
 * are never touched.
 */
import assert from "node:assert/strict";
import { cpSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { CatalogResource, ParamValue } from "../../../src/catalog/model.js";
import type { ResourceResult, ResourceType } from "../../../src/catalog/resource-type.js";
import { findPuppetType } from "../../../src/puppet/types/index.js";
import { silentLogger } from "../../../src/system/logger.js";
import { scratchDirectory } from "../../scratch.js";

const TOOLS = ["/usr/sbin/useradd", "/usr/sbin/groupadd", "/usr/sbin/groupmod", "/usr/sbin/chpasswd"];
const unavailable =
  process.getuid?.() !== 0
    ? "needs root (the shadow tools)"
    : TOOLS.find((t) => {
        try {
          statSync(t);
          return false;
        } catch {
          return true;
        }
      });

function scratchRoot(): string {
  const root = scratchDirectory("tend-accounts-");
  mkdirSync(join(root, "etc"));
  mkdirSync(join(root, "home"));
  mkdirSync(join(root, "var/spool/cron/crontabs"), { recursive: true });
  for (const f of ["passwd", "group", "shadow", "gshadow", "login.defs", "skel"])
    cpSync(join("/etc", f), join(root, "etc", f), { recursive: true });
  return root;
}

function resource(type: string, title: string, parameters: Record<string, ParamValue>): CatalogResource {
  return { type, title, parameters, tags: [] };
}

async function apply(root: string, r: CatalogResource, noop = false): Promise<ResourceResult> {
  const type = findPuppetType(r.type) as ResourceType;
  assert.deepEqual(type.validate?.(r) ?? [], []);
  const catalog = {
    name: "n",
    environment: "production",
    version: "1",
    resources: [r],
    edges: [],
    classes: [],
  };
  return type.apply(r, { noop, logger: silentLogger, run: { root }, catalog });
}

const messages = (result: ResourceResult) => result.events.map((e) => `${e.property}: ${e.message}`);

test("user and group: created, changed property by property, unchanged after", async (t) => {
  if (unavailable) return t.skip(`${unavailable} is absent or not usable`);
  const root = scratchRoot();
  const devs = resource("Group", "devs", { gid: 2001, ensure: "present" });
  assert.deepEqual(messages(await apply(root, devs)), ["ensure: created"]);
  const alice = resource("User", "alice", {
    uid: 2001,
    gid: "devs",
    home: "/home/alice",
    managehome: true,
    shell: "/bin/bash",
    comment: "Alice",
    groups: ["users"],
  });
  const created = await apply(root, alice);
  assert.deepEqual(messages(created), ["ensure: created"]);
  assert.equal(created.events[0]?.name, "user_created");
  assert.ok(statSync(join(root, "home/alice/.profile")).isFile());
  assert.deepEqual(messages(await apply(root, alice)), []);

  assert.deepEqual(messages(await apply(root, resource("Group", "devs", { gid: 2002 }))), [
    "gid: gid changed 2001 to 2002",
  ]);
  const changed = resource("User", "alice", {
    uid: 2002,
    gid: "users",
    home: "/home/alice2",
    shell: "/bin/sh",
    comment: "Alice B",
    groups: ["devs"],
    membership: "inclusive",
    password: "$6$abc$def",
    expiry: "2030-01-01",
  });
  const noop = await apply(root, changed, true);
  assert.deepEqual(
    noop.events.map((e) => e.status),
    Array(8).fill("noop"),
  );
  assert.equal(noop.events[1]?.message, "current_value 2001, should be 2002 (noop)");
  assert.deepEqual(messages(await apply(root, changed)), [
    "home: home changed '/home/alice' to '/home/alice2'",
    "uid: uid changed 2001 to 2002",
    "gid: gid changed 2002 to 'users'",
    "comment: comment changed 'Alice' to 'Alice B'",
    "shell: shell changed '/bin/bash' to '/bin/sh'",
    "password: changed [redacted] to [redacted]",
    "groups: groups changed users to ['devs']",
    "expiry: defined 'expiry' as '2030-01-01'",
  ]);
  assert.match(
    readFileSync(join(root, "etc/passwd"), "utf8"),
    /^alice:x:2002:100:Alice B:\/home\/alice2:\/bin\/sh$/m,
  );
  assert.match(
    readFileSync(join(root, "etc/shadow"), "utf8"),
    /^alice:\$6\$abc\$def:\d+:0:99999:7::21915:$/m,
  );
  assert.deepEqual(messages(await apply(root, changed)), []);

  const gone = await apply(root, resource("User", "alice", { ensure: "absent" }));
  assert.deepEqual(messages(gone), ["ensure: removed"]);
  assert.equal(gone.events[0]?.name, "user_removed");
});

test("user: an unknown primary group and a missing shell fail as Puppet says", async (t) => {
  if (unavailable) return t.skip(`${unavailable} is absent or not usable`);
  const root = scratchRoot();
  await apply(root, resource("User", "bob", { uid: 2101 }));
  const result = await apply(root, resource("User", "bob", { gid: "nosuch" }));
  assert.equal(result.failed, "Could not find group(s) nosuch");
  assert.equal(result.events[0]?.status, "failure");
  const shell = await apply(root, resource("User", "carol", { shell: "/bin/nosuch" }));
  assert.equal(shell.failed, "Shell /bin/nosuch must exist");
});

test("cron: Puppet Name comments, environment, special schedules", async (t) => {
  if (unavailable) return t.skip(`${unavailable} is absent or not usable`);
  const root = scratchRoot();
  const backup = resource("Cron", "backup", {
    command: "/usr/bin/backup",
    user: "root",
    hour: 2,
    minute: 30,
  });
  const env = resource("Cron", "env", {
    command: "/bin/true",
    user: "root",
    special: "daily",
    environment: ["PATH=/bin", "MAILTO=x"],
  });
  assert.deepEqual(messages(await apply(root, backup)), ["ensure: created"]);
  assert.deepEqual(messages(await apply(root, env)), ["ensure: created"]);
  const tab = readFileSync(join(root, "var/spool/cron/crontabs/root"), "utf8").replace(/^# HEADER.*\n/gm, "");
  assert.equal(
    tab,
    "# Puppet Name: backup\n30 2 * * * /usr/bin/backup\n# Puppet Name: env\nPATH=/bin\nMAILTO=x\n@daily /bin/true\n",
  );
  assert.deepEqual(messages(await apply(root, backup)), []);
  const backup2 = resource("Cron", "backup", {
    command: "/usr/bin/backup2",
    user: "root",
    hour: [3, 4],
    minute: 30,
    weekday: "Mon",
  });
  assert.deepEqual(messages(await apply(root, backup2)), [
    "command: command changed '/usr/bin/backup' to '/usr/bin/backup2'",
    "hour: hour changed ['2'] to ['3', '4']",
    "weekday: defined 'weekday' as ['1']",
  ]);
  const env2 = resource("Cron", "env", {
    command: "/bin/true",
    user: "root",
    special: "weekly",
    environment: ["PATH=/usr/bin"],
  });
  assert.deepEqual(messages(await apply(root, env2)), [
    "special: special changed 'daily' to 'weekly'",
    "environment: environment changed ['PATH=/bin', 'MAILTO=x'] to PATH=/usr/bin",
  ]);
  const bad = resource("Cron", "bad", { command: "x", hour: 25 });
  assert.deepEqual(findPuppetType("Cron")?.validate?.(bad), ["25 is not a valid hour"]);
});

test("host: created, changed, removed, other lines kept", async () => {
  const root = scratchDirectory("tend-hosts-");
  const target = join(root, "hosts");
  writeFileSync(target, "127.0.0.1 localhost\n127.0.0.1 runsc\n127.0.0.1 vm\n");
  const db = resource("Host", "db.example", {
    ip: "10.0.0.5",
    host_aliases: ["db", "database"],
    comment: "the db",
    target,
  });
  assert.deepEqual(messages(await apply(root, db)), ["ensure: created"]);
  const gone = await apply(root, resource("Host", "localhost", { ensure: "absent", target }));
  assert.deepEqual(messages(gone), ["ensure: removed"]);
  const moved = resource("Host", "db.example", {
    ip: "10.0.0.6",
    host_aliases: ["db"],
    comment: "moved",
    target,
  });
  assert.deepEqual(messages(await apply(root, moved)), [
    "ip: ip changed '10.0.0.5' to '10.0.0.6'",
    "host_aliases: host_aliases changed db database to 'db'",
    "comment: comment changed 'the db' to 'moved'",
  ]);
  const text = readFileSync(target, "utf8").replace(/^# HEADER.*\n/gm, "");
  assert.equal(text, "127.0.0.1\trunsc\n127.0.0.1\tvm\n10.0.0.6\tdb.example\tdb\t# moved\n");
  assert.deepEqual(findPuppetType("Host")?.validate?.(resource("Host", "a_b!", { ip: "300.1.1.1" })), [
    "Invalid host name",
    'Invalid IP address "300.1.1.1"',
  ]);
});
