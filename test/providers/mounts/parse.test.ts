/**
 * The mounts provider's parsing and edits, without touching the system:
 * the mount table and fstab read from temporary files, mount and umount
 * through a fake runner.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  type CommandRunner,
  FstabEdits,
  decodeMountField,
  diskUsage,
  firstLine,
  formatFstabEntry,
  hasMountPoint,
  isEntryFor,
  isForeignMount,
  isForeignType,
  mountAll,
  mountArgv,
  mountCommandLine,
  mountFilesystem,
  parseMountTable,
  readFstab,
  readMountTable,
  removeEntries,
  scanDirectory,
  unmountFilesystem,
  writeFstab,
} from "../../../src/providers/mounts/index.js";

function withDir(body: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), "tend-mounts-unit-"));
  try {
    body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const TABLE = `/dev/vda / ext4 rw,relatime 0 0
srv:/export /mnt/a\\040b nfs4 rw,vers=4.2 0 0
# not an entry
short line
//srv/share /mnt/c cifs rw 0 0
`;

test("mount table: fields, escapes, comments and short lines", () => {
  const table = parseMountTable(TABLE);
  assert.deepEqual(
    table.map((e) => [e.source, e.target, e.fstype, e.options.join(",")]),
    [
      ["/dev/vda", "/", "ext4", "rw,relatime"],
      ["srv:/export", "/mnt/a b", "nfs4", "rw,vers=4.2"],
      ["//srv/share", "/mnt/c", "cifs", "rw"],
    ],
  );
  assert.equal(decodeMountField("a\\011b\\134c"), "a\tb\\c");
  assert.deepEqual(table.map(isForeignType), [false, true, true]);
  assert.equal(
    mountCommandLine(table[1] ?? assert.fail()),
    "srv:/export on /mnt/a b type nfs4 (rw,vers=4.2)",
  );
});

test("mount table: read from a given path; a missing one throws", () => {
  withDir((dir) => {
    writeFileSync(join(dir, "mounts"), TABLE);
    assert.equal(readMountTable(join(dir, "mounts")).length, 3);
    assert.throws(() => readMountTable(join(dir, "absent")), /ENOENT/);
  });
});

test("fstab: lookups by mount point skip comments and need whole words", () => {
  const lines = ["# /mnt/a old", "srv:/x /mnt/a nfs ro 0 0", "srv:/y /mnt/ab nfs ro 0 0", "/mnt/b none"];
  assert.equal(hasMountPoint(lines, "/mnt/a"), true);
  assert.equal(hasMountPoint(lines, "/mnt"), false);
  assert.equal(hasMountPoint(["# /mnt/a"], "/mnt/a"), false);
  // An entry: the mount point after the first field, with white space after it.
  assert.equal(isEntryFor("srv:/x /mnt/a nfs", "/mnt/a"), true);
  assert.equal(isEntryFor("/mnt/a /other nfs", "/mnt/a"), false);
  assert.equal(isEntryFor("  /mnt/a /other nfs", "/mnt/a"), true);
  assert.equal(isEntryFor("srv:/x /mnt/a", "/mnt/a"), false);
  assert.equal(isEntryFor("srv:/x\t/mnt/a\tnfs", "/mnt/a"), true);
  assert.equal(isEntryFor("# srv:/x /mnt/a nfs", "/mnt/a"), false);
  assert.equal(isEntryFor("srv:/x /mnt/aXb nfs", "/mnt/a.b"), false);
  assert.deepEqual(removeEntries(lines, "/mnt/a"), {
    lines: ["# /mnt/a old", "srv:/y /mnt/ab nfs ro 0 0", "/mnt/b none"],
    removed: ["srv:/x /mnt/a nfs ro 0 0"],
  });
});

test("fstab: entries are written as cf-agent 3.21 writes them on Linux", () => {
  assert.equal(
    formatFstabEntry({ spec: "srv:/export", file: "/mnt/a", vfstype: "nfs", options: "ro,soft" }),
    "srv:/export \t /mnt/a \t nfs \t ro,soft",
  );
});

test("fstab: read, edit and save atomically, keeping the mode; a dry run keeps the edits unsaved", () => {
  withDir((dir) => {
    const path = join(dir, "fstab");
    writeFileSync(path, "# table\nsrv:/old /mnt/old nfs ro 0 0\n", { mode: 0o640 });
    assert.deepEqual(readFstab(path), ["# table", "srv:/old /mnt/old nfs ro 0 0"]);
    const edits = new FstabEdits(path);
    assert.equal(
      edits.add({ spec: "x:/y", file: "/mnt/new", vfstype: "nfs", options: "ro" }),
      undefined,
      "not loaded",
    );
    assert.equal(edits.load(), undefined);
    const added = edits.add({ spec: "x:/y", file: "/mnt/new", vfstype: "nfs", options: "ro" });
    assert.equal(added?.property, "fstab");
    assert.equal(added?.new, "x:/y \t /mnt/new \t nfs \t ro");
    assert.equal(edits.add({ spec: "x:/z", file: "/mnt/new", vfstype: "nfs", options: "ro" }), undefined);
    assert.deepEqual(
      edits.remove("/mnt/old").map((c) => c.old),
      ["srv:/old /mnt/old nfs ro 0 0"],
    );
    assert.equal(edits.edits, 2);
    assert.deepEqual(edits.save(true), { saved: false });
    assert.equal(readFileSync(path, "utf8"), "# table\nsrv:/old /mnt/old nfs ro 0 0\n");
    assert.equal(edits.edits, 2, "a dry run keeps the edits");
    assert.deepEqual(edits.save(false), { saved: true });
    assert.equal(readFileSync(path, "utf8"), "# table\nx:/y \t /mnt/new \t nfs \t ro\n");
    assert.equal(statSync(path).mode & 0o777, 0o640);
    assert.equal(edits.edits, 0);
    assert.match(new FstabEdits(join(dir, "absent")).load() ?? "", /ENOENT/);
    writeFstab([], path);
    assert.deepEqual(readFstab(path), []);
  });
});

test("commands: argv, first line and busy", () => {
  assert.deepEqual(mountArgv("srv:/x", "/mnt/x", ["ro", "soft"]), [
    "/bin/mount",
    "-o",
    "ro,soft",
    "srv:/x",
    "/mnt/x",
  ]);
  assert.deepEqual(mountArgv("tmpfs", "/mnt/t", [], "tmpfs", "mount"), [
    "mount",
    "-t",
    "tmpfs",
    "tmpfs",
    "/mnt/t",
  ]);
  assert.equal(firstLine(""), undefined);
  assert.equal(firstLine("one\ntwo\n"), "one");
});

test("actions: mount and unmount through a runner, or nothing in a dry run", () => {
  const calls: string[][] = [];
  const answer =
    (status: number, output: string): CommandRunner =>
    (argv) => {
      calls.push([...argv]);
      return { status, output };
    };
  const done = mountFilesystem(["/bin/mount", "srv:/x", "/mnt/x"], "/mnt/x", {
    dryRun: false,
    run: answer(0, ""),
  });
  assert.equal(done.status, "done");
  assert.deepEqual(done.change, {
    property: "mounted",
    new: "/mnt/x",
    old: undefined,
    message: "mounted '/mnt/x'",
    applied: true,
  });
  const busy = unmountFilesystem("/mnt/x", {
    dryRun: false,
    run: answer(32, "umount: /mnt/x: target is busy.\n"),
  });
  assert.equal(busy.status, "busy");
  assert.equal(busy.change?.applied, false);
  const failed = unmountFilesystem("/mnt/x", {
    dryRun: false,
    run: answer(32, "umount: /mnt/x: not mounted.\n"),
  });
  assert.equal(failed.status, "failed");
  assert.equal(failed.firstLine, "umount: /mnt/x: not mounted.");
  assert.deepEqual(calls, [
    ["/bin/mount", "srv:/x", "/mnt/x"],
    ["/bin/umount", "/mnt/x"],
    ["/bin/umount", "/mnt/x"],
  ]);
  const dry = unmountFilesystem("/mnt/x", { dryRun: true, run: answer(0, "") });
  assert.equal(dry.status, "dry-run");
  assert.equal(dry.change?.message, "would unmount '/mnt/x'");
  assert.equal(calls.length, 3, "a dry run runs nothing");
  assert.deepEqual(
    mountAll({ dryRun: false, run: answer(0, "/ : ignored\n/mnt/x : successfully mounted\n") }).lines,
    ["/ : ignored", "/mnt/x : successfully mounted"],
  );
  assert.deepEqual(calls.at(-1), ["/bin/mount", "-va"]);
});

test("volumes: free space, and a directory's entries without the ignored names", () => {
  withDir((dir) => {
    const usage = diskUsage(dir);
    assert.ok(usage.availableBytes >= 0 && usage.usedBytes >= 0);
    assert.ok(usage.freePercent >= 0 && usage.freePercent <= 100);
    mkdirSync(join(dir, "v"));
    mkdirSync(join(dir, "v", "lost+found"));
    writeFileSync(join(dir, "v", "a"), "12345");
    writeFileSync(join(dir, "v", "b"), "123");
    const scan = scanDirectory(join(dir, "v"));
    assert.equal(scan.kind, "directory");
    assert.equal(scan.count, 2);
    assert.equal(scan.bytes, 8);
    assert.deepEqual(scan.ignored, ["lost+found"]);
    assert.equal(scanDirectory(join(dir, "v", "a")).kind, "other");
    assert.equal(scanDirectory(join(dir, "none")).kind, "missing");
    assert.throws(() => diskUsage(join(dir, "none")), /ENOENT/);
  });
});

test("volumes: a mount root of a network type is foreign (nfs4 too), a local one is not", () => {
  // /proc is on another device than /: a mount root, whatever the table says of it.
  const entry = (fstype: string) => ({ source: "srv:/x", target: "/proc", fstype, options: [] });
  assert.equal(isForeignMount("/proc", [entry("nfs4")]), true);
  assert.equal(isForeignMount("/proc", [entry("cifs")]), true);
  assert.equal(isForeignMount("/proc", [entry("proc")]), false);
  assert.equal(
    isForeignMount("/proc", [entry("proc")], () => true),
    true,
  );
  // Not a mount root: never foreign.
  assert.equal(isForeignMount("/proc/self", [{ ...entry("nfs"), target: "/proc/self" }]), false);
});
