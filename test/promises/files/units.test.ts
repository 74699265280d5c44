import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { writeFileAtomically } from "../../../src/system/atomic.js";
import { applyMode, parseModeString } from "../../../src/providers/files/mode.js";
import { scratchDirectory } from "../../scratch.js";

test("mode strings: octal sets every bit, symbolic clauses add, remove or set", () => {
  const cases: [string, number, number][] = [
    ["644", 0o666, 0o644],
    ["u+rwx,go-w", 0o666, 0o744],
    ["a=r", 0o777, 0o444],
    ["g+s", 0o755, 0o2755],
    ["o-rwx", 0o777, 0o770],
  ];
  for (const [text, from, to] of cases) {
    const masks = parseModeString(text);
    assert.ok(masks, text);
    assert.equal(applyMode(from, masks, false), to, text);
  }
  for (const bad of ["9999", "u+q", "", "+x"]) assert.equal(parseModeString(bad), undefined, bad);
  assert.equal(applyMode(0o600, parseModeString("0640") ?? { plus: 0, minus: 0 }, true), 0o750);
});

test("writeFileAtomically replaces the file, with the mode asked, and leaves no temporary file", () => {
  const dir = scratchDirectory("tend-atomic-");
  const path = join(dir, "f");
  writeFileSync(path, "old");
  writeFileAtomically(path, "new content", 0o640);
  assert.equal(readFileSync(path, "utf8"), "new content");
  assert.equal(statSync(path).mode & 0o777, 0o640);
  assert.deepEqual(readdirSync(dir), ["f"]);
  assert.throws(() => writeFileAtomically(join(dir, "missing/f"), "x", 0o600));
  assert.deepEqual(readdirSync(dir), ["f"]);
});
