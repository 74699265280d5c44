/**
 * Loading a server policy as cf-serverd 3.21 does: body server control and
 * its defaults, the evaluation order of common and server bundles, access
 * paths made canonical at load, shortcuts, literals, roles; and the
 * server policies of the 3.21 acceptance suite.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { defaultServerControl } from "../../../src/server/policy/control.js";
import { type EvaluatedServerPolicy, loadServerPolicySync } from "../../../src/server/policy/load.js";
import type { ConnectionInfo } from "../../../src/server/policy/model.js";
import { type LogRecord, Logger } from "../../../src/system/logger.js";

const KEY = "MD5=0123456789abcdef0123456789abcdef";
const conn: ConnectionInfo = { ip: "127.0.0.1", keyDigest: KEY, user: "root", encrypted: true };

function scratch(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), "tend-srvpolicy-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

interface Loaded {
  readonly policy: EvaluatedServerPolicy;
  readonly log: LogRecord[];
}

function load(dir: string, text: string, options: { defines?: string[] } = {}): Loaded {
  const file = join(dir, "server.cf");
  writeFileSync(file, text, { mode: 0o600 });
  const log: LogRecord[] = [];
  const logger = new Logger((r) => log.push(r), "verbose");
  const r = loadServerPolicySync({ file, workdir: join(dir, "work"), logger, defines: options.defines });
  if (!r.ok) assert.fail(`policy rejected: ${r.diagnostics.map((d) => d.message).join("; ")}`);
  return { policy: r.policy as EvaluatedServerPolicy, log };
}

const MAIN = 'body common control { bundlesequence => { "main" }; }\nbundle agent main {}\n';

test("body server control: 3.21's defaults without one", (t) => {
  const { policy } = load(scratch(t), MAIN);
  assert.deepEqual(policy.control, defaultServerControl());
  assert.equal(policy.control.port, 5308);
  assert.equal(policy.control.maxConnections, 30);
  assert.equal(policy.control.denyBadClocks, true);
  assert.equal(policy.control.listen, true);
  assert.equal(policy.admitsConnection("10.9.9.9"), "allowed"); // no allowconnects: everyone
});

test("body server control: every attribute read, guards and variables applied", (t) => {
  const { policy, log } = load(
    scratch(t),
    `${MAIN}
bundle common g { vars: "net" slist => { "10.0.0.0/8", "192.168.1" }; }
body server control
{
      port => "9876";
      bindtointerface => "127.0.0.7";
      allowconnects => { @(g.net), "127.0.0.1" };
      denyconnects => { "10.6.6.6" };
      allowallconnects => { "127.0.0.1" };
      trustkeysfrom => { "127.0.0.0/8" };
      allowusers => { "root", "alice" };
      maxconnections => "100";
      allowciphers => "AES256-GCM-SHA384";
      allowtlsversion => "1.2";
      cfruncommand => "/bin/true -f x";
      denybadclocks => "false";
      logallconnections => "yes";
      logencryptedtransfers => "on";
    any::
      listen => "false";
    nosuchclass::
      hostnamekeys => "true";
    any::
      auditing => "true";
      call_collect_interval => "5";
      collect_window => "20";
      dynamicaddresses => { "x" };
      serverfacility => "LOG_LOCAL3";
      allowlegacyconnects => { "127.0.0.1" };
}
`,
  );
  const c = policy.control;
  assert.equal(c.port, 9876);
  assert.equal(c.bindToInterface, "127.0.0.7");
  assert.deepEqual([...c.allowConnects].sort(), ["10.0.0.0/8", "127.0.0.1", "192.168.1"]);
  assert.deepEqual(c.denyConnects, ["10.6.6.6"]);
  assert.deepEqual(c.allowUsers, ["root", "alice"]);
  assert.equal(c.maxConnections, 100);
  assert.equal(c.allowCiphers, "AES256-GCM-SHA384");
  assert.equal(c.allowTlsVersion, "1.2");
  assert.equal(c.cfRunCommand, "/bin/true -f x");
  assert.equal(c.denyBadClocks, false);
  assert.equal(c.logAllConnections, true);
  assert.equal(c.logEncryptedTransfers, true);
  assert.equal(c.listen, false);
  assert.equal(c.hostnameKeys, false); // its guard does not hold
  assert.equal(c.auditing, true);
  assert.equal(c.callCollectInterval, 300);
  assert.equal(c.collectWindow, 20);
  assert.equal(c.serverFacility, "LOG_LOCAL3");
  // The classic protocol is served to these hosts, without a warning.
  assert.deepEqual(c.allowLegacyConnects, ["127.0.0.1"]);
  assert.ok(!log.some((r) => /allowlegacyconnects/.test(r.message)));
  assert.equal(policy.allowsLegacyConnect("127.0.0.1"), true);
  assert.equal(policy.allowsLegacyConnect("10.1.2.3"), false);

  assert.equal(policy.admitsConnection("10.1.2.3"), "allowed");
  assert.equal(policy.admitsConnection("192.168.1.5"), "allowed");
  assert.equal(policy.admitsConnection("192.168.10.5"), "not-in-allowconnects");
  assert.equal(policy.admitsConnection("10.6.6.6"), "in-denyconnects");
  assert.equal(policy.allowsMultipleConnections("127.0.0.1"), true);
  assert.equal(policy.allowsMultipleConnections("10.1.2.3"), false);
  assert.equal(policy.trustsKeysFrom("127.3.4.5"), true);
  assert.equal(policy.trustsKeysFrom("10.1.2.3"), false);
  assert.equal(policy.allowsUser("alice"), true);
  assert.equal(policy.allowsUser("bob"), false);
});

test("order: access sees vars and classes of its own bundle and of common bundles", (t) => {
  const dir = scratch(t);
  const { policy } = load(
    dir,
    `${MAIN}
bundle server rules
{
  vars:
      "dir" string => "${dir}/own";
      "later" string => "${dir}/$(g.base)";
  classes:
      "own_class" expression => "any";
  access:
    own_class::
      "$(dir)/"
        admit_ips => { "$(g.ip)" };
    common_class::
      "$(later)/"
        admit_keys => { "${KEY}" };
    no_such_class::
      "${dir}/never/"
        admit_ips => { "127.0.0.1" };
}
bundle common g
{
  vars:
      "ip" string => "127.0.0.1";
      "base" string => "fromcommon";
  classes:
      "common_class" expression => "any";
}
`,
  );
  assert.equal(policy.checkPath(`${dir}/own/file`, conn).admitted, true);
  assert.equal(policy.checkPath(`${dir}/fromcommon/file`, conn).admitted, true);
  assert.equal(policy.checkPath(`${dir}/never/file`, conn).admitted, false);
  // Bundle classes stay in their bundle.
  assert.equal(policy.classMatches("own_class"), false);
  assert.equal(policy.classMatches("common_class"), true);
  assert.equal(policy.classMatches("common_.*"), true);
  assert.equal(policy.classMatches("server"), true); // cf-serverd's own hard class
});

test("iteration: a list in the promiser makes an entry per item", (t) => {
  const dir = scratch(t);
  const { policy } = load(
    dir,
    `${MAIN}
bundle server rules
{
  vars:
      "names" slist => { "a", "b" };
      "ips" slist => { "127.0.0.1", "10.1.1.1" };
  access:
      "${dir}/$(names)/"
        admit_ips => { @(ips) };
      "${dir}/each/"
        admit_ips => { "$(ips)" };
}
`,
  );
  for (const sub of ["a", "b", "each"]) {
    assert.equal(policy.checkPath(`${dir}/${sub}/f`, conn).admitted, true, sub);
    assert.equal(policy.checkPath(`${dir}/${sub}/f`, { ...conn, ip: "10.1.1.1" }).admitted, true, sub);
  }
  assert.equal(policy.checkPath(`${dir}/c/f`, conn).admitted, false);
});

test("bundles with parameters are skipped; other promise types are warned about", (t) => {
  const dir = scratch(t);
  const { policy, log } = load(
    dir,
    `${MAIN}
bundle server withargs(x)
{
  access:
      "${dir}/args/" admit_ips => { "127.0.0.1" };
}
bundle server odd
{
  reports:
      "hello from a server bundle";
  access:
      "${dir}/odd/" admit_ips => { "127.0.0.1" };
}
bundle common c
{
  reports:
      "common report";
}
`,
  );
  assert.equal(policy.checkPath(`${dir}/args/f`, conn).admitted, false);
  assert.equal(policy.checkPath(`${dir}/odd/f`, conn).admitted, true);
  const warnings = log.filter((r) => r.level === "warning").map((r) => r.message);
  assert.ok(
    warnings.includes("Cannot implicitly evaluate bundle 'server withargs', as this bundle takes arguments."),
  );
  assert.ok(
    warnings.includes("Trying to evaluate unsupported/obsolete promise type reports in server bundle odd"),
  );
  // reports belong to a common bundle's order: no warning, and nothing reported either.
  assert.ok(!warnings.some((w) => w.includes("bundle c")));
});

test("paths are made canonical at load as 3.21 does", (t) => {
  const dir = scratch(t);
  mkdirSync(join(dir, "real", "sub"), { recursive: true });
  writeFileSync(join(dir, "real", "file"), "x");
  symlinkSync(join(dir, "real"), join(dir, "link"));
  symlinkSync(join(dir, "nowhere"), join(dir, "dead"));
  const { policy, log } = load(
    dir,
    `${MAIN}
bundle server rules
{
  access:
      "${dir}/real"          admit_ips => { "127.0.0.1" };   # a directory: gets its "/"
      "${dir}/link/file"     admit_keys => { "${KEY}" };      # resolved through the link
      "${dir}/missing"       admit_ips => { "10.0.0.1" };     # kept as written: a file entry
      "${dir}/missingdir/."  admit_ips => { "10.0.0.2" };     # trailing "/." becomes "/"
      "${dir}/real/../real/sub" admit_ips => { "10.0.0.3" };
      "${dir}/dead"          admit_ips => { "10.0.0.4" };     # a dead link is kept as is
      "relative/path"        admit_ips => { "127.0.0.1" };    # refused
      "${dir}/real/file/"    admit_ips => { "127.0.0.1" };    # not a directory: refused
}
`,
  );
  const names = [...policy.acls.paths.all()].map((e) => e.name).sort();
  assert.deepEqual(names, [
    `${dir}/dead`,
    `${dir}/missing`,
    `${dir}/missingdir/`,
    `${dir}/real/`,
    `${dir}/real/file`,
    `${dir}/real/sub/`,
  ]);
  assert.ok(
    log.some((r) => r.message === `Path does not exist, it's added as-is in access rules: ${dir}/missing`),
  );
  assert.ok(
    log.some((r) => r.level === "error" && r.message.includes("'relative/path' in access_rules, ignoring!")),
  );
  assert.ok(
    log.some((r) => r.level === "error" && r.message.includes(`'${dir}/real/file/' in access_rules`)),
  );
  assert.equal(policy.checkPath(`${dir}/real/sub/x`, { ...conn, ip: "10.0.0.3" }).admitted, true);
  assert.equal(policy.checkPath(`${dir}/real/file`, conn).admitted, true); // the key, via the link's entry
});

test("shortcuts: expanded with the peer's values, slashes refused, the first kept", (t) => {
  const dir = scratch(t);
  const { policy, log } = load(
    dir,
    `${MAIN}
bundle server rules
{
  access:
      "${dir}/src_file" admit_ips => { "127.0.0.1" }, shortcut => "simple";
      "${dir}/$(connection.ip).txt" admit_ips => { "$(connection.ip)" }, shortcut => "per_ip";
      "${dir}/$(connection.key)/" admit_keys => { "$(connection.key)" }, shortcut => "per_key";
      "${dir}/other" admit_ips => { "127.0.0.1" }, shortcut => "simple";
      "${dir}/bad" admit_ips => { "127.0.0.1" }, shortcut => "a/b";
}
`,
  );
  assert.equal(policy.expandShortcut("simple", conn), `${dir}/src_file`);
  assert.equal(policy.expandShortcut("per_ip", conn), `${dir}/127.0.0.1.txt`);
  // As 3.21 joins them (the request's realpath removes the double slash).
  assert.equal(policy.expandShortcut("per_key/x/y", conn), `${dir}/${KEY}//x/y`);
  assert.equal(policy.expandShortcut("unknown/x", conn), "unknown/x");
  assert.equal(policy.expandShortcut("/abs/simple", conn), "/abs/simple");
  assert.equal(policy.checkPath(`${dir}/127.0.0.1.txt`, conn).admitted, true);
  assert.equal(policy.checkPath(`${dir}/127.0.0.2.txt`, { ...conn, ip: "127.0.0.2" }).admitted, true);
  assert.equal(policy.checkPath(`${dir}/127.0.0.1.txt`, { ...conn, ip: "127.0.0.2" }).admitted, false);
  assert.equal(policy.checkPath(`${dir}/${KEY}/x`, conn).admitted, true);
  assert.ok(
    log.some((r) => r.level === "error" && r.message === "slashes are forbidden in ACL shortcut: a/b"),
  );
  assert.ok(log.some((r) => r.level === "warning" && r.message.startsWith("Already existing shortcut")));
});

test("resource types: literal, variable, context, query, bundle; roles", (t) => {
  const { policy, log } = load(
    scratch(t),
    `${MAIN}
bundle server rules
{
  access:
      "the literal value" handle => "lit1", resource_type => "literal", admit_ips => { "127.0.0.1" };
      "no handle" resource_type => "literal", admit_ips => { "127.0.0.1" };
      "myvar" resource_type => "variable", admit_keys => { "${KEY}" };
      "linux_.*" resource_type => "context", admit_ips => { "127.0.0.0/8" };
      "linux_secret" resource_type => "context", deny_ips => { "127.0.0.1" };
      "delta" resource_type => "query", admit_ips => { "127.0.0.1" }, report_data_select => default_data_select_host;
      "update_.*" resource_type => "bundle", admit_keys => { "${KEY}" };
  roles:
      ".*" authorize => { "root" };
      "special_.*" authorize => { "alice" };
}
body report_data_select default_data_select_host
{
      metatags_include => { "inventory" };
}
`,
  );
  assert.equal(policy.checkResource("literal", "lit1", conn), true);
  assert.equal(policy.literal("lit1", conn), "the literal value");
  assert.equal(policy.literal("lit1", { ...conn, ip: "10.0.0.1" }), undefined);
  assert.ok(
    log.some((r) =>
      r.message.startsWith("Access to literal server data requires you to define a promise handle"),
    ),
  );
  assert.equal(policy.checkResource("variable", "myvar", conn), true);
  assert.equal(policy.checkResource("context", "linux_x86_64", conn), true);
  assert.equal(policy.checkResource("context", "linux_secret", conn), false);
  assert.equal(policy.checkResource("context", "linux_secret", { ...conn, ip: "127.0.0.2" }), true);
  assert.equal(policy.checkResource("query", "delta", conn), true);
  assert.equal(policy.checkResource("query", "collect_calls", conn), false);
  assert.equal(policy.checkResource("bundle", "update_all", conn), true);
  assert.equal(policy.checkResource("bundle", "update-all", conn), false); // not a name EXEC takes
  assert.equal(policy.checkResource("bundle", "main", conn), false);
  assert.equal(policy.rolesAuthorize(["anything", "special_one"], "root"), true);
  assert.equal(policy.rolesAuthorize(["special_one"], "alice"), true);
  assert.equal(policy.rolesAuthorize(["other"], "alice"), false);
  assert.equal(policy.rolesAuthorize(["bad,name"], "root"), false);
  assert.equal(policy.rolesAuthorize([], "nobody"), true);
});

test("hostname rules turn on reverse lookups; maproot is reported", (t) => {
  const dir = scratch(t);
  const { policy, log } = load(
    dir,
    `${MAIN}
bundle server rules
{
  access:
      "${dir}/h/" admit_hostnames => { ".example.com" }, maproot => { "127.0.0.1" };
}
`,
  );
  assert.equal(policy.needReverseLookup, true);
  assert.ok(log.some((r) => r.message.startsWith("Found hostname admit/deny in access_rules")));
  assert.deepEqual(policy.checkPath(`${dir}/h/x`, { ...conn, hostname: "a.example.com" }), {
    admitted: true,
    mapRoot: true,
  });
  assert.deepEqual(policy.checkPath(`${dir}/h/x`, { ...conn, ip: "127.0.0.2", hostname: "a.example.com" }), {
    admitted: true,
    mapRoot: false,
  });
  assert.equal(policy.checkPath(`${dir}/h/x`, conn).admitted, false);
});

test("an invalid policy comes back as diagnostics", (t) => {
  const dir = scratch(t);
  const file = join(dir, "bad.cf");
  writeFileSync(file, 'bundle server x { access: "/tmp" admit_ips => ; }\n');
  const r = loadServerPolicySync({ file, workdir: dir, logger: new Logger(() => {}) });
  assert.equal(r.ok, false);
  assert.ok(r.diagnostics.some((d) => d.severity === "error"));
});

const SUITE = "/tmp/ref/tests/acceptance/16_cf-serverd/serial";

test("the 3.21.0 acceptance suite's server policies load without errors", (t) => {
  if (!existsSync(SUITE)) {
    t.skip(`unpack the 3.21.0 acceptance suite into /tmp/ref (${SUITE} is absent)`);
    return;
  }
  const files = readdirSync(SUITE).filter((f) => f.endsWith(".srv"));
  assert.ok(files.length >= 19);
  const work = scratch(t);
  for (const name of files) {
    const log: LogRecord[] = [];
    const r = loadServerPolicySync({
      file: join(SUITE, name),
      workdir: work,
      logger: new Logger((rec) => log.push(rec), "info"),
    });
    assert.ok(r.ok, `${name}: ${r.diagnostics.map((d) => d.message).join("; ")}`);
    // tend's check warns that the suite's libraries still write ifvarclass; nothing else.
    assert.deepEqual(
      r.diagnostics.filter((d) => d.code !== "deprecated").map((d) => d.message),
      [],
      name,
    );
    const errors = log.filter((rec) => rec.level === "error").map((rec) => rec.message);
    assert.deepEqual(errors, [], name);
  }
});

test("action bodies on access and roles: 3.21's warnings, in its order", (t) => {
  const { log } = load(
    scratch(t),
    `${MAIN}
bundle server s
{
  access:
      "/bin/echo" admit_ips => { "127.0.0.1" }, action => ie;
  roles:
      "x" authorize => { "root" }, action => ie;
}
body action ie { ifelapsed => "5"; expireafter => "3"; }
`,
  );
  // As cf-serverd 3.21 printed them for this policy.
  assert.deepEqual(
    log.filter((r) => r.level === "warning").map((r) => r.message),
    [
      "ifelapsed attribute specified in action body for roles promise 'x', but roles promises do not support promise locking",
      "expireafter attribute specified in action body for roles promise 'x', but roles promises do not support promise locking",
      "Unrecognised promise 'expireafter' for x",
      "Unrecognised promise 'ifelapsed' for x",
      "Unrecognised promise 'action' for x",
      "Unrecognised promise 'action_name' for x",
      "ifelapsed attribute specified in action body for access promise '/bin/echo', but access promises do not support promise locking",
      "expireafter attribute specified in action body for access promise '/bin/echo', but access promises do not support promise locking",
    ],
  );
});
