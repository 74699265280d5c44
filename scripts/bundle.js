#!/usr/bin/env node
// Bundles the compiled CLI (dist/src) into dist/bundle with esbuild, so that
// `tend` starts without resolving and loading a hundred modules one by one.
// Subcommands stay separate chunks, loaded only when used.
import { readFileSync } from "node:fs";
import { build } from "esbuild";

const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

await build({
  // Threads' scripts are files of their own, found next to the chunks that start them:
  // the promise module worker (module-host.js) and the spawn worker of commands promises.
  entryPoints: {
    main: "dist/src/cli/main.js",
    "module-worker": "dist/src/promises/custom/module-worker.js",
    "spawn-worker": "dist/src/promises/commands/spawn-worker.js",
  },
  outdir: "dist/bundle",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  define: { __TEND_VERSION__: JSON.stringify(version) },
  // Less text for V8 to parse at startup; names stay, so stack traces read.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: "warning",
});
