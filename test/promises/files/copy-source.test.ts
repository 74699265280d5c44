import assert from "node:assert/strict";
import { test } from "node:test";
import {
  type RemoteFileStat,
  type RemoteFiles,
  remoteSource,
  type StatCache,
  statsOf,
} from "../../../src/promises/files/copy-source.js";

const FILE: RemoteFileStat = {
  type: "file",
  mode: 0o640,
  lmode: 0o777,
  uid: 1,
  gid: 2,
  size: 10,
  atime: 100,
  mtime: 200,
  ctime: 300,
  makeholes: false,
  ino: 7,
  nlink: 1,
  dev: 3,
  linkTarget: "target",
};

function fakeServer(): { files: RemoteFiles; asked: string[] } {
  const asked: string[] = [];
  const files: RemoteFiles = {
    server: "hub",
    address: "127.0.0.1",
    connected: true,
    stat: (path) => {
      asked.push(path);
      if (path === "/denied") throw new Error("BAD: Unspecified server refusal (see verbose server output)");
      return path === "/link" ? FILE : { ...FILE, lmode: 0, linkTarget: undefined };
    },
    getToFile: () => undefined,
    opendir: () => [".", "..", "a", "b"],
    differs: () => false,
  };
  return { files, asked };
}

test("a link's two views: followed (the target's type and mode) and its own", () => {
  const followed = statsOf(FILE, false);
  assert.ok(followed.isFile());
  assert.equal(followed.mode & 0o7777, 0o640);
  assert.equal(followed.mtimeMs, 200_000);
  const own = statsOf(FILE, true);
  assert.ok(own.isSymbolicLink());
  assert.equal(own.mode & 0o7777, 0o777);
  // A path that is no link has one view.
  assert.ok(statsOf({ ...FILE, lmode: 0 }, true).isFile());
});

test("one STAT per path and connection; refusals are asked again; . and .. left out", () => {
  const { files, asked } = fakeServer();
  const source = remoteSource(files, new Map() as StatCache);
  assert.ok(source.stat("/link")?.isFile());
  assert.ok(source.lstat("/link")?.isSymbolicLink());
  assert.equal(source.readlink("/link"), "target");
  assert.throws(() => source.readlink("/plain"));
  assert.equal(source.stat("/denied"), undefined);
  assert.equal(source.stat("/denied"), undefined);
  assert.deepEqual(asked, ["/link", "/plain", "/denied", "/denied"]);
  assert.deepEqual(source.readdir("/dir/"), ["a", "b"]);
  assert.equal(source.server, "hub");
  assert.ok(source.connected());
});
