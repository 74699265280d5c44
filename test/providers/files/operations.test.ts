/**
 * The files provider's operations on temporary directories: each inspects,
 * changes only what differs, reports its changes as data, changes nothing
 * in noop, and fails as data (with the system error) rather than throwing.
 */
import assert from "node:assert/strict";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  AccountDatabase,
  dataDigest,
  ensureContent,
  ensureDirectory,
  ensureSymlink,
  inspectPath,
  parseModeString,
  applyMode,
  removePath,
  renamePath,
  rotateFile,
  touchPath,
  truncateFile,
  setMode,
  setOwner,
  createDirectories,
} from "../../../src/providers/files/index.js";

function withDir(fn: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), "tend-files-provider-"));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const modeOf = (path: string) => lstatSync(path).mode & 0o7777;

test("inspectPath tells each kind, a link's target and a digest", () => {
  withDir((dir) => {
    writeFileSync(join(dir, "f"), "hello");
    mkdirSync(join(dir, "d"));
    symlinkSync("f", join(dir, "l"));
    const file = inspectPath(join(dir, "f"), { digest: "md5" });
    assert.equal(file.kind, "file");
    assert.equal(file.size, 5);
    assert.equal(file.digest, "5d41402abc4b2a76b9719d911017c592");
    assert.equal(file.digest, dataDigest("hello", "md5"));
    assert.equal(inspectPath(join(dir, "d")).kind, "directory");
    assert.deepEqual([inspectPath(join(dir, "l")).kind, inspectPath(join(dir, "l")).target], ["link", "f"]);
    assert.equal(inspectPath(join(dir, "l"), { follow: true }).kind, "file");
    assert.equal(inspectPath(join(dir, "none")).kind, "absent");
  });
});

test("ensureContent creates, keeps, replaces, and only creates with replace: false", () => {
  withDir((dir) => {
    const path = join(dir, "f");
    const created = ensureContent(path, "one\n", { mode: 0o640 });
    assert.equal(created.status, "changed");
    assert.deepEqual(
      created.changes.map((c) => [c.property, c.old, c.new, c.applied]),
      [["ensure", "absent", "file", true]],
    );
    assert.equal(modeOf(path), 0o640);
    assert.equal(ensureContent(path, "one\n").status, "unchanged");
    const replaced = ensureContent(path, "two\n", { digest: "md5" });
    assert.equal(replaced.changes[0]?.property, "content");
    assert.equal(replaced.changes[0]?.old, `{md5}${dataDigest("one\n", "md5")}`);
    assert.equal(replaced.changes[0]?.new, `{md5}${dataDigest("two\n", "md5")}`);
    assert.equal(readFileSync(path, "utf8"), "two\n");
    assert.equal(modeOf(path), 0o640, "the replaced file's mode is kept");
    assert.equal(ensureContent(path, "three\n", { replace: false }).status, "unchanged");
    assert.equal(readFileSync(path, "utf8"), "two\n");
  });
});

test("ensureContent in noop reports and changes nothing; backups see the old file", () => {
  withDir((dir) => {
    const path = join(dir, "f");
    writeFileSync(path, "old");
    const noop = ensureContent(path, "new", { noop: true });
    assert.equal(noop.status, "changed");
    assert.equal(noop.changes[0]?.applied, false);
    assert.equal(readFileSync(path, "utf8"), "old");
    const saved: string[] = [];
    ensureContent(path, "new", { backup: (found) => saved.push(readFileSync(found.path, "utf8")) });
    assert.deepEqual(saved, ["old"]);
    const refused = ensureContent(path, "newer", {
      backup: () => {
        throw new Error("bucket full");
      },
    });
    assert.equal(refused.status, "failed");
    assert.match(refused.error ?? "", /bucket full/);
    assert.equal(readFileSync(path, "utf8"), "new");
  });
});

test("ensureContent replaces a link, and a directory only with force", () => {
  withDir((dir) => {
    writeFileSync(join(dir, "target"), "t");
    symlinkSync("target", join(dir, "l"));
    assert.equal(ensureContent(join(dir, "l"), "x").changes[0]?.old, "link");
    assert.equal(readFileSync(join(dir, "target"), "utf8"), "t", "the link's target is untouched");
    mkdirSync(join(dir, "d"));
    writeFileSync(join(dir, "d", "inner"), "");
    const refused = ensureContent(join(dir, "d"), "x");
    assert.equal(refused.status, "failed");
    assert.equal(refused.cause?.code, "EISDIR");
    assert.equal(ensureContent(join(dir, "d"), "x", { force: true }).status, "changed");
    assert.equal(readFileSync(join(dir, "d"), "utf8"), "x");
  });
});

test("setMode takes numeric modes and mode strings, and reports old and new", () => {
  withDir((dir) => {
    const path = join(dir, "f");
    writeFileSync(path, "", { mode: 0o600 });
    const masks = parseModeString("u+x,g+rw");
    assert.ok(masks);
    const wanted = applyMode(modeOf(path), masks, false);
    const result = setMode(path, wanted);
    assert.deepEqual(
      result.changes.map((c) => [c.property, c.old, c.new]),
      [["mode", "0600", "0760"]],
    );
    assert.equal(modeOf(path), 0o760);
    assert.equal(setMode(path, 0o760).status, "unchanged");
    assert.equal(setMode(path, 0o644, { noop: true }).changes[0]?.applied, false);
    assert.equal(modeOf(path), 0o760);
    assert.deepEqual(parseModeString("0644"), parseModeString("644"));
    assert.equal(parseModeString("u+q"), undefined);
    assert.equal(setMode(join(dir, "none"), 0o644).cause?.code, "ENOENT");
  });
});

test("setOwner changes only the ids that differ, never through a link", () => {
  withDir((dir) => {
    const path = join(dir, "f");
    writeFileSync(path, "");
    symlinkSync("f", join(dir, "l"));
    const { uid, gid } = lstatSync(path);
    assert.equal(setOwner(path, { uid, gid }).status, "unchanged");
    if (process.getuid?.() !== 0) return;
    const result = setOwner(join(dir, "l"), { uid: 1234 });
    assert.deepEqual(
      result.changes.map((c) => [c.property, c.old, c.new]),
      [["owner", String(uid), "1234"]],
    );
    assert.equal(lstatSync(join(dir, "l")).uid, 1234);
    assert.equal(lstatSync(path).uid, uid, "the link's target keeps its owner");
    assert.equal(setOwner(path, { gid: 4321 }, { noop: true }).changes[0]?.applied, false);
    assert.equal(lstatSync(path).gid, gid);
  });
});

test("ensureDirectory makes a directory with its mode, parents when asked, and replaces a file", () => {
  withDir((dir) => {
    const path = join(dir, "a", "b");
    assert.equal(ensureDirectory(path).cause?.code, "ENOENT");
    const made = ensureDirectory(path, { parents: true, mode: 0o750 });
    assert.equal(made.status, "changed");
    assert.equal(modeOf(path), 0o750);
    assert.equal(ensureDirectory(path).status, "unchanged");
    writeFileSync(join(dir, "f"), "");
    assert.equal(ensureDirectory(join(dir, "f")).changes[0]?.old, "file");
    assert.ok(lstatSync(join(dir, "f")).isDirectory());
    const deep = createDirectories(join(dir, "x", "y", "z"));
    assert.deepEqual(deep.created, [join(dir, "x"), join(dir, "x", "y"), join(dir, "x", "y", "z")]);
    writeFileSync(join(dir, "plain"), "");
    assert.equal(createDirectories(join(dir, "plain", "sub")).failure?.notDirectory, true);
  });
});

test("ensureSymlink creates, keeps, retargets, and needs force over a directory", () => {
  withDir((dir) => {
    const path = join(dir, "l");
    assert.equal(ensureSymlink(path, "one").changes[0]?.property, "ensure");
    assert.equal(ensureSymlink(path, "one").status, "unchanged");
    const retarget = ensureSymlink(path, "two");
    assert.deepEqual([retarget.changes[0]?.old, retarget.changes[0]?.new], ["one", "two"]);
    assert.equal(readlinkSync(path), "two");
    mkdirSync(join(dir, "d"));
    assert.equal(ensureSymlink(join(dir, "d"), "x").cause?.code, "EISDIR");
    assert.equal(ensureSymlink(join(dir, "d"), "x", { force: true }).status, "changed");
    assert.equal(readlinkSync(join(dir, "d")), "x");
    assert.equal(ensureSymlink(join(dir, "n"), "x", { noop: true }).changes[0]?.applied, false);
    assert.equal(inspectPath(join(dir, "n")).kind, "absent");
  });
});

test("removePath removes files and links, directories only when empty unless recursive", () => {
  withDir((dir) => {
    writeFileSync(join(dir, "f"), "");
    assert.deepEqual(
      removePath(join(dir, "f")).changes.map((c) => [c.property, c.old, c.new]),
      [["ensure", "file", "absent"]],
    );
    assert.equal(removePath(join(dir, "f")).status, "unchanged");
    assert.equal(removePath(join(dir, "f"), { missingOk: false }).cause?.code, "ENOENT");
    mkdirSync(join(dir, "d"));
    writeFileSync(join(dir, "outside"), "");
    symlinkSync(join(dir, "outside"), join(dir, "d", "link"));
    assert.equal(removePath(join(dir, "d")).cause?.code, "ENOTEMPTY");
    assert.equal(removePath(join(dir, "d"), { noop: true }).changes[0]?.applied, false);
    assert.equal(removePath(join(dir, "d"), { recursive: true }).status, "changed");
    assert.equal(inspectPath(join(dir, "d")).kind, "absent");
    assert.equal(inspectPath(join(dir, "outside")).kind, "file", "links inside are not followed");
  });
});

test("AccountDatabase reads names and ids from the files under its root", () => {
  withDir((dir) => {
    mkdirSync(join(dir, "etc"));
    writeFileSync(
      join(dir, "etc", "passwd"),
      "root:x:0:0::/root:/bin/sh\nalice:x:1001:1001::/home/alice:/bin/sh\n",
    );
    writeFileSync(join(dir, "etc", "group"), "root:x:0:\nstaff:x:50:alice\n");
    const accounts = new AccountDatabase(dir);
    assert.equal(accounts.userId("alice"), 1001);
    assert.equal(accounts.userId("1234"), 1234);
    assert.equal(accounts.userId("bob"), undefined);
    assert.equal(accounts.groupId("staff"), 50);
    assert.equal(accounts.userName(1001), "alice");
    assert.equal(accounts.groupName(7), undefined);
  });
});

test("renamePath, touchPath, truncateFile and rotateFile", () => {
  withDir((dir) => {
    const path = join(dir, "log");
    writeFileSync(path, "one");
    assert.deepEqual(
      renamePath(path, `${path}.old`).changes.map((c) => [c.property, c.old, c.new]),
      [["path", path, `${path}.old`]],
    );
    assert.equal(renamePath(path, `${path}.x`).cause?.code, "ENOENT");
    const when = new Date(2_000_000_000);
    assert.equal(touchPath(`${path}.old`, { when }).status, "changed");
    assert.equal(lstatSync(`${path}.old`).mtimeMs, 2_000_000_000);
    writeFileSync(path, "first", { mode: 0o640 });
    assert.equal(rotateFile(path, 3), true);
    writeFileSync(path, "second");
    rotateFile(path, 3);
    assert.deepEqual(
      [readFileSync(path, "utf8"), readFileSync(`${path}.1`, "utf8"), readFileSync(`${path}.2`, "utf8")],
      ["", "second", "first"],
    );
    assert.equal(modeOf(`${path}.1`), 0o640);
    writeFileSync(path, "x");
    truncateFile(path);
    assert.equal(readFileSync(path, "utf8"), "");
    assert.equal(rotateFile(join(dir, "none"), 2), false);
  });
});
