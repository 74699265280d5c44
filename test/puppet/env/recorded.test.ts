/**
 * The modus operandi's rules against what Puppet 7.23 did with the same
 * code (test/fixtures/puppet-env: code/, cases.txt, recorded/ — see its
 * README). Each case checks what tend decides before the compiler runs
 * (files, order, modules, environment, classifier) against Puppet's
 * catalog or error; and, once the compiler (`compileCatalog`) is on main,
 * the whole catalog or error too.
 */
import assert from "node:assert/strict";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { ModuleAutoloader } from "../../../src/puppet/env/autoloader.js";
import { CompileSetupError, compileNodeCatalog, prepareCompile } from "../../../src/puppet/env/compile.js";
import { loadEnvironment } from "../../../src/puppet/env/environments.js";
import * as compileApi from "../../../src/puppet/eval/compile-api.js";
import { resolveCompileSettings } from "../../../src/puppet/settings.js";
import { scratchDirectory } from "../../scratch.js";

const FIXTURES = fileURLToPath(new URL("../../../../test/fixtures/puppet-env/", import.meta.url));

interface Recorded {
  readonly catalog?: {
    readonly environment: string;
    readonly version: string | number;
    readonly classes: string[];
    readonly resources: {
      type: string;
      title: string;
      file?: string;
      line?: number;
      parameters?: Record<string, unknown>;
    }[];
  };
  readonly error?: string;
  readonly log: string[];
}

interface Case {
  readonly id: string;
  readonly environment: string;
  readonly node: string;
  readonly enc: boolean;
}

const CASES: Case[] = readFileSync(join(FIXTURES, "cases.txt"), "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "" && !line.startsWith("#"))
  .map((line) => {
    const [id, environment, node, enc] = line.trim().split(/\s+/);
    return { id, environment, node, enc: enc === "enc" };
  });

/** The recorded answer with Puppet's scratch root written as tend's. */
function recorded(id: string, root: string): Recorded {
  return JSON.parse(readFileSync(join(FIXTURES, "recorded", `${id}.json`), "utf8").replaceAll("/ROOT", root));
}

/** The fixture code under a scratch root, as record.sh lays it out for Puppet. */
function scratchRoot(): string {
  const root = scratchDirectory("tend-env-recorded-");
  cpSync(join(FIXTURES, "code"), join(root, "code"), { recursive: true });
  mkdirSync(join(root, "etc"));
  cpSync(join(FIXTURES, "facts"), join(root, "var/server_data/facts"), { recursive: true });
  writeFileSync(
    join(root, "etc/puppet.conf"),
    `[main]\nvardir = ${root}/var\ncodedir = ${root}/code\nbasemodulepath = $codedir/modules\n`,
  );
  return root;
}

const ROOT = scratchRoot();

function settingsFor(c: Case) {
  return resolveCompileSettings(
    {
      confdir: join(ROOT, "etc"),
      environment: c.environment,
      facts_terminus: "json",
      ...(c.enc ? { node_terminus: "exec", external_nodes: join(ROOT, "code/enc.sh") } : {}),
    },
    ROOT,
  );
}

function byId(id: string): Case {
  const found = CASES.find((c) => c.id === id);
  assert.ok(found, id);
  return found;
}

function environmentOf(id: string) {
  return loadEnvironment(settingsFor(byId(id)), byId(id).environment);
}

/** Puppet's Notify resources' files, in catalog order. */
function notifyFiles(r: Recorded): string[] {
  return (r.catalog?.resources ?? []).filter((x) => x.type === "Notify").map((x) => x.file ?? "");
}

test("manifest directory order: tend loads the files in the order Puppet evaluated them", () => {
  const env = environmentOf("order");
  const puppet = recorded("order", ROOT);
  assert.deepEqual(env.manifests, notifyFiles(puppet));
  assert.deepEqual(
    env.manifests.map((f) => relative(join(ROOT, "code/environments/order/manifests"), f)),
    ["10.pp", "2.pp", "B.pp", "_x.pp", "a.pp", "a/z.pp", "b.pp", "sub/deeper/1.pp"],
  );
});

test("autoload (3.x): each class and define Puppet found is in a file tend's search gives", () => {
  const env = environmentOf("autoload");
  const loader = new ModuleAutoloader(env);
  const puppet = recorded("autoload", ROOT);
  const fileOf = (title: string) => puppet.catalog?.resources.find((r) => r.title === title)?.file;
  // a::b::c lives in a/manifests/b.pp: the search dropped the most specific segment.
  assert.ok(loader.definitionFiles("a::b::c").includes(fileOf("a::b::c from b.pp") ?? "?"));
  assert.ok(loader.definitionFiles("a::b").includes(fileOf("a::b from b.pp") ?? "?"));
  assert.deepEqual(loader.definitionFiles("a"), [fileOf("a from init.pp")]);
  // a::in_init is found because init.pp is loaded with any class of module a.
  assert.equal(loader.definitionFiles("a::in_init")[0], fileOf("a::in_init from init.pp"));
  assert.ok(loader.definitionFiles("a::d::e").includes(fileOf("a::d::e x from d/e.pp") ?? "?"));
  // Each file once: Puppet compiled a::b::c, a::b and a from two files with no redefinition.
  assert.equal(puppet.error, undefined);
  assert.deepEqual(new Set(loader.definitionFiles("a::b::c")).size, loader.definitionFiles("a::b::c").length);
  // The 4.x function and type alias Puppet used are where tend looks.
  assert.deepEqual(loader.functionFiles("a::f"), [join(ROOT, "code/modules/a/functions/f.pp")]);
  assert.deepEqual(loader.typeAliasFiles("A::T"), [join(ROOT, "code/modules/a/types/t.pp")]);
});

test("autoload (4.x): a function defined in the wrong file is not found, by Puppet nor tend", () => {
  const loader = new ModuleAutoloader(environmentOf("autoload4x"));
  assert.match(recorded("autoload4x", ROOT).error ?? "", /^Evaluation Error: Unknown function: 'a::g::h'\./);
  assert.deepEqual(loader.functionFiles("a::g::h"), []);
});

test("the first module of a name on the module path wins", () => {
  const env = environmentOf("firstwins");
  const puppet = recorded("firstwins", ROOT);
  assert.deepEqual(notifyFiles(puppet), [
    join(ROOT, "code/environments/firstwins/modules/m/manifests/init.pp"),
  ]);
  assert.equal(env.modules.get("m")?.dir, join(ROOT, "code/environments/firstwins/modules/m"));
  assert.deepEqual(new ModuleAutoloader(env).definitionFiles("m"), notifyFiles(puppet));
});

test("a directory that is not a module name is no module", () => {
  const env = environmentOf("badmod");
  assert.match(recorded("badmod", ROOT).error ?? "", /Could not find class ::bad_mod for n1\.example\.com/);
  assert.equal(env.modules.has("Bad_Mod"), false);
  assert.deepEqual(new ModuleAutoloader(env).definitionFiles("bad_mod"), []);
});

test("environment.conf: modulepath with $basemodulepath, manifest, config_version as the catalog's version", () => {
  const env = environmentOf("confenv");
  const puppet = recorded("confenv", ROOT);
  assert.equal(env.configVersion, puppet.catalog?.version);
  assert.deepEqual(env.manifests, [join(ROOT, "code/environments/confenv/main.pp")]);
  const loader = new ModuleAutoloader(env);
  const files = notifyFiles(puppet);
  assert.deepEqual(loader.definitionFiles("localmod"), [files[0]]);
  assert.deepEqual(loader.definitionFiles("m"), [files[1]]);
});

for (const id of ["enc-hash", "enc-list", "enc-noenv"]) {
  test(`ENC (${id}): the environment, classes and parameters Puppet compiled with`, async () => {
    const c = byId(id);
    const puppet = recorded(id, ROOT);
    const { input } = await prepareCompile({
      node: c.node,
      settings: settingsFor(c),
      factsDir: join(ROOT, "var/server_data"),
    });
    assert.equal(input.environment.name, puppet.catalog?.environment);
    const names = input.node.classes.map((k) => k.name);
    assert.deepEqual(puppet.catalog?.classes.slice(0, names.length), names);
  });
}

test("ENC parameters are top-scope variables; the ENC's classes get their parameters", async () => {
  const c = byId("enc-hash");
  const { input } = await prepareCompile({
    node: c.node,
    settings: settingsFor(c),
    factsDir: join(ROOT, "var/server_data"),
  });
  const titles = recorded("enc-hash", ROOT).catalog?.resources.map((r) => r.title) ?? [];
  assert.ok(
    titles.includes(
      `in staging: role=${input.node.parameters.role} dc=${input.node.parameters.datacenter} env=staging`,
    ),
  );
  const base = input.node.classes.find((k) => k.name === "base");
  assert.ok(titles.includes(`base: ${base?.parameters.motd}`));
});

for (const id of ["enc-fail", "enc-empty"]) {
  test(`ENC (${id}): Puppet's error`, async () => {
    const c = byId(id);
    await assert.rejects(
      prepareCompile({ node: c.node, settings: settingsFor(c), factsDir: join(ROOT, "var/server_data") }),
      (e: Error) => e instanceof CompileSetupError && e.message === recorded(id, ROOT).error,
    );
  });
}

/** The compiler, when it is on main. */
const compilerReady = typeof (compileApi as Record<string, unknown>).compileCatalog === "function";

/** What a catalog comparison looks at: the resources (type, title, file, line, parameters) and classes. */
function shape(catalog: NonNullable<Recorded["catalog"]>) {
  return {
    environment: catalog.environment,
    classes: catalog.classes,
    resources: catalog.resources.map((r) => ({
      type: r.type,
      title: r.title,
      file: r.file,
      line: r.line,
      parameters: r.parameters,
    })),
  };
}

/** Where the compiler (src/puppet/eval) still differs from Puppet: reported, not failed. */
const KNOWN: Readonly<Record<string, string>> = {};

for (const c of CASES) {
  test(`end to end (${c.id}): tend's catalog or error is Puppet's`, {
    skip: compilerReady ? false : "compileCatalog is not on main yet (the core helper's work)",
    todo: KNOWN[c.id],
  }, async () => {
    const puppet = recorded(c.id, ROOT);
    let outcome: { catalog?: NonNullable<Recorded["catalog"]>; error?: string };
    try {
      const compiled = await compileNodeCatalog({
        node: c.node,
        settings: settingsFor(c),
        factsDir: join(ROOT, "var/server_data"),
      });
      outcome = {
        catalog: JSON.parse(JSON.stringify(compiled.result.catalog)) as NonNullable<Recorded["catalog"]>,
      };
    } catch (error) {
      if (error instanceof compileApi.PuppetCompileError) {
        const { compileErrorText } = await import("../../../src/puppet/env/compile.js");
        outcome = { error: compileErrorText(error, c.node) };
      } else if (error instanceof CompileSetupError) outcome = { error: error.message };
      else throw error;
    }
    if (puppet.error !== undefined) assert.equal(outcome.error, puppet.error);
    else {
      assert.equal(outcome.error, undefined);
      assert.ok(outcome.catalog && puppet.catalog);
      assert.deepEqual(shape(outcome.catalog), shape(puppet.catalog));
      if (typeof puppet.catalog.version === "string")
        assert.equal(outcome.catalog.version, puppet.catalog.version);
    }
  });
}
