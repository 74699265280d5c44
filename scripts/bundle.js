#!/usr/bin/env node
// Bundles the compiled CLI (dist/src) into dist/bundle with esbuild, so that
// `tend` starts without resolving and loading a hundred modules one by one.
//
// The CLI is one CommonJS file, dist/bundle/tend.cjs: bin/tend.js compiles it
// through node:vm with a V8 code cache, which ES modules cannot use on Node 20,
// and CommonJS spares the ES module loader's work for every built-in import.
// Subcommands stay lazy: esbuild turns `import("./check.js")` into a module
// initialised on first use. The worker threads' scripts are ES modules of
// their own, found next to the bundle through `import.meta.url`.
//
// Beside the whole CLI, each command has a bundle of its own,
// tend-COMMAND.cjs, which bin/tend.js runs for that command: the other
// commands' modules are left out, so a run reads, hashes and deserialises
// (code cache) a third of the text or less: ~9 ms less CPU at each start of
// `tend agent`, `tend check` and `tend puppet apply --catalog` on Node 20.
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

/**
 * The command bundles, by the name bin/tend.js gives the run: the commands
 * of src/cli/app.js each keeps, and the modules it leaves out besides, by
 * the module that imports them lazily (`tend puppet apply --catalog`
 * compiles nothing: Puppet's compiler and parser stay out). A command of
 * app.js missing here runs the whole CLI.
 */
const COMMAND_BUNDLES = {
  ...Object.fromEntries(
    [
      "agent",
      "check",
      "converge",
      "puppet",
      "serverd",
      "monitord",
      "execd",
      "net",
      "runagent",
      "hub",
      "key",
      "rudder",
      "parse",
    ].map((command) => [command, { commands: [command] }]),
  ),
  "puppet-apply": {
    commands: ["puppet"],
    without: { "cli/puppet.js": ["./puppet-catalog.js", "./puppet-compile.js", "./puppet-parser.js"] },
  },
};

/**
 * Replaces the modules a command bundle leaves out by one that throws: only
 * `import()`s are replaced, which esbuild keeps lazy, so nothing is missing
 * until one runs (bin/tend.js picks the bundle by the command line, and the
 * command never loads the others).
 */
function leaveOut(name, { commands, without = {} }) {
  const lazyIn = { "cli/app.js": (path) => !commands.includes(path.slice(2, -3)), ...without };
  return {
    name: "leave-out-other-commands",
    setup(build) {
      build.onResolve({ filter: /^\.\/[a-z-]+\.js$/ }, (args) => {
        if (args.kind !== "dynamic-import") return undefined;
        const importer = Object.keys(lazyIn).find((m) => args.importer.endsWith(`/dist/src/${m}`));
        const leftOut = lazyIn[importer];
        if (leftOut === undefined) return undefined;
        const out = typeof leftOut === "function" ? leftOut(args.path) : leftOut.includes(args.path);
        return out ? { path: `${importer}:${args.path}`, namespace: "left-out" } : undefined;
      });
      build.onLoad({ filter: /./, namespace: "left-out" }, (args) => ({
        contents: `throw new Error(${JSON.stringify(`the bundle tend-${name}.cjs has no ${args.path} (bin/tend.js runs tend.cjs for other commands)`)});`,
        loader: "js",
      }));
    },
  };
}

const cli = {
  ...common,
  outdir,
  outExtension: { ".js": ".cjs" },
  format: "cjs",
  // CommonJS has no import.meta: the bundle's own URL stands in for it.
  define: { ...common.define, "import.meta.url": "__tendBundle.url" },
  inject: [fileURLToPath(new URL("scripts/bundle-url.js", root))],
};

await Promise.all([
  build({ ...cli, entryPoints: { tend: "dist/src/cli/main.js" } }),
  ...Object.entries(COMMAND_BUNDLES).map(([name, bundle]) =>
    build({
      ...cli,
      entryPoints: { [`tend-${name}`]: "dist/src/cli/main.js" },
      plugins: [...common.plugins, leaveOut(name, bundle)],
    }),
  ),
]);

await build({
  ...common,
  entryPoints: {
    "module-worker": "dist/src/providers/modules/module-worker.js",
    "spawn-worker": "dist/src/providers/commands/spawn-worker.js",
    "sync-worker": "dist/src/net/sync-worker.js",
    "dns-worker": "dist/src/eval/dns-worker.js",
  },
  outdir,
  format: "esm",
});

// What host.ts loads only when the host's names need more than /etc/hosts
// (DNS...): required by the command bundles, so CommonJS too.
await build({
  ...common,
  entryPoints: { "host-resolver": "dist/src/eval/host-resolver.js" },
  outdir,
  outExtension: { ".js": ".cjs" },
  format: "cjs",
});
