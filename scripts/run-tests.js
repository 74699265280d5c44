#!/usr/bin/env node
// Runs every compiled test file under dist/test with Node's test runner.
// Node 20's `--test` does not expand globs, so the files are listed here.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

function findTests(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...findTests(path));
    else if (entry.name.endsWith(".test.js")) found.push(path);
  }
  return found;
}

const files = findTests("dist/test").sort();
const extra = process.argv.slice(2);
const result = spawnSync(process.execPath, ["--test", ...extra, ...files], { stdio: "inherit" });
process.exit(result.status ?? 1);
