/**
 * package, user, group and cron on fakes and temporary roots, never the
 * machine: packages through a fake dpkg-query/apt-get, accounts through a
 * fake shadow-tools runner over a temporary root's /etc, cron through the
 * spool of a temporary root. Also a service's start, reload and restart on
 * the fake machine of helpers.ts.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { ToolRunner } from "../../../src/providers/tool-runner.js";
import type { ToolRunner as AccountToolRunner } from "../../../src/providers/users/index.js";
import { compileRecipes } from "../../../src/recipes/compile.js";
import { compile, fakeService, fakeServices, run, tempDir } from "./helpers.js";

/** dpkg and apt-get kept in memory: installed packages by name. */
function fakeApt(installed: Map<string, string>): { tools: ToolRunner; calls: string[] } {
  const calls: string[] = [];
  const tools: ToolRunner = (argv) => {
    calls.push(argv.join(" "));
    const name = argv.at(-1) ?? "";
    if (argv[0] === "/usr/bin/dpkg-query") {
      const version = installed.get(name);
      return version === undefined
        ? { status: 1, stdout: "", stderr: `dpkg-query: no packages found matching ${name}` }
        : { status: 0, stdout: `install ok installed ${name} ${version}\n`, stderr: "" };
    }
    if (argv.includes("install")) installed.set(name.replace(/=.*/, ""), "1.0");
    if (argv.includes("remove") || argv.includes("purge")) installed.delete(name);
    return { status: 0, stdout: "", stderr: "" };
  };
  return { tools, calls };
}

test("package: install, then nothing to do, then remove", async () => {
  const installed = new Map<string, string>();
  const apt = fakeApt(installed);
  const install = await compile((r) => void r.package("tree"));
  const first = await run(install, { system: { tools: apt.tools } });
  assert.deepEqual(first.journal, ["package[tree] install updated"]);
  assert.ok(apt.calls.some((c) => c.includes("apt-get") && c.includes("install") && c.endsWith("tree")));
  const second = await run(install, { system: { tools: apt.tools } });
  assert.deepEqual(second.journal, ["package[tree] install up-to-date"]);
  const remove = await run(await compile((r) => void r.package("tree", { action: "remove" })), {
    system: { tools: apt.tools },
  });
  assert.deepEqual(remove.journal, ["package[tree] remove updated"]);
  assert.equal(installed.has("tree"), false);
});

/** A root with /etc/passwd, /etc/group and /etc/shadow; the fake tools add what they are asked to. */
function accountRoot(dir: string): { root: string; tools: AccountToolRunner; calls: string[] } {
  const root = join(dir, "root");
  mkdirSync(join(root, "etc"), { recursive: true });
  writeFileSync(join(root, "etc", "passwd"), "root:x:0:0:root:/root:/bin/sh\n");
  writeFileSync(join(root, "etc", "group"), "root:x:0:\n");
  writeFileSync(join(root, "etc", "shadow"), "root:*:19000:0:99999:7:::\n");
  const calls: string[] = [];
  const tools: AccountToolRunner = (argv) => {
    calls.push(argv.join(" "));
    const name = argv.at(-1) ?? "";
    const tool = argv[0]?.split("/").at(-1);
    if (tool === "useradd") {
      const uid = argv[argv.indexOf("-u") + 1] ?? "1001";
      writeFileSync(
        join(root, "etc", "passwd"),
        `${readFileSync(join(root, "etc", "passwd"), "utf8")}${name}:x:${uid}:${uid}::/home/${name}:/bin/sh\n`,
      );
    }
    if (tool === "groupadd") {
      const gid = argv[argv.indexOf("-g") + 1] ?? "1001";
      writeFileSync(
        join(root, "etc", "group"),
        `${readFileSync(join(root, "etc", "group"), "utf8")}${name}:x:${gid}:\n`,
      );
    }
    return { status: 0, stdout: "", stderr: "" };
  };
  return { root, tools, calls };
}

test("user and group: created through the shadow tools of the root, then in sync", async (t) => {
  const dir = tempDir(t);
  const { root, tools, calls } = accountRoot(dir);
  const collection = await compile((r) => {
    r.group("deploy", { gid: 1500 });
    r.user("deploy", { uid: 1500, gid: 1500, shell: "/bin/sh", home: "/home/deploy" });
  });
  const first = await run(collection, { system: { root, accountTools: tools } });
  assert.deepEqual(first.journal, ["group[deploy] create updated", "user[deploy] create updated"]);
  assert.ok(calls.some((c) => c.includes("groupadd") && c.includes("-g 1500") && c.endsWith("deploy")));
  assert.ok(calls.some((c) => c.includes("useradd") && c.includes("-u 1500") && c.endsWith("deploy")));
  const action = first.events.find((e) => e.kind === "action" && e.ref === "user[deploy]");
  assert.deepEqual(action?.kind === "action" ? action.lines : [], ["create user deploy"]);
  calls.length = 0;
  const second = await run(collection, { system: { root, accountTools: tools } });
  assert.deepEqual(second.journal, ["group[deploy] create up-to-date", "user[deploy] create up-to-date"]);
  assert.deepEqual(calls, []);
});

test("cron: a job written to the root's spool, then in sync, then deleted", async (t) => {
  const dir = tempDir(t);
  const root = join(dir, "root");
  mkdirSync(join(root, "var", "spool", "cron", "crontabs"), { recursive: true });
  mkdirSync(join(root, "etc"));
  writeFileSync(join(root, "etc", "passwd"), "root:x:0:0:root:/root:/bin/sh\n");
  const job = await compile(
    (r) => void r.cron("backup", { minute: "15", hour: "3", command: "/usr/local/bin/backup", user: "root" }),
  );
  const first = await run(job, { system: { root } });
  assert.deepEqual(first.journal, ["cron[backup] create updated"]);
  const crontab = readFileSync(join(root, "var", "spool", "cron", "crontabs", "root"), "utf8");
  assert.match(crontab, /# Puppet Name: backup\n15 3 \* \* \* \/usr\/local\/bin\/backup\n/);
  assert.deepEqual((await run(job, { system: { root } })).journal, ["cron[backup] create up-to-date"]);
  const gone = await run(await compile((r) => void r.cron("backup", { command: "x", action: "delete" })), {
    system: { root },
  });
  assert.deepEqual(gone.journal, ["cron[backup] delete updated"]);
});

test("service: start when stopped, reload and restart only when running", async () => {
  const machine = fakeServices();
  const collection = await compile((r) => {
    r.service("api", {
      ...fakeService("api"),
      reloadCommand: "reload api",
      action: ["start", "reload", "restart"],
    });
  });
  const { journal } = await run(collection, { system: { tools: machine.tools } });
  assert.deepEqual(journal, [
    "service[api] start updated",
    "service[api] reload updated",
    "service[api] restart updated",
  ]);
  assert.deepEqual(
    machine.calls.filter((c) => !c.startsWith("status")),
    ["start api", "reload api", "restart api"],
  );
  assert.ok(machine.running.has("api"));
});

const MODULE = fileURLToPath(new URL("../../../../test/fixtures/modules/file-content.sh", import.meta.url));

test("a promise module serves a resource type: repaired, then kept; why-run changes nothing", async (t) => {
  const dir = tempDir(t);
  const target = join(dir, "motd");
  const promiseModules = new Map([["file_content", { path: MODULE }]]);
  const collection = await compileRecipes(
    [
      {
        name: "m::default",
        run: (r) => void r.resource("file_content", target, { content: "hello" }),
      },
    ],
    { promiseModules },
  );
  assert.deepEqual(collection.diagnostics, []);
  const dry = await run(collection, { whyRun: true });
  assert.deepEqual(dry.journal, [`file_content[${target}] evaluate updated`]);
  assert.equal(existsSync(target), false);
  const first = await run(collection);
  assert.deepEqual(first.journal, [`file_content[${target}] evaluate updated`]);
  assert.equal(readFileSync(target, "utf8"), "hello\n");
  const second = await run(collection);
  assert.deepEqual(second.journal, [`file_content[${target}] evaluate up-to-date`]);
  const broken = await compileRecipes(
    [{ name: "m::default", run: (r) => void r.resource("file_content", join(dir, "x"), {}) }],
    {
      promiseModules,
    },
  );
  const failed = await run(broken);
  assert.equal(failed.status.success, false);
  assert.match(failed.status.exception?.message ?? "", /not kept by promise module/);
});

test("sh is a resource of its own: its code run by sh, bash's by bash", async (t) => {
  const dir = tempDir(t);
  const out = join(dir, "out");
  const collection = await compile((r) => {
    r.sh("by sh", { code: `printf 'sh:%s\\n' "$BASH_VERSION" >> ${out}` });
    r.bash("by bash", { code: `[ -n "$BASH_VERSION" ] && echo bash >> ${out}` });
  });
  const { journal, status } = await run(collection);
  assert.equal(status.success, true, JSON.stringify(status.exception));
  assert.deepEqual(journal, ["sh[by sh] run updated", "bash[by bash] run updated"]);
  const [byShell, byBash] = readFileSync(out, "utf8").split("\n");
  assert.match(String(byShell), /^sh:/);
  assert.equal(byBash, "bash");
  assert.deepEqual(
    (await compileRecipes([{ name: "t::d", run: (r) => void r.sh("x", {}) }])).diagnostics.map(
      (d) => d.message,
    ),
    ["sh[x]: sh needs `code`"],
  );
});
