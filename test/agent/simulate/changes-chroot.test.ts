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
import { ChangesChroot } from "../../../src/promises/simulate/changes-chroot.js";

function withDirs(fn: (real: string, chroot: ChangesChroot) => void): void {
  const base = mkdtempSync(join(tmpdir(), "tend-chroot-"));
  try {
    const real = join(base, "real");
    mkdirSync(real);
    fn(real, new ChangesChroot(join(base, "state", "1.changes"), "manifest"));
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

test("paths map into the chroot and back, a trailing /. kept", () => {
  const chroot = new ChangesChroot("/s/1.changes", "diff");
  assert.equal(chroot.toChroot("/etc/x/."), "/s/1.changes/etc/x/.");
  assert.equal(chroot.toChroot("/s/1.changes/etc"), "/s/1.changes/etc");
  assert.equal(chroot.toNormal("/s/1.changes/etc/x"), "/etc/x");
  assert.equal(chroot.toNormal("/etc/x"), "/etc/x");
  assert.equal(
    chroot.hide("Created '/s/1.changes/etc/x' in '/s/1.changes'"),
    "Created '/etc/x' in '/s/1.changes'",
  );
});

test("prepare mirrors a file, a directory tree and an absolute link with its target", () => {
  withDirs((real, chroot) => {
    writeFileSync(join(real, "file"), "text", { mode: 0o640 });
    mkdirSync(join(real, "dir", "sub"), { recursive: true });
    writeFileSync(join(real, "dir", "sub", "leaf"), "leaf");
    writeFileSync(join(real, "target"), "t");
    symlinkSync(join(real, "target"), join(real, "link"));
    for (const name of ["file", "dir", "link"]) chroot.prepare(join(real, name));
    assert.equal(readFileSync(chroot.toChroot(join(real, "file")), "utf8"), "text");
    assert.equal(lstatSync(chroot.toChroot(join(real, "file"))).mode & 0o777, 0o640);
    assert.equal(readFileSync(chroot.toChroot(join(real, "dir", "sub", "leaf")), "utf8"), "leaf");
    assert.equal(readlinkSync(chroot.toChroot(join(real, "link"))), chroot.toChroot(join(real, "target")));
    assert.equal(readFileSync(chroot.toChroot(join(real, "target")), "utf8"), "t");
  });
});

test("prepare of a missing object makes only the directories that exist above it", () => {
  withDirs((real, chroot) => {
    chroot.prepare(join(real, "missing", "deeper", "file"));
    assert.ok(lstatSync(chroot.toChroot(real)).isDirectory());
    assert.equal(lstatSync(chroot.toChroot(join(real, "missing")), { throwIfNoEntry: false }), undefined);
  });
});

test("records are kept as real paths; evaluated ones only with manifest-full", () => {
  const chroot = new ChangesChroot("/s/1.changes", "manifest");
  chroot.recordChanged("/s/1.changes/a");
  chroot.recordEvaluated("/s/1.changes/b");
  chroot.recordRename("/s/1.changes/c", "/s/1.changes/d");
  assert.deepEqual(chroot.changed, ["/a"]);
  assert.deepEqual(chroot.evaluated, []);
  assert.deepEqual(chroot.renames, [["/c", "/d"]]);
  const full = new ChangesChroot("/s/1.changes", "manifest-full");
  full.recordEvaluated("/s/1.changes/b");
  assert.deepEqual(full.evaluated, ["/b"]);
});
