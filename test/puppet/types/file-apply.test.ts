/**
 * Puppet's file type applied in a temporary directory: events and their
 * wording as Puppet 7.23 gives them, the files left, noop, backups,
 * recursion and purging.
 */
import assert from "node:assert/strict";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileType } from "../../../src/puppet/types/file/index.js";
import { scratchDirectory } from "../../scratch.js";
import { driver, eventLines, resource } from "./file-helpers.js";

process.umask(0o022);
const HELLO = "{sha256}5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";
const ABC = "{sha256}edeaaff3f1774ad2888673770c6d64097e391bc362d7d6fb34982ddf0efd18cb";
const modeOf = (path: string) => (lstatSync(path).mode & 0o7777).toString(8).padStart(4, "0");

test("content creates a file once, with Puppet's default mode or the one given", async () => {
  const dir = scratchDirectory("tend-pfile-");
  const d = driver();
  const first = await d.apply(fileType, `${dir}/a`, { content: "hello\n" });
  assert.deepEqual(eventLines(first), [
    `File[${dir}/a] ensure success file_created: defined content as '${HELLO}'`,
  ]);
  assert.equal(modeOf(`${dir}/a`), "0644");
  assert.deepEqual(eventLines(await d.apply(fileType, `${dir}/a`, { content: "hello\n" })), []);
  await d.apply(fileType, `${dir}/b`, { content: "x", mode: "0600" });
  assert.equal(modeOf(`${dir}/b`), "0600");
  const empty = await d.apply(fileType, `${dir}/c`, { ensure: "file" });
  assert.deepEqual(eventLines(empty), [`File[${dir}/c] ensure success file_created: created`]);
});

test("content and mode changes are separate events; symbolic modes say what they asked", async () => {
  const dir = scratchDirectory("tend-pfile-");
  writeFileSync(`${dir}/a`, "hello\n", { mode: 0o644 });
  const d = driver();
  const lines = eventLines(await d.apply(fileType, `${dir}/a`, { content: "abc\n", mode: "u+x,g-r" }));
  assert.deepEqual(lines, [
    `File[${dir}/a] content success content_changed: content changed '${HELLO}' to '${ABC}'`,
    `File[${dir}/a] mode success mode_changed: mode changed '0644' to '0704' (u+x,g-r)`,
  ]);
  assert.equal(readFileSync(`${dir}/a`, "utf8"), "abc\n");
  assert.equal(modeOf(`${dir}/a`), "0704");
});

test("noop reports what would change and touches nothing", async () => {
  const dir = scratchDirectory("tend-pfile-");
  writeFileSync(`${dir}/a`, "hello\n", { mode: 0o644 });
  const d = driver();
  const lines = eventLines(await d.apply(fileType, `${dir}/a`, { content: "abc\n", mode: "0600" }, true));
  assert.deepEqual(lines, [
    `File[${dir}/a] content noop content_changed: current_value '${HELLO}', should be '${ABC}' (noop)`,
    `File[${dir}/a] mode noop mode_changed: current_value '0644', should be '0600' (noop)`,
  ]);
  const created = eventLines(await d.apply(fileType, `${dir}/new`, { ensure: "directory" }, true));
  assert.deepEqual(created, [
    `File[${dir}/new] ensure noop directory_created: current_value 'absent', should be 'directory' (noop)`,
  ]);
  assert.equal(readFileSync(`${dir}/a`, "utf8"), "hello\n");
  assert.ok(!existsSync(`${dir}/new`));
});

test("backups go to the clientbucket as Puppet lays it out, or beside the file", async () => {
  const dir = scratchDirectory("tend-pfile-");
  const bucket = join(dir, "bucket");
  writeFileSync(`${dir}/a`, "hello\n");
  writeFileSync(`${dir}/b`, "hello\n");
  const d = driver({ bucketDir: bucket });
  await d.apply(fileType, `${dir}/a`, { content: "abc\n", backup: "puppet" });
  const sum = HELLO.slice("{sha256}".length);
  const entry = join(bucket, ...sum.slice(0, 8).split(""), sum);
  assert.equal(readFileSync(join(entry, "contents"), "utf8"), "hello\n");
  assert.equal(readFileSync(join(entry, "paths"), "utf8"), `${dir}/a\n`);
  assert.equal(modeOf(join(entry, "contents")), "0440");
  assert.ok(d.logs.some((l) => l.message === `Filebucketed ${dir}/a to puppet with sum ${sum}`));
  await d.apply(fileType, `${dir}/b`, { content: "abc\n", backup: ".puppet-bak" });
  assert.equal(readFileSync(`${dir}/b.puppet-bak`, "utf8"), "hello\n");
  const missing = await driver().apply(fileType, `${dir}/b`, { content: "x", backup: "main" });
  assert.match(eventLines(missing).join("\n"), /Could not find filebucket main specified in backup/);
});

test("kinds change as Puppet changes them; directories need force", async () => {
  const dir = scratchDirectory("tend-pfile-");
  writeFileSync(`${dir}/f`, "x");
  mkdirSync(`${dir}/d/sub`, { recursive: true });
  mkdirSync(`${dir}/e/sub`, { recursive: true });
  const d = driver();
  assert.deepEqual(eventLines(await d.apply(fileType, `${dir}/f`, { ensure: "directory" })), [
    `File[${dir}/f] ensure success directory_created: ensure changed 'file' to 'directory'`,
  ]);
  assert.deepEqual(eventLines(await d.apply(fileType, `${dir}/d`, { ensure: "absent" })), [
    `File[${dir}/d] ensure success file_removed: removed`,
  ]);
  assert.ok(existsSync(`${dir}/d/sub`), "kept without force");
  assert.equal(d.logs.at(-1)?.message, "Not removing directory; use 'force' to override");
  await d.apply(fileType, `${dir}/e`, { ensure: "absent", force: true });
  assert.ok(!existsSync(`${dir}/e`));
});

test("links are created, retargeted, and kept with replace => false", async () => {
  const dir = scratchDirectory("tend-pfile-");
  symlinkSync("a", `${dir}/l`);
  const d = driver();
  assert.deepEqual(eventLines(await d.apply(fileType, `${dir}/l`, { ensure: "link", target: "b" })), [
    `File[${dir}/l] target success target_changed: target changed 'a' to 'b'`,
  ]);
  assert.equal(readlinkSync(`${dir}/l`), "b");
  await d.apply(fileType, `${dir}/old-form`, { ensure: "/etc/hostname" });
  assert.equal(readlinkSync(`${dir}/old-form`), "/etc/hostname");
  assert.deepEqual(
    eventLines(await d.apply(fileType, `${dir}/l`, { ensure: "link", target: "c", replace: false })),
    [],
  );
});

test("an owner naming nobody fails the change, a group by id is shown by name", async (t) => {
  if (process.getuid?.() !== 0) return t.skip("needs root to change owners");
  const dir = scratchDirectory("tend-pfile-");
  writeFileSync(`${dir}/a`, "x");
  const d = driver();
  const failed = eventLines(await d.apply(fileType, `${dir}/a`, { owner: "no-such-user-tend" }));
  assert.equal(
    failed[0],
    `File[${dir}/a] owner failure owner_changed: change from 'root' to 'no-such-user-tend' failed: Could not find user no-such-user-tend`,
  );
  assert.deepEqual(eventLines(await d.apply(fileType, `${dir}/a`, { group: "65534" })), [
    `File[${dir}/a] group success group_changed: group changed 'root' to 'nogroup'`,
  ]);
});

test("recursion generates a child per entry; purge removes what no source gives", async () => {
  const dir = scratchDirectory("tend-pfile-");
  const modules = join(dir, "modules");
  mkdirSync(join(modules, "m/files/tree/sub"), { recursive: true });
  writeFileSync(join(modules, "m/files/tree/one"), "1\n");
  writeFileSync(join(modules, "m/files/tree/sub/two"), "2\n");
  mkdirSync(`${dir}/t/stray-dir`, { recursive: true });
  writeFileSync(`${dir}/t/stray`, "s");
  writeFileSync(`${dir}/t/kept`, "k");
  const catalog = [resource("File", `${dir}/t`, {}), resource("File", `${dir}/t/kept`, { content: "k" })];
  const d = driver({ modulePath: [modules], catalog });
  const params = {
    ensure: "directory",
    recurse: true,
    purge: true,
    source: "puppet:///modules/m/tree",
  } as const;
  const results = await d.apply(fileType, `${dir}/t`, params);
  assert.deepEqual(
    [...results.keys()],
    [
      `File[${dir}/t]`,
      `File[${dir}/t/one]`,
      `File[${dir}/t/stray]`,
      `File[${dir}/t/stray-dir]`,
      `File[${dir}/t/sub]`,
      `File[${dir}/t/sub/two]`,
    ],
  );
  assert.equal(readFileSync(`${dir}/t/sub/two`, "utf8"), "2\n");
  assert.ok(!existsSync(`${dir}/t/stray`));
  assert.ok(existsSync(`${dir}/t/stray-dir`), "a directory is purged only with force");
  assert.ok(existsSync(`${dir}/t/kept`), "left to its own resource");
  const again = await d.apply(fileType, `${dir}/t`, params);
  assert.deepEqual(eventLines(again), [`File[${dir}/t/stray-dir] ensure success file_removed: removed`]);
});

test("a missing source fails the resource with Puppet's message", async () => {
  const dir = scratchDirectory("tend-pfile-");
  const results = await driver().apply(fileType, `${dir}/x`, { source: "puppet:///modules/none/x" });
  assert.deepEqual(eventLines(results), [
    `File[${dir}/x] FAILED Could not retrieve information from environment production source(s) puppet:///modules/none/x`,
  ]);
});

test("validate_cmd checks the new content before it replaces the file", async () => {
  const dir = scratchDirectory("tend-pfile-");
  writeFileSync(`${dir}/conf`, "ok: old\n");
  const d = driver();
  const params = { validate_cmd: "/bin/grep -q '^ok' %" };
  const good = await d.apply(fileType, `${dir}/conf`, { ...params, content: "ok: new\n" });
  assert.match(eventLines(good)[0] ?? "", /content success content_changed/);
  const bad = await d.apply(fileType, `${dir}/conf`, { ...params, content: "broken\n" });
  assert.match(
    eventLines(bad)[0] ?? "",
    /content failure content_changed: change from .* failed: Execution of '\/bin\/grep -q '\^ok' .*' returned 1: $/,
  );
  assert.equal(readFileSync(`${dir}/conf`, "utf8"), "ok: new\n");
});
