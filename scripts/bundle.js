#!/usr/bin/env node
// Bundles the compiled CLI (dist/src) into dist/bundle with esbuild, so that
// `tend` starts without resolving and loading a hundred modules one by one.
//
// The CLI is one CommonJS file, dist/bundle/tend.cjs: bin/tend.js compiles it
// through node:vm with a V8 code cache, which ES modules cannot use on Node 20,
// and CommonJS spares the ES module loader's work for every built-in import.
// Subcommands stay lazy: esbuild turns `import("./check.js")` into a module
// initialised on first use. The two worker threads' scripts are ES modules of
// their own, found next to the bundle through `import.meta.url`.
import { readFileSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = new URL("../", import.meta.url);
const outdir = fileURLToPath(new URL("dist/bundle", root));
const { version } = JSON.parse(readFileSync(new URL("package.json", root), "utf8"));

// Chunks of earlier builds (hashed names) would otherwise pile up, and a code
// cache must never outlive the bundle it was made from.
rmSync(outdir, { recursive: true, force: true });

const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  // Packages stay in node_modules, but for `yaml`: Puppet's Hiera, ENC and
  // Rudder read YAML on most runs, and ~80 CommonJS files loaded one by one
  // cost ~15 ms at each start; bundled, its code is in the V8 code cache too.
  plugins: [
    {
      name: "packages-external-but-yaml",
      setup(build) {
        build.onResolve({ filter: /^[^./]/ }, (args) =>
          args.path === "yaml" || args.path.startsWith("yaml/") ? undefined : { external: true },
        );
      },
    },
  ],
  define: { __TEND_VERSION__: JSON.stringify(version) },
  // Less text for V8 to parse at startup; names stay, so stack traces read.
  minifyWhitespace: true,
  // bin/tend.js reads the bundle as latin1, which is faster than UTF-8 and exact for ASCII.
  charset: "ascii",
  minifySyntax: true,
  logLevel: "warning",
};

await build({
  ...common,
  entryPoints: { tend: "dist/src/cli/main.js" },
  outdir,
  outExtension: { ".js": ".cjs" },
  format: "cjs",
  // CommonJS has no import.meta: the bundle's own URL stands in for it.
  define: { ...common.define, "import.meta.url": "__tendBundle.url" },
  inject: [fileURLToPath(new URL("scripts/bundle-url.js", root))],
});

await build({
  ...common,
  entryPoints: {
    "module-worker": "dist/src/providers/modules/module-worker.js",
    "spawn-worker": "dist/src/providers/commands/spawn-worker.js",
    "sync-worker": "dist/src/net/sync-worker.js",
  },
  outdir,
  format: "esm",
});
