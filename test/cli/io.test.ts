/**
 * The process's output (io.ts): a pipe or a file is written to directly,
 * whole and in order; a reader that goes away ends the output, not the run.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { scratchDirectory } from "../scratch.js";

const IO = fileURLToPath(new URL("../../src/cli/io.js", import.meta.url));

/** A program that writes `lines` lines of 1,000 bytes through processIo, then says so on stderr. */
function writer(lines: number): string {
  return `import(${JSON.stringify(IO)}).then(({ processIo }) => {
    const io = processIo();
    for (let i = 0; i < ${lines}; i++) io.stdout(String(i).padEnd(999, ".") + "\\n");
    const streams = process.moduleLoadList.includes("NativeModule net");
    io.stderr("tty " + io.stdoutIsTTY + "\\nstreams " + streams + "\\n");
  });`;
}

test("output to a pipe and to a file is whole and in order, without Node's streams", () => {
  const piped = spawnSync(process.execPath, ["-e", writer(500)], { encoding: "utf8" });
  assert.equal(piped.status, 0, piped.stderr);
  const lines = piped.stdout.split("\n");
  assert.equal(lines.length, 501);
  assert.ok(lines.every((line, i) => i === 500 || line.startsWith(`${i}.`)));
  assert.match(piped.stderr, /^tty false\nstreams false\n$/);
  const file = join(scratchDirectory("tend-io-"), "out");
  const toFile = spawnSync("/bin/sh", ["-c", `"${process.execPath}" -e '${writer(300)}' > ${file}`], {
    encoding: "utf8",
  });
  assert.equal(toFile.status, 0, toFile.stderr);
  assert.equal(readFileSync(file, "utf8").length, 300 * 1000);
});

test("a reader that goes away ends the output; the run goes on", () => {
  const run = spawnSync(
    "/bin/sh",
    ["-c", `"${process.execPath}" -e '${writer(5000)}' | head -c 10 >/dev/null`],
    {
      encoding: "utf8",
    },
  );
  assert.equal(run.status, 0);
  assert.match(run.stderr, /^tty false\n/);
});
