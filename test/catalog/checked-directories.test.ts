/**
 * A directory replaced during a run is not written through: within a
 * catalog run, safe-fs trusts a directory it checked until something may
 * have replaced it (reuseCheckedDirectories), and whatever the applier
 * runs but file resources, and tend's own renames and removals, say so.
 */
import assert from "node:assert/strict";
import {
  chmodSync,
  chownSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync as renameByPath,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { applyCatalog } from "../../src/catalog/apply.js";
import type { ResourceType } from "../../src/catalog/resource-type.js";
import { puppetTypes } from "../../src/puppet/types/index.js";
import { writeFileAtomically } from "../../src/system/atomic.js";
import {
  chmodSync as chmodChecked,
  checkedDirectory,
  directoriesMayHaveChanged,
  mkdirSync as mkdirChecked,
  renameSync,
  reuseCheckedDirectories,
  unlinkSync as unlinkChecked,
} from "../../src/system/safe-fs.js";
import { scratchDirectory } from "../scratch.js";
import { catalogOf, resource } from "./fakes.js";

test("a file resource after an exec that replaced its directory lands in the new directory", async () => {
  const dir = scratchDirectory("tend-checked-dirs-");
  const d = join(dir, "d");
  mkdirSync(d);
  const report = await applyCatalog(
    catalogOf([
      resource("File", join(d, "a"), { ensure: "file", content: "a\n" }),
      resource("Exec", "swap", { command: `/bin/mv ${d} ${d}.old` }),
      resource("Exec", "make", { command: `/bin/mkdir ${d}` }),
      resource("File", join(d, "b"), { ensure: "file", content: "b\n" }),
      resource("File", join(d, "c"), { ensure: "file", content: "c\n" }),
    ]),
    puppetTypes,
  );
  assert.equal(report.status, "changed");
  assert.deepEqual(readdirSync(`${d}.old`), ["a"]);
  assert.deepEqual(readdirSync(d).sort(), ["b", "c"]);
  assert.equal(readFileSync(join(d, "c"), "utf8"), "c\n");
});

test("in a run, a checked directory is looked at again once something may have replaced it", async () => {
  // In a directory others may write to, the checked directory is reached
  // through its descriptor, never by its path (see the next test).
  const dir = join(scratchDirectory("tend-checked-dirs-"), "open");
  mkdirSync(dir);
  chmodSync(dir, 0o777);
  const d = join(dir, "d");
  mkdirSync(d);
  const inode = (checked: string) => readdirSync(checked).sort().join(",");
  await reuseCheckedDirectories(async () => {
    writeFileSync(join(d, "first"), "");
    assert.equal(inode(checkedDirectory(d)), "first");
    // Replaced by tend itself (safe-fs): seen at once.
    renameSync(d, `${d}.1`);
    mkdirChecked(d);
    assert.equal(inode(checkedDirectory(d)), "");
    // Replaced behind tend's back, and nobody said so: the directory checked is used...
    renameByPath(d, `${d}.2`);
    mkdirSync(d);
    writeFileSync(join(d, "third"), "");
    assert.equal(inode(checkedDirectory(d)), "");
    // ...until the applier says something ran.
    directoriesMayHaveChanged();
    assert.equal(inode(checkedDirectory(d)), "third");
  });
  // Outside a run, every use looks again.
  renameByPath(d, `${d}.3`);
  mkdirSync(d);
  assert.equal(inode(checkedDirectory(d)), "");
});

test("in a run, a directory only root and tend's user can change is reached by its own path", async () => {
  const dir = scratchDirectory("tend-checked-dirs-");
  const ours = join(dir, "ours", "inner");
  const open = join(dir, "open", "inner");
  mkdirSync(ours, { recursive: true });
  mkdirSync(open, { recursive: true });
  chmodSync(join(dir, "ours"), 0o755);
  chmodSync(join(dir, "open"), 0o777);
  const proc = /^\/proc\/(self|\d+)\/fd\/\d+$/;
  // Outside a run: always the descriptor's path.
  assert.match(checkedDirectory(ours), proc);
  await reuseCheckedDirectories(async () => {
    assert.equal(checkedDirectory(ours), ours);
    // Anyone may write to `open`, so `inner` there could be swapped: the descriptor's path.
    assert.match(checkedDirectory(open), proc);
    // A sticky directory keeps others from renaming what is root's...
    const sticky = join(dir, "sticky", "inner");
    mkdirSync(sticky, { recursive: true });
    chmodSync(join(dir, "sticky"), 0o1777);
    assert.equal(checkedDirectory(sticky), sticky);
    // ...not what is another user's.
    chownSync(sticky, 65534, 65534);
    directoriesMayHaveChanged();
    assert.match(checkedDirectory(sticky), proc);
    // Never through a link.
    symlinkSync(ours, join(dir, "ours", "link"));
    assert.match(checkedDirectory(join(dir, "ours", "link")), proc);
    // A removal is no reason to walk again: the path is still used.
    writeFileSync(join(ours, "x"), "");
    unlinkChecked(join(ours, "x"));
    assert.equal(checkedDirectory(ours), ours);
    // A mode changed through safe-fs is seen without being told: one that
    // leaves the directory to root is no reason to walk again, one that opens it is.
    chmodChecked(join(dir, "ours"), 0o750);
    assert.equal(checkedDirectory(ours), ours);
    chmodChecked(join(dir, "ours"), 0o777);
    assert.match(checkedDirectory(ours), proc);
  });
});

test("in a run, a file written over a link on the way to a checked directory is seen", async () => {
  const dir = scratchDirectory("tend-checked-dirs-");
  mkdirSync(join(dir, "one"));
  symlinkSync(join(dir, "one"), join(dir, "link"));
  await reuseCheckedDirectories(async () => {
    checkedDirectory(join(dir, "link"));
    writeFileAtomically(join(dir, "link"), "now a file\n", 0o644);
    assert.throws(() => checkedDirectory(join(dir, "link")), { code: "ENOTDIR" });
  });
});

test("a file made behind the run's back after its directory was read is never replaced unseen", async () => {
  const dir = scratchDirectory("tend-checked-dirs-");
  const d = join(dir, "d");
  mkdirSync(d);
  // Another process's file, made between the first write into `d` (which
  // reads it) and the resource for that path; nothing tells tend.
  const sneak: ResourceType = {
    name: "sneak",
    keepsDirectories: () => true,
    async apply() {
      writeFileSync(join(d, "b"), "theirs\n");
      return { events: [] };
    },
  };
  const types = new Map(puppetTypes).set("sneak", sneak);
  const report = await applyCatalog(
    catalogOf([
      resource("File", join(d, "a"), { ensure: "file", content: "a\n", backup: false }),
      resource("Sneak", "now"),
      resource("File", join(d, "b"), { ensure: "file", content: "ours\n", backup: false }),
      resource("File", join(d, "c"), { ensure: "file", content: "c\n", backup: false }),
    ]),
    types,
  );
  assert.equal(report.status, "changed");
  const events = (title: string) =>
    report.resource_statuses[`File[${join(d, title)}]`]?.events.map((e) => `${e.property}: ${e.message}`);
  // Seen as the file it had become: its content changed, not a file created.
  assert.match(
    String(events("b")),
    /^content: content changed '\{sha256\}[0-9a-f]+' to '\{sha256\}[0-9a-f]+'$/,
  );
  assert.match(String(events("c")), /^ensure: defined content as/);
  assert.equal(readFileSync(join(d, "b"), "utf8"), "ours\n");
  assert.deepEqual(readdirSync(d).sort(), ["a", "b", "c"]);
});
