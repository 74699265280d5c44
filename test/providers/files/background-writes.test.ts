/** The background writer on its own: files in place with their exact modes, failures by ticket. */
import assert from "node:assert/strict";
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { BackgroundWriter } from "../../../src/providers/files/background-writes.js";
import { scratchDirectory } from "../../scratch.js";

test("three hundred files written in the background, paced, each with its mode; no temporary left", async () => {
  const dir = scratchDirectory("tend-bg-writes-");
  const writer = new BackgroundWriter();
  process.umask(0o077);
  try {
    for (let i = 0; i < 300; i++) {
      writer.offer(join(dir, `f${i}`), Buffer.from(`file ${i}\n`), i % 2 ? 0o644 : 0o640);
      // Done only once the event loop has turned: until then, under way.
      assert.equal(writer.conflicts(join(dir, `f${i}`)), true);
      await writer.pace();
    }
    await writer.settle();
  } finally {
    process.umask(0o022);
  }
  assert.equal(writer.conflicts(join(dir, "f299", "x")), false);
  assert.equal(readdirSync(dir).length, 300);
  for (const i of [0, 1, 150, 299]) {
    assert.equal(readFileSync(join(dir, `f${i}`), "utf8"), `file ${i}\n`);
    assert.equal(lstatSync(join(dir, `f${i}`)).mode & 0o777, i % 2 ? 0o644 : 0o640);
  }
});

test("a path is in conflict when one of its components is the name of a file under way", async () => {
  const dir = scratchDirectory("tend-bg-writes-");
  const writer = new BackgroundWriter();
  writer.offer(join(dir, "name"), Buffer.from("x"), 0o644);
  assert.equal(writer.conflicts(join(dir, "name")), true);
  assert.equal(writer.conflicts("/elsewhere/name"), true);
  assert.equal(writer.conflicts("/elsewhere/name/below"), true);
  assert.equal(writer.conflicts("/elsewhere/names"), false);
  await writer.settle();
  assert.equal(writer.conflicts(join(dir, "name")), false);
});

test("failures are told by ticket once settled: the directory's at once, the creation's later", async () => {
  const dir = scratchDirectory("tend-bg-writes-");
  const writer = new BackgroundWriter();
  const missing = writer.offer(join(dir, "no", "such"), Buffer.from("x"), 0o644);
  const long = writer.offer(join(dir, "n".repeat(255)), Buffer.from("x"), 0o644);
  const fine = writer.offer(join(dir, "fine"), Buffer.from("x"), 0o644);
  await writer.settle();
  assert.equal((writer.outcome(missing) as NodeJS.ErrnoException).code, "ENOENT");
  assert.equal((writer.outcome(long) as NodeJS.ErrnoException).code, "ENAMETOOLONG");
  assert.equal(writer.outcome(fine), undefined);
  assert.equal(writer.outcome(missing), undefined, "told once");
  assert.deepEqual(readdirSync(dir), ["fine"]);
});
