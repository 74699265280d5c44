#!/usr/bin/env node
// Runs every compiled test file under dist/test with Node's test runner.
// Node 20's `--test` does not expand globs, so the files are listed here.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";

function findTests(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...findTests(path));
    else if (entry.name.endsWith(".test.js")) found.push(path);
  }
  return found;
}

// tsc leaves the output of a deleted or renamed test behind: such a file
// would fail to import what it tested, or test what no longer exists.
const files = findTests("dist/test")
  .sort()
  .filter((file) => {
    const source = join("test", relative(join("dist", "test"), file)).replace(/\.js$/, ".ts");
    if (existsSync(source)) return true;
    process.stderr.write(`run-tests: ${file} left out: its source ${source} is gone\n`);
    return false;
  });
// With no file named, `node --test` would look for tests on its own.
if (files.length === 0) {
  process.stderr.write("run-tests: no compiled tests under dist/test (run `npx tsc -p .` first)\n");
  process.exit(1);
}
const extra = process.argv.slice(2);
const result = spawnSync(process.execPath, ["--test", ...extra, ...files], { stdio: "inherit" });
process.exit(result.status ?? 1);
