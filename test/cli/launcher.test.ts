/**
 * The `tend` command (bin/tend) keeps NODE_EXTRA_CA_CERTS from Node's start
 * and puts it back before the agent runs anything: what a policy runs must
 * see the environment tend was given, unchanged.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { scratchDirectory } from "../scratch.js";

const launcher = fileURLToPath(new URL("../../../bin/tend", import.meta.url));

const POLICY = `bundle agent main
{
  vars:
      "extra" string => execresult("printenv NODE_EXTRA_CA_CERTS || echo unset", "useshell");
      "deferred" string => execresult("printenv TEND_DEFERRED_NODE_EXTRA_CA_CERTS || echo unset", "useshell");
  reports:
      "extra=$(extra) deferred=$(deferred)";
}
`;

function runLauncher(command: string, extraCaCerts: string | undefined) {
  const dir = scratchDirectory("tend-launcher-");
  writeFileSync(join(dir, "policy.cf"), POLICY);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // The node running the tests is the one the command should find.
    PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`,
    CFENGINE_TEST_OVERRIDE_WORKDIR: join(dir, "work"),
  };
  delete env.NODE_EXTRA_CA_CERTS;
  delete env.TEND_DEFERRED_NODE_EXTRA_CA_CERTS;
  if (extraCaCerts !== undefined) env.NODE_EXTRA_CA_CERTS = extraCaCerts;
  return spawnSync(command, ["agent", "-Kf", join(dir, "policy.cf")], {
    env,
    encoding: "utf8",
    timeout: 30_000,
  });
}

test("a program the agent runs sees NODE_EXTRA_CA_CERTS as given, and Node never read it", () => {
  // A file that does not exist: had Node 20 read it at start, it would warn on stderr.
  const run = runLauncher(launcher, "/nonexistent/tend-test-ca.pem");
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, "R: extra=/nonexistent/tend-test-ca.pem deferred=unset\n");
  assert.doesNotMatch(run.stderr, /extra certs/i);
});

test("an unset NODE_EXTRA_CA_CERTS stays unset", () => {
  const run = runLauncher(launcher, undefined);
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, "R: extra=unset deferred=unset\n");
  // Nothing on stderr: every V8 flag the launcher sets is one this V8 knows.
  assert.equal(run.stderr, "");
});

test("the command works through a symbolic link, as npm installs it", () => {
  const link = join(scratchDirectory("tend-launcher-link-"), "tend");
  symlinkSync(launcher, link);
  const run = runLauncher(link, "");
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, "R: extra= deferred=unset\n");
});

/**
 * The generations of the code cache `name` made beside `bundle`
 * (BUNDLE.NAME.*) after each of three runs of `args` on a copy of bin/ and
 * of the bundles `copied` (undefined: not built), and the caches made.
 */
function cacheGenerations(
  name: string,
  args: (copy: string) => string[],
  { bundle = "tend.cjs", copied = ["tend.cjs"] }: { bundle?: string; copied?: readonly string[] } = {},
): { seen: (number | undefined)[]; caches: string[] } | undefined {
  const root = fileURLToPath(new URL("../../../", import.meta.url));
  if (!copied.every((file) => existsSync(join(root, "dist", "bundle", file)))) return undefined;
  const copy = scratchDirectory("tend-launcher-cache-");
  const bundles = join(copy, "dist", "bundle");
  cpSync(join(root, "bin"), join(copy, "bin"), { recursive: true });
  mkdirSync(bundles, { recursive: true });
  for (const file of copied) cpSync(join(root, "dist", "bundle", file), join(bundles, file));
  const generation = () => {
    const cache = readdirSync(bundles).find((f) => f.startsWith(`${bundle}.${name}.`));
    if (!cache) return undefined;
    const head = readFileSync(join(bundles, cache), "latin1").split("\n", 1)[0] ?? "";
    return Number(head.slice(head.lastIndexOf(" ") + 1));
  };
  const command = args(copy);
  const seen: (number | undefined)[] = [];
  for (let i = 0; i < 3; i++) {
    const run = spawnSync(process.execPath, [join(copy, "bin", "tend.js"), ...command], {
      encoding: "utf8",
      env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: join(copy, "work") },
      timeout: 30_000,
    });
    assert.equal(run.status, 0, run.stderr);
    seen.push(generation());
  }
  return { seen, caches: readdirSync(bundles).filter((f) => f.endsWith(".cache")) };
}

function checkArgs(copy: string): string[] {
  const policy = join(copy, "policy.cf");
  writeFileSync(policy, 'bundle agent main { vars: "x" string => "1"; }\n');
  return ["check", "-f", policy];
}

test("the bundle's code cache is accepted by the next runs and grows", (t) => {
  // bin/tend.js remakes the cache at exit: as generation 1 when there was
  // none or V8 rejected it (another V8, other flags), else one generation
  // on. Only accepted caches reach generation 3.
  const made = cacheGenerations("check", checkArgs);
  if (made === undefined) t.skip("no bundle (npm run build makes it)");
  else assert.deepEqual(made.seen, [1, 2, 3]);
});

test("a run much larger than those that made the cache makes it again", (t) => {
  const root = fileURLToPath(new URL("../../../", import.meta.url));
  if (!existsSync(join(root, "dist", "bundle", "tend.cjs"))) {
    t.skip("no bundle (npm run build makes it)");
    return;
  }
  const copy = scratchDirectory("tend-launcher-cache-");
  const bundles = join(copy, "dist", "bundle");
  cpSync(join(root, "bin"), join(copy, "bin"), { recursive: true });
  mkdirSync(bundles, { recursive: true });
  cpSync(join(root, "dist", "bundle", "tend.cjs"), join(bundles, "tend.cjs"));
  const small = join(copy, "small.cf");
  writeFileSync(small, 'bundle agent main { vars: "x" string => "1"; }\n');
  const large = join(copy, "large.cf");
  const vars = Array.from({ length: 10_000 }, (_, i) => `"v${i}" string => concat("a", "${i}");`);
  writeFileSync(large, `bundle agent main { vars: ${vars.join(" ")} }\n`);
  // The cache's header: "<stamp> <CPU ms of the last run that made it> <generation>".
  const head = () => {
    const cache = readdirSync(bundles).find((f) => f.startsWith("tend.cjs.check."));
    const line =
      cache === undefined ? "" : (readFileSync(join(bundles, cache), "latin1").split("\n", 1)[0] ?? "");
    const [cpu, generation] = line.split(" ").slice(-2).map(Number);
    return { cpu: cpu ?? Number.NaN, generation: generation ?? Number.NaN };
  };
  const check = (policy: string) => {
    const run = spawnSync(process.execPath, [join(copy, "bin", "tend.js"), "check", "-f", policy], {
      encoding: "utf8",
      timeout: 30_000,
    });
    assert.equal(run.status, 0, run.stderr);
    return head();
  };
  for (let i = 0; i < 3; i++) check(small);
  const grown = head();
  assert.equal(grown.generation, 3);
  // A small run changes nothing once the cache has grown...
  assert.deepEqual(check(small), grown);
  // ...a run of more than twice its CPU time makes it again, at the same generation.
  const remade = check(large);
  assert.equal(remade.generation, 3);
  assert.ok(remade.cpu > 2 * grown.cpu, `${remade.cpu} after ${grown.cpu}`);
  assert.deepEqual(check(small), remade);
});

test("a command runs its own bundle when there is one, with its cache beside it", (t) => {
  const made = cacheGenerations("check", checkArgs, {
    bundle: "tend-check.cjs",
    copied: ["tend.cjs", "tend-check.cjs"],
  });
  if (made === undefined) t.skip("no bundle (npm run build makes it)");
  else {
    assert.deepEqual(made.seen, [1, 2, 3]);
    assert.deepEqual(
      made.caches.map((f) => f.split(".v8-")[0]),
      ["tend-check.cjs.check"],
    );
  }
});

test("without its own bundle (a build of before), a command runs the whole CLI's", (t) => {
  // cacheGenerations copies tend.cjs alone unless told otherwise.
  const made = cacheGenerations("agent", (copy) => {
    writeFileSync(join(copy, "policy.cf"), 'bundle agent main { reports: "hi"; }\n');
    return ["agent", "-Kf", join(copy, "policy.cf")];
  });
  if (made === undefined) t.skip("no bundle (npm run build makes it)");
  else
    assert.deepEqual(
      made.caches.map((f) => f.split(".v8-")[0]),
      ["tend.cjs.agent"],
    );
});

test("`--version`, `--help` and unknown commands run the whole CLI, under one cache", (t) => {
  const made = cacheGenerations("other", () => ["--version"], { copied: ["tend.cjs", "tend-agent.cjs"] });
  if (made === undefined) t.skip("no bundle (npm run build makes it)");
  else {
    assert.deepEqual(made.seen, [1, 2, 3]);
    assert.deepEqual(
      made.caches.map((f) => f.split(".v8-")[0]),
      ["tend.cjs.other"],
    );
  }
});

test("a command's own bundle leaves the others out, and says so if one is asked of it", (t) => {
  const root = fileURLToPath(new URL("../../../", import.meta.url));
  const agentOnly = join(root, "dist", "bundle", "tend-agent.cjs");
  if (!existsSync(agentOnly)) return t.skip("no bundle (npm run build makes it)");
  // Run as a plain script, the bundle takes its command from the command line: `check` is not in it.
  const run = spawnSync(process.execPath, [agentOnly, "check", "-f", "/nonexistent/policy.cf"], {
    encoding: "utf8",
    timeout: 30_000,
  });
  assert.equal(run.status, 1);
  assert.match(run.stderr, /tend-agent\.cjs has no cli\/app\.js:\.\/check\.js/);
});

/** A Puppet catalog JSON of `files` (path and content), each in Class[main]. */
function fileCatalogJson(files: readonly { path: string; content: string }[]): string {
  const resources = files.map((f) => ({
    type: "File",
    title: f.path,
    tags: ["file", "class"],
    exported: false,
    parameters: { ensure: "file", content: f.content },
  }));
  return JSON.stringify({
    name: "n1",
    version: 1,
    environment: "production",
    resources: [
      { type: "Stage", title: "main", tags: ["stage"], exported: false, parameters: { name: "main" } },
      { type: "Class", title: "main", tags: ["class"], exported: false, parameters: { name: "main" } },
      ...resources,
    ],
    edges: [
      { source: "Stage[main]", target: "Class[main]" },
      ...resources.map((r) => ({ source: "Class[main]", target: `File[${r.title}]` })),
    ],
    classes: ["main"],
  });
}

test("`puppet apply --catalog` keeps a code cache of its own, made under its own V8 flags", (t) => {
  // It runs with other V8 flags than a compile (bin/tend.js): a cache
  // shared with `puppet apply FILE.pp` would be rejected at every switch.
  // Its own bundle too: Puppet's compiler is not in it (scripts/bundle.js).
  const made = cacheGenerations(
    "puppet-apply",
    (copy) => {
      writeFileSync(join(copy, "puppet.conf"), `[main]\nvardir = ${copy}/var\ncodedir = ${copy}/code\n`);
      writeFileSync(join(copy, "catalog.json"), fileCatalogJson([{ path: `${copy}/out`, content: "hi\n" }]));
      return ["puppet", "apply", "--confdir", copy, "--catalog", join(copy, "catalog.json")];
    },
    { bundle: "tend-puppet-apply.cjs", copied: ["tend.cjs", "tend-puppet-apply.cjs", "tend-puppet.cjs"] },
  );
  if (made === undefined) t.skip("no bundle (npm run build makes it)");
  else {
    assert.deepEqual(made.seen, [1, 2, 3]);
    assert.deepEqual(
      made.caches.map((f) => f.split(".v8-")[0]),
      ["tend-puppet-apply.cjs.puppet-apply"],
    );
  }
});

test("through the bundle, `puppet apply FILE.pp` compiles and applies (an import() left in the bundle works)", () => {
  const dir = scratchDirectory("tend-launcher-apply-");
  mkdirSync(join(dir, "code/environments/production"), { recursive: true });
  writeFileSync(join(dir, "puppet.conf"), `[main]\nvardir = ${dir}/var\ncodedir = ${dir}/code\n`);
  writeFileSync(join(dir, "site.pp"), `file { '${dir}/out': content => "hi\\n" }\n`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`,
  };
  const run = spawnSync(
    launcher,
    ["puppet", "apply", "--confdir", dir, "--certname", "n1", "--detailed-exitcodes", join(dir, "site.pp")],
    { env, encoding: "utf8", timeout: 30_000 },
  );
  assert.equal(run.status, 2, run.stderr);
  assert.equal(readFileSync(join(dir, "out"), "utf8"), "hi\n");
});

test("`puppet apply --json` into a pipe read late: all of it arrives before the process ends", () => {
  // The command ends at once when its output is out (src/cli/main.ts); a
  // pipe that is full holds the rest, which Node's own exit then waits for.
  const dir = scratchDirectory("tend-launcher-pipe-");
  writeFileSync(join(dir, "puppet.conf"), `[main]\nvardir = ${dir}/var\ncodedir = ${dir}/code\n`);
  mkdirSync(join(dir, "files"));
  const files = Array.from({ length: 300 }, (_, i) => ({
    path: `${dir}/files/f${i}`,
    content: `file ${i}\n`,
  }));
  writeFileSync(join(dir, "catalog.json"), fileCatalogJson(files));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`,
  };
  const command = `'${launcher}' puppet apply --json --confdir '${dir}' --catalog '${dir}/catalog.json' 2>/dev/null`;
  const late = spawnSync("sh", ["-c", `${command} | (sleep 1; cat)`], {
    env,
    encoding: "utf8",
    timeout: 30_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  assert.equal(late.status, 0, late.stderr);
  // Far more than a pipe holds (64 KiB): cut at a pipe's worth when the process ends too soon.
  assert.ok(late.stdout.length > 200_000, `${late.stdout.length} bytes arrived: the output was cut`);
  const report = JSON.parse(late.stdout) as { resource_statuses: Record<string, unknown> };
  assert.equal(Object.keys(report.resource_statuses).length, 300);
});
