#!/usr/bin/env node
// Runs the bundled CLI when it is at least as new as the compiled sources
// (`npm run build` makes both); otherwise the compiled modules themselves.
import { statSync } from "node:fs";
import module from "node:module";

// Node 22 and later keep compiled code between runs (a no-op on Node 20).
module.enableCompileCache?.();

function mtime(relative) {
  try {
    return statSync(new URL(relative, import.meta.url)).mtimeMs;
  } catch {
    return -1;
  }
}

const bundled = mtime("../dist/bundle/main.js") >= mtime("../dist/src/cli/main.js");
await import(bundled ? "../dist/bundle/main.js" : "../dist/src/cli/main.js");
