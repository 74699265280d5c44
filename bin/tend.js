#!/usr/bin/env node
// Starts tend: the bundle dist/bundle/tend.cjs (`npm run build` makes it after
// the compiled sources), else, when it is missing or stale, dist/src itself.
// Each command has a bundle of its own beside it, tend-COMMAND.cjs, without
// the other commands' code (scripts/bundle.js): run when it is there, else
// tend.cjs.
//
// This file is CommonJS (bin/package.json says so): an ES module entry would
// make Node set up its ES module loader, which costs startup time for nothing.
//
// The bundle is compiled through node:vm with a V8 code cache kept next to it,
// one per subcommand (the functions a run compiled are in it): later runs skip
// parsing and compiling most of its JavaScript (0.4 to 1.2 MB), the largest
// part of the startup of Node 20, which has no compile cache of its own. V8
// rejects a cache made by another V8 or under other flags; it is then made
// anew. A cache that cannot be written (a read-only install) is simply not kept.
//
// A user-land startup snapshot (node --build-snapshot) of the evaluated bundle
// was measured against this and did not pay: its blob (8 to 10 MB) costs about
// what it saves, 1 to 5 ms of CPU, and more once it holds several commands' code
// (an empty blob alone costs ~2 ms more than Node's own); the blob must also
// be built under the very V8 flags of the run, and Node crashes on a damaged one.
"use strict";
// bin/tend kept NODE_EXTRA_CA_CERTS from Node's start (see there): back it goes.
if (process.env.TEND_DEFERRED_NODE_EXTRA_CA_CERTS !== undefined) {
  process.env.NODE_EXTRA_CA_CERTS = process.env.TEND_DEFERRED_NODE_EXTRA_CA_CERTS;
  delete process.env.TEND_DEFERRED_NODE_EXTRA_CA_CERTS;
}
const fs = require("node:fs");
const path = require("node:path");

const root = path.join(__dirname, "..");
const bundleDir = path.join(root, "dist", "bundle");
const sourcesEntry = path.join(root, "dist", "src", "cli", "main.js");

function statOf(file) {
  try {
    return fs.statSync(file);
  } catch {
    return undefined;
  }
}

function fail(message) {
  process.stderr.write(`tend: ${message}\n`);
  process.exitCode = 1;
}

/** `tend puppet apply --catalog FILE`: a catalog applied, nothing compiled. */
function appliesCatalog(args) {
  return args[0] === "puppet" && args[1] === "apply" && args.some((a) => /^--catalog(=|$)/.test(a));
}

/** How many successful runs of a subcommand remake its cache. */
const GROWING_RUNS = 3;

/**
 * The name of this run: the subcommand, but that `tend puppet apply
 * --catalog`, `tend puppet apply` of a manifest and `tend puppet catalog`
 * run different code (and flags): a code cache each.
 */
function runName() {
  const name = process.argv[2] ?? "";
  if (name === "puppet" && process.argv[3] === "apply")
    return appliesCatalog(process.argv.slice(2)) ? "puppet-apply" : "puppet-compile-apply";
  return /^[a-z]+$/.test(name) ? name : "other";
}

/**
 * The bundle this run compiles, its stat and the name of its code cache: the
 * command's own bundle (`tend puppet apply` of a manifest compiles, as `tend
 * puppet` does), else the whole CLI: when it is missing (a build of before),
 * and for `--version`, `--help` or a command tend does not know (their cache
 * is "other", not one for each word a user may type).
 */
function bundleOf(run) {
  const file = path.join(bundleDir, `tend-${run === "puppet-compile-apply" ? "puppet" : run}.cjs`);
  const stat = run === "other" ? undefined : statOf(file);
  if (stat) return { file, stat, cache: run };
  const whole = path.join(bundleDir, "tend.cjs");
  const cache = /^(agent|check|parse|monitord|serverd|puppet.*)$/.test(run) ? run : "other";
  return { file: whole, stat: statOf(whole), cache };
}

/**
 * The cache of the runs of one subcommand under this V8 (one file per V8, so
 * that two Node versions do not overwrite each other's), and the stamp that
 * ties it to this very bundle; the header line ends with the cache's generation.
 */
function cacheOf(bundle) {
  return {
    file: `${bundle.file}.${bundle.cache}.v8-${process.versions.v8}.cache`,
    stamp: `${process.versions.v8} ${process.arch} ${bundle.stat.size} ${bundle.stat.mtimeMs} `,
  };
}

function readCache(cache) {
  try {
    const data = fs.readFileSync(cache.file);
    const end = data.indexOf(10);
    const head = end === -1 ? "" : data.toString("latin1", 0, end);
    if (!head.startsWith(cache.stamp)) return undefined;
    // The header ends with the CPU time of the last run that made the cache, and its generation.
    const [cpuMs, generation] = head.slice(cache.stamp.length).split(" ");
    return {
      generation: Number(generation) || 0,
      cpuMs: Number(cpuMs) || 0,
      data: data.subarray(end + 1),
    };
  } catch {
    return undefined;
  }
}

/** Written whole or not at all: to a temporary file, then renamed over the old one. */
function writeCache(cache, script, generation, cpuMs) {
  const temp = `${cache.file}.${process.pid}.tmp`;
  try {
    const head = Buffer.from(`${cache.stamp}${Math.round(cpuMs)} ${generation}\n`, "latin1");
    fs.writeFileSync(temp, Buffer.concat([head, script.createCachedData()]));
    fs.renameSync(temp, cache.file);
  } catch {
    fs.rmSync(temp, { force: true });
  }
}

/**
 * Remakes the cache at exit, so that it holds the functions this run compiled,
 * not only the top level: when there is none (or V8 rejected it), and after
 * each of the first successful runs. V8 writes every function it holds, those
 * it read from the cache as well as those it compiled, so the cache grows to
 * what the runs use. A failed run (a usage error, an invalid policy) compiles
 * little: its cache, generation 0, is remade by the next successful run.
 *
 * After that, a run that takes more than twice the CPU time of the last
 * run that made the cache remakes it too: the first runs after a build may
 * be small ones (`tend puppet parser validate` of one file, a test), which
 * left a larger run to compile much of its code itself every time: the
 * generated environment of bench/puppet-compile.ts took 270 ms after three
 * validations of a one-line manifest had made the cache, 250 ms once its
 * own run had remade it (15 runs each, alternated). Each remaking doubles
 * the bar: a few at most.
 */
function keepCache(cache, script, found) {
  const fresh = found === undefined || script.cachedDataRejected === true;
  process.once("exit", (code) => {
    const used = process.cpuUsage();
    const cpuMs = (used.user + used.system) / 1000;
    if (code !== 0) {
      if (fresh) writeCache(cache, script, 0, 0);
    } else if (fresh) writeCache(cache, script, 1, cpuMs);
    else if (found.generation < GROWING_RUNS) writeCache(cache, script, found.generation + 1, cpuMs);
    else if (cpuMs > 2 * found.cpuMs) writeCache(cache, script, found.generation, cpuMs);
  });
}

/**
 * V8 flags set before the bundle is compiled. V8 accepts a code cache only
 * under the flags it was made with, and the cache is made at exit: a flag
 * set while running must be set here too, so that it is the same both times.
 *
 * - The regex flags the bundle sets as it loads (src/eval/regex/watchdog.ts:
 *   keep the two lists the same).
 * - A 16 times larger interrupt budget: V8 optimizes a function with
 *   Turbofan once it has run that much bytecode. A run of tend is short and
 *   runs much of its code a few hundred times, which V8's default takes for
 *   hot: it compiled (and often threw away) hundreds of functions in
 *   background threads, half the CPU time of a run on the MPF. With the
 *   larger budget, the functions that stay hot in a long run are still
 *   optimized, a little later. Not for `tend serverd`, which runs for days
 *   and whose request loop ran a third slower in baseline code with it
 *   (its own code cache, so the flags of the other commands do not matter).
 *   Nor for `tend puppet`: a catalog compile runs the evaluator's code over
 *   every resource, ten thousand times on a large environment, which V8's
 *   own budget optimizes sooner: 10% less CPU there, the same on a small
 *   module's node. `tend puppet apply --catalog` compiles nothing and
 *   does take the larger budget: with V8's own, Turbofan compiled the
 *   applier's and the providers' functions after a few hundred resources,
 *   a third of the CPU time of applying a thousand files.
 * - For `tend puppet` (but `apply --catalog`), a quarter of Turbofan's
 *   inlining budget (the bytecode inlined into one function: 230, not 920).
 *   The parser's and the evaluator's functions inline much of the compiler
 *   into each other: on the generated environment of 10,000 resources
 *   (bench/puppet-compile.ts), Turbofan's compiles took 204 ms of CPU in
 *   background threads, which share the cores with the compile, while its
 *   main thread ran the functions waiting for them unoptimized. With the
 *   smaller budget: 158 ms, and the run ~15% less CPU and ~6% less wall
 *   time, under Node 22 too. Small functions (getters) are inlined whatever
 *   the budget: the compile, warmed up, runs as fast as before.
 */
const V8_FLAGS = [
  "--enable-experimental-regexp-engine",
  "--enable-experimental-regexp-engine-on-excessive-backtracks",
  "--regexp-backtracks-before-fallback=1000000",
];
// The interrupt budget is V8 11's (Node 20). V8 12 and later (Node 22, 24)
// have no such flag (they print an error for a flag they do not know, on
// every run) and count invocations for each tier instead: the same sixteen
// times, for Turbofan and for Maglev (off by default in Node 22, on in 24).
// A first `tend puppet apply --catalog` of 1,000 files: 135 -> 116 ms of
// CPU under Node 22, 162 -> 120 ms under Node 24 (25 runs alternated, a
// loaded 2-core machine), as Node 20's 115; the 5,100 promises of
// bench/agent.ts: the same CPU, ~10% less wall time under both.
if (
  process.argv[2] !== "serverd" &&
  (process.argv[2] !== "puppet" || appliesCatalog(process.argv.slice(2)))
) {
  if (Number(process.versions.v8.split(".")[0]) < 12) V8_FLAGS.push("--interrupt-budget=1081344");
  else V8_FLAGS.push("--invocation-count-for-turbofan=48000", "--invocation-count-for-maglev=6400");
}
if (process.argv[2] === "puppet" && !appliesCatalog(process.argv.slice(2)))
  V8_FLAGS.push("--max-inlined-bytecode-size-cumulative=230");
// serverd collects its old generation itself (src/server/daemon/memory.ts sets
// the flag when it is missing, which would make V8 reject the cache each time).
if (process.argv[2] === "serverd") V8_FLAGS.push("--expose-gc");

/**
 * Node compiles its own modules from a code cache made under V8's default
 * flags: one first loaded after V8_FLAGS are set is compiled from source
 * instead (node:crypto's twenty modules: ~5 ms more). What a run is sure or
 * likely to load is loaded before: node:module (runBundle), parseArgs and
 * node:os (every command), and for a catalog apply node:crypto (the digests
 * of the files it writes). `tend agent` on a one-line policy: ~3 ms less
 * CPU. (Output to a pipe, a socket or a file is written without Node's
 * streams and node:net: src/cli/io.ts.)
 */
function preloadBuiltins() {
  require("node:module");
  require("node:util").parseArgs;
  require("node:os");
  if (appliesCatalog(process.argv.slice(2))) require("node:crypto");
}

function compileBundle(bundle) {
  const vm = require("node:vm");
  const v8 = require("node:v8");
  preloadBuiltins();
  for (const flag of V8_FLAGS) v8.setFlagsFromString(flag);
  // ASCII (scripts/bundle.js asks esbuild for it): latin1 decodes it exactly, and faster than UTF-8.
  const source = fs.readFileSync(bundle.file, "latin1");
  const cache = cacheOf(bundle);
  const found = readCache(cache);
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  // An `import()` esbuild leaves in the bundle (a built-in, or a user's file
  // such as a cookbook) goes to Node's own loader, as in a module.
  const script = new vm.Script(wrapped, {
    filename: bundle.file,
    cachedData: found?.data,
    importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  keepCache(cache, script, found);
  return script.runInThisContext();
}

/**
 * Built-in modules that many of tend's modules import but few runs use:
 * loading them costs milliseconds at each start. The bundle reads what it
 * imports from them only when it uses it (`import_x.name` at the call), so it
 * gets a stand-in that loads the real module on first use.
 */
const RARELY_USED = new Set([
  "node:child_process",
  "node:crypto",
  "node:net",
  "node:tty",
  "node:worker_threads",
]);

function requireLazily(requireNow) {
  return (id) => {
    if (!RARELY_USED.has(id)) return requireNow(id);
    let real;
    const load = () => {
      real ??= requireNow(id);
      return real;
    };
    return new Proxy(
      {},
      {
        get: (_, key) => load()[key],
        has: (_, key) => key in load(),
        ownKeys: () => Reflect.ownKeys(load()),
        getOwnPropertyDescriptor: (_, key) => {
          const descriptor = Reflect.getOwnPropertyDescriptor(load(), key);
          return descriptor && { ...descriptor, configurable: true };
        },
      },
    );
  };
}

function runBundle(bundle) {
  let start;
  try {
    start = compileBundle(bundle);
  } catch (error) {
    // A damaged bundle: the compiled sources can still do the work.
    if (statOf(sourcesEntry)) return runSources();
    return fail(`cannot load ${bundle.file}: ${error instanceof Error ? error.message : error}`);
  }
  const module = { exports: {} };
  const requireFromBundle = requireLazily(require("node:module").createRequire(bundle.file));
  try {
    start.call(module.exports, module.exports, requireFromBundle, module, bundle.file, bundleDir);
  } catch (error) {
    fail(`internal error: ${error instanceof Error ? error.message : error}`);
  }
}

function runSources() {
  // Node 22 and later keep compiled code between runs (a no-op on Node 20).
  require("node:module").enableCompileCache?.();
  import(require("node:url").pathToFileURL(sourcesEntry).href).catch((error) =>
    fail(`cannot load ${sourcesEntry}: ${error instanceof Error ? error.message : error}`),
  );
}

/**
 * Whether the sources were compiled again after the bundle was made (`npx tsc`
 * alone). Only a development tree is rebuilt in place: an installed package
 * has no tsconfig.json, and the times of its files are those of unpacking,
 * in no particular order.
 */
function isStale(bundle) {
  const sources = statOf(sourcesEntry);
  if (sources === undefined || sources.mtimeMs <= bundle.mtimeMs) return false;
  return statOf(path.join(root, "tsconfig.json")) !== undefined;
}

const bundle = bundleOf(runName());
if (bundle.stat && !isStale(bundle.stat)) runBundle(bundle);
else runSources();
