/**
 * The modus operandi's boot phase as tend does it: environments on the
 * environmentpath, environment.conf, the main manifests' order, the
 * modules on the module path, and the autoloader's search. What Puppet
 * 7.23 does for each is recorded in test/fixtures/puppet-env/ (README).
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { ModuleAutoloader, isEligibleFileName, nameSegments } from "../../../src/puppet/env/autoloader.js";
import {
  EnvironmentError,
  compareBytes,
  isValidEnvironmentName,
  isValidModuleName,
  loadEnvironment,
  manifestFiles,
  readEnvironmentConf,
} from "../../../src/puppet/env/environments.js";
import {
  type CompileSettingName,
  SettingsError,
  resolveCompileSettings,
} from "../../../src/puppet/settings.js";
import { scratchDirectory } from "../../scratch.js";

function write(path: string, text = ""): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** A scratch confdir whose puppet.conf points everything under `root`. */
function scratchPuppet(extra = ""): string {
  const root = scratchDirectory("tend-env-");
  write(
    join(root, "etc/puppet.conf"),
    `[main]\nvardir = ${root}/var\ncodedir = ${root}/code\nbasemodulepath = $codedir/modules\n${extra}`,
  );
  mkdirSync(join(root, "code/environments/production"), { recursive: true });
  return root;
}

function settingsOf(root: string, given: Partial<Record<CompileSettingName, string>> = {}) {
  return resolveCompileSettings({ confdir: join(root, "etc"), ...given }, root);
}

test("the manifests directory is read recursively, sorted bytewise by path", () => {
  const dir = scratchDirectory("tend-env-manifests-");
  for (const name of [
    "2.pp",
    "10.pp",
    "a/z.pp",
    "b.pp",
    "B.pp",
    "a.pp",
    "_x.pp",
    "notes.txt",
    ".hidden.pp",
    ".d/x.pp",
    "sub/deeper/1.pp",
  ])
    write(join(dir, name), "");
  mkdirSync(join(dir, "dir.pp"));
  const files = manifestFiles(dir).map((f) => f.slice(dir.length + 1));
  assert.deepEqual(files, ["10.pp", "2.pp", "B.pp", "_x.pp", "a.pp", "a/z.pp", "b.pp", "sub/deeper/1.pp"]);
  // One file is itself; a missing path is no manifest at all.
  assert.deepEqual(manifestFiles(join(dir, "2.pp")), [join(dir, "2.pp")]);
  assert.deepEqual(manifestFiles(join(dir, "nothing-here")), []);
  assert.ok(compareBytes("a/z.pp", "a.pp") > 0, "'/' sorts after '.'");
});

test("environment names and module names Puppet accepts", () => {
  for (const ok of ["production", "feature_1", "Prod", "_x", "1"]) assert.ok(isValidEnvironmentName(ok), ok);
  for (const bad of ["", "a-b", "a.b", "a b", "é"]) assert.ok(!isValidEnvironmentName(bad), bad);
  for (const ok of ["ntp", "a1", "a_b"]) assert.ok(isValidModuleName(ok), ok);
  for (const bad of ["Ntp", "1a", "_a", "a-b", "a.b", "puppetlabs-ntp"])
    assert.ok(!isValidModuleName(bad), bad);
});

test("an environment is found on the environmentpath, first directory first", () => {
  const root = scratchPuppet();
  mkdirSync(join(root, "other/production/manifests"), { recursive: true });
  mkdirSync(join(root, "other/staging"), { recursive: true });
  const path = `${root}/code/environments:${root}/other`;
  const prod = loadEnvironment(settingsOf(root, { environmentpath: path }), "production");
  assert.equal(prod.dir, join(root, "code/environments/production"));
  const staging = loadEnvironment(settingsOf(root, { environmentpath: path }), "staging");
  assert.equal(staging.dir, join(root, "other/staging"));
  assert.throws(
    () => loadEnvironment(settingsOf(root), "nosuch"),
    (error: Error) =>
      error instanceof EnvironmentError &&
      error.message ===
        `Could not find a directory environment named 'nosuch' anywhere in the path: ${root}/code/environments. Does the directory exist?`,
  );
  // A directory whose name is not an environment name is no environment.
  mkdirSync(join(root, "code/environments/bad-name"));
  assert.throws(() => loadEnvironment(settingsOf(root), "bad-name"), EnvironmentError);
});

test("the default environment: <env>/modules then basemodulepath, <env>/manifests", () => {
  const root = scratchPuppet();
  const env = loadEnvironment(settingsOf(root), "production");
  assert.deepEqual(env.modulePath, [
    join(root, "code/environments/production/modules"),
    join(root, "code/modules"),
  ]);
  assert.deepEqual(env.manifests, []);
  assert.equal(env.configVersion, undefined);
  assert.equal(env.code, undefined);
});

test("environment.conf: modulepath with $basemodulepath and relative paths, manifest, config_version", () => {
  const root = scratchPuppet();
  const dir = join(root, "code/environments/production");
  write(
    join(dir, "environment.conf"),
    [
      "# comment",
      "modulepath = site:dist:$basemodulepath",
      "manifest = site.pp",
      "config_version = 'scripts/version.sh'",
      "environment_timeout = unlimited",
      "",
    ].join("\n"),
  );
  write(join(dir, "site.pp"), "");
  write(join(dir, "scripts/version.sh"), "#!/bin/sh\necho '  v42 '\n");
  chmodSync(join(dir, "scripts/version.sh"), 0o755);
  const conf = readEnvironmentConf(dir);
  assert.deepEqual(conf.warnings, []);
  assert.equal(conf.settings.environment_timeout, "unlimited");
  // Puppet keeps the quotes of a value; a quoted command is the shell's business.
  const env = loadEnvironment(settingsOf(root), "production");
  assert.deepEqual(env.modulePath, [join(dir, "site"), join(dir, "dist"), join(root, "code/modules")]);
  assert.deepEqual(env.manifests, [join(dir, "site.pp")]);
  assert.equal(env.configVersion, "v42");
});

test("environment.conf: sections and unknown settings warn as Puppet warns; a bad line is an error", () => {
  const root = scratchPuppet();
  const dir = join(root, "code/environments/production");
  write(join(dir, "environment.conf"), "modulepath = m\nfoo = 1\n[extra]\nbar = 2\n");
  const warnings: string[] = [];
  const env = loadEnvironment(settingsOf(root), "production", { warn: (w) => warnings.push(w) });
  assert.deepEqual(env.modulePath, [join(dir, "m")]);
  assert.deepEqual(warnings, [
    `Invalid sections in environment.conf at '${dir}/environment.conf'. Environment conf may not have sections. The following sections are being ignored: 'extra'`,
    `Invalid settings in environment.conf at '${dir}/environment.conf'. The following unknown setting(s) are being ignored: foo`,
  ]);
  write(join(dir, "environment.conf"), "modulepath m\n");
  assert.throws(
    () => loadEnvironment(settingsOf(root), "production"),
    (error: Error) =>
      error.message === `Could not match line modulepath m (file: ${dir}/environment.conf, line: 1)`,
  );
});

test("config_version that fails is Puppet's error; the command line overrides environment.conf", () => {
  const root = scratchPuppet();
  const dir = join(root, "code/environments/production");
  write(join(dir, "environment.conf"), "config_version = /bin/sh -c 'echo broken; exit 3'\n");
  assert.throws(
    () => loadEnvironment(settingsOf(root), "production"),
    (error: Error) =>
      error.message ===
      "Execution of config_version command `/bin/sh -c 'echo broken; exit 3'` failed: Execution of '/bin/sh -c 'echo broken; exit 3'' returned 3: broken",
  );
  const env = loadEnvironment(
    settingsOf(root, {
      config_version: "/bin/echo cli",
      modulepath: `${root}/mods`,
      manifest: `${root}/m.pp`,
    }),
    "production",
  );
  assert.equal(env.configVersion, "cli");
  assert.deepEqual(env.modulePath, [join(root, "mods")]);
  write(join(root, "m.pp"));
  write(join(dir, "environment.conf"), "");
  assert.deepEqual(loadEnvironment(settingsOf(root, { manifest: `${root}/m.pp` }), "production").manifests, [
    join(root, "m.pp"),
  ]);
});

test("puppet.conf may not set modulepath, manifest or config_version", () => {
  const root = scratchPuppet("modulepath = /x\nmanifest = /y\n");
  assert.throws(
    () => settingsOf(root),
    (error: Error) =>
      error instanceof SettingsError &&
      error.message === "Cannot set modulepath, manifest settings in puppet.conf",
  );
});

test("settings: [user] over [main], the command line over both; $setting interpolation", () => {
  const root = scratchPuppet(
    "environment = mainenv\n[server]\nenvironment = srv\n[user]\nenvironment = usr\n",
  );
  assert.equal(settingsOf(root).environment, "usr");
  assert.equal(settingsOf(root, { environment: "cli" }).environment, "cli");
  const s = settingsOf(root);
  assert.equal(s.serverDatadir, join(root, "var/server_data"));
  assert.equal(s.environmentpath, join(root, "code/environments"));
  assert.equal(s.nodeTerminus, "plain");
  assert.equal(s.externalNodes, "none");
  assert.equal(s.factsTerminus, "facter");
  assert.equal(s.code, "");
  assert.equal(s.strict, "warning");
  assert.equal(s.strictVariables, false);
  assert.equal(settingsOf(root, { strict_variables: "true", code: "$x = '$vardir'" }).code, "$x = '$vardir'");
});

test("modules: valid names only, the first of a name on the module path wins", () => {
  const root = scratchPuppet();
  const dir = join(root, "code/environments/production");
  write(join(dir, "modules/ntp/manifests/init.pp"), "class ntp {}");
  write(join(root, "code/modules/ntp/manifests/init.pp"), "class ntp { notice('base') }");
  write(join(root, "code/modules/motd/manifests/init.pp"));
  write(join(root, "code/modules/Bad/manifests/init.pp"));
  write(join(root, "code/modules/1x/manifests/init.pp"));
  write(join(root, "code/modules/a-b/manifests/init.pp"));
  write(join(root, "code/modules/afile"));
  const env = loadEnvironment(settingsOf(root), "production");
  assert.deepEqual([...env.modules.keys()].sort(), ["motd", "ntp"]);
  assert.equal(env.modules.get("ntp")?.dir, join(dir, "modules/ntp"));
  assert.equal(env.modules.get("motd")?.dir, join(root, "code/modules/motd"));
});

test("autoload eligibility: lower-case segments starting with a letter", () => {
  assert.deepEqual(nameSegments("a::b::c"), ["a", "b", "c"]);
  assert.deepEqual(nameSegments("::Ntp::Config"), ["ntp", "config"]);
  for (const bad of ["a::1b", "a::_b", "a-b", "a::", "", "a:b"])
    assert.equal(nameSegments(bad), undefined, bad);
  assert.ok(isEligibleFileName("init.pp"));
  assert.ok(isEligibleFileName("c_2.pp"));
  for (const bad of ["Init.pp", "2c.pp", "a-b.pp", "a.b.pp", "x.rb", ".pp"])
    assert.ok(!isEligibleFileName(bad), bad);
});

test("the 3.x search for classes and defines: init.pp, the exact file, then dropping the most specific segment", () => {
  const root = scratchPuppet();
  const mods = join(root, "code/modules");
  write(join(mods, "a/manifests/init.pp"));
  write(join(mods, "a/manifests/b.pp"));
  write(join(mods, "a/manifests/b/c.pp"));
  write(join(mods, "x/manifests/y.pp"));
  const loader = new ModuleAutoloader(loadEnvironment(settingsOf(root), "production"));
  const rel = (files: readonly string[]) => files.map((f) => f.slice(mods.length + 1));
  assert.deepEqual(rel(loader.definitionFiles("a::b::c")), [
    "a/manifests/init.pp",
    "a/manifests/b/c.pp",
    "a/manifests/b.pp",
  ]);
  assert.deepEqual(rel(loader.definitionFiles("a::b::c::d")), [
    "a/manifests/init.pp",
    "a/manifests/b/c.pp",
    "a/manifests/b.pp",
  ]);
  assert.deepEqual(rel(loader.definitionFiles("a")), ["a/manifests/init.pp"]);
  assert.deepEqual(rel(loader.definitionFiles("::A::B")), ["a/manifests/init.pp", "a/manifests/b.pp"]);
  // No init.pp: only what exists.
  assert.deepEqual(rel(loader.definitionFiles("x::y::z")), ["x/manifests/y.pp"]);
  assert.deepEqual(loader.definitionFiles("nomodule::b"), []);
  assert.deepEqual(loader.definitionFiles("a::B-c"), []);
});

test("the 4.x search for functions and type aliases: the exact path only", () => {
  const root = scratchPuppet();
  const mods = join(root, "code/modules");
  const envdir = join(root, "code/environments/production");
  write(join(mods, "a/functions/b/c.pp"));
  write(join(mods, "a/functions/b.pp"));
  write(join(mods, "a/types/t.pp"));
  write(join(mods, "a/types/init.pp"));
  write(join(envdir, "functions/f.pp"));
  write(join(envdir, "types/e.pp"));
  const loader = new ModuleAutoloader(loadEnvironment(settingsOf(root), "production"));
  assert.deepEqual(loader.functionFiles("a::b::c"), [join(mods, "a/functions/b/c.pp")]);
  assert.deepEqual(loader.functionFiles("a::b::d"), [], "no fall back to a/functions/b.pp");
  assert.deepEqual(loader.functionFiles("a"), [], "a function in a module is namespaced");
  assert.deepEqual(loader.functionFiles("environment::f"), [join(envdir, "functions/f.pp")]);
  assert.deepEqual(loader.typeAliasFiles("A::T"), [join(mods, "a/types/t.pp")]);
  assert.deepEqual(loader.typeAliasFiles("A::T::U"), []);
  assert.deepEqual(loader.typeAliasFiles("Environment::E"), [join(envdir, "types/e.pp")]);
});

test("Ruby functions and types in modules, and module files for templates and files", () => {
  const root = scratchPuppet();
  const mods = join(root, "code/modules");
  write(join(mods, "stdlib/lib/puppet/functions/stdlib/ensure.rb"));
  write(join(mods, "stdlib/lib/puppet/functions/to_json.rb"));
  write(join(mods, "stdlib/lib/puppet/parser/functions/validate_legacy.rb"));
  write(join(mods, "stdlib/lib/puppet/type/file_line.rb"));
  write(join(mods, "ntp/templates/ntp.conf.erb"));
  write(join(mods, "ntp/files/keys"));
  const loader = new ModuleAutoloader(loadEnvironment(settingsOf(root), "production"));
  assert.equal(
    loader.rubyFunctionFile("stdlib::ensure"),
    join(mods, "stdlib/lib/puppet/functions/stdlib/ensure.rb"),
  );
  assert.equal(loader.rubyFunctionFile("to_json"), join(mods, "stdlib/lib/puppet/functions/to_json.rb"));
  assert.equal(
    loader.rubyFunctionFile("validate_legacy"),
    join(mods, "stdlib/lib/puppet/parser/functions/validate_legacy.rb"),
  );
  assert.equal(loader.rubyFunctionFile("nope"), undefined);
  assert.equal(loader.rubyFunctionFile("ntp::ensure"), undefined);
  assert.equal(loader.rubyTypeFile("file_line"), join(mods, "stdlib/lib/puppet/type/file_line.rb"));
  assert.equal(loader.rubyTypeFile("File_line"), join(mods, "stdlib/lib/puppet/type/file_line.rb"));
  assert.equal(loader.moduleFile("templates", "ntp/ntp.conf.erb"), join(mods, "ntp/templates/ntp.conf.erb"));
  assert.equal(loader.moduleFile("files", "ntp/keys"), join(mods, "ntp/files/keys"));
  assert.equal(loader.moduleFile("templates", "ntp/missing.erb"), undefined);
  assert.equal(loader.moduleFile("templates", "nomod/x.erb"), undefined);
  assert.equal(loader.moduleFile("templates", "ntp"), undefined);
  assert.equal(loader.moduleFile("templates", "/abs/x.erb"), "/abs/x.erb");
});

test("a module path entry may be a glob; PUPPETLIB comes first", () => {
  const root = scratchPuppet();
  const dir = join(root, "code/environments/production");
  write(join(dir, "environment.conf"), "modulepath = vendor/*:$basemodulepath\n");
  mkdirSync(join(dir, "vendor/b"), { recursive: true });
  mkdirSync(join(dir, "vendor/a"), { recursive: true });
  symlinkSync(join(dir, "vendor/a"), join(dir, "vendor/c"));
  const env = loadEnvironment(settingsOf(root), "production", { env: { PUPPETLIB: "/lib1:/lib2" } });
  assert.deepEqual(env.modulePath, [
    "/lib1",
    "/lib2",
    join(dir, "vendor/a"),
    join(dir, "vendor/b"),
    join(dir, "vendor/c"),
    join(root, "code/modules"),
  ]);
});
