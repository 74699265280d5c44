/**
 * The path ACL decided by tend's server policy against real cf-serverd
 * 3.21's decisions: the same policy served by a real cf-serverd in a
 * scratch namespace, each path asked with real `cf-net stat`, and the
 * answer (admitted or refused) compared with `checkPath` on the same
 * policy, after the request processing the daemon does for STAT
 * (shortcut, realpath, "/" on directories).
 */
import assert from "node:assert/strict";
import { mkdirSync, realpathSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { lookupService } from "node:dns/promises";
import { join } from "node:path";
import { test } from "node:test";
import { loadServerPolicySync } from "../../../src/server/policy/load.js";
import { Logger } from "../../../src/system/logger.js";
import { scratchDirectory } from "../../scratch.js";
import {
  cfengineTool,
  freePort,
  loopbackAddress,
  runInHost,
  scratchHost,
  serverPolicy,
  skipReason,
  startCfServerd,
} from "../../net/hosts.js";

function rules(d: string, client: string, host: string): string {
  return `
bundle common g
{
  vars:
      "base" string => "${d}";
  classes:
      "common_ok" expression => "any";
}

bundle server more_rules
{
  vars:
      "keyed" string => "$(g.base)/open/keyed/";
  classes:
      "server_ok" expression => "common_ok";
  access:
    server_ok::
      "$(g.base)/open/" admit_ips => { "127.0.0.1" };
      "$(g.base)/open/a.txt" admit_ips => { "127.0.0.1" }, shortcut => "short_a";
      "$(g.base)/open/private/" deny_ips => { "127.0.0.1" };
      "$(keyed)" admit_ips => { "10.0.0.1" }, admit_keys => { "${client}" }, deny_ips => { "127.0.0.2" };
    !server_ok::
      "$(g.base)/never/" admit_ips => { "127.0.0.1" };
    any::
      "$(g.base)/file_only.txt" admit_ips => { "127.0.0.0/8" };
      "$(g.base)/ipdir/$(connection.ip).txt" admit_ips => { "$(connection.ip)" }, shortcut => "mine";
      "$(g.base)/perip/$(connection.ip)_DIR/" admit_ips => { "$(connection.ip)" };
      "$(g.base)/perip/$(connection.ip)_DIR/DENY" deny_ips => { "$(connection.ip)" };
      "$(g.base)/link2/" admit_ips => { "127.0.0.0/8" };
      "$(g.base)/regex/" admit_ips => { "127\\.0\\.0\\..*" };
      "$(g.base)/range/" admit_ips => { "127.0.0.1-5" };
      "$(g.base)/legacy/" admit => { "127.0.0.1" };
      "$(g.base)/legacykey/" admit => { "${client}" };
      "$(g.base)/legacyconn/" admit => { "$(connection.ip)" };
      "$(g.base)/denykey/" admit_ips => { "127.0.0.1" }, deny_keys => { "${client}" };
      "$(g.base)/slashdot/." admit_ips => { "127.0.0.1" };
      "$(g.base)/notyet" admit_ips => { "127.0.0.1" };
      "$(g.base)/notyet2/." admit_ips => { "127.0.0.1" };
      "$(g.base)/wrongcidr/" admit_ips => { "10.0.0.0/8" };
      "$(g.base)/octet/" admit_ips => { "127.0.0" };
      "$(g.base)/octet2/" admit_ips => { "127.0.0." };
      "$(g.base)/empty/" comment => "no rules at all";
      "$(g.base)/host/" admit_hostnames => { "${host}" };
      "$(g.base)/hostre/" admit_hostnames => { "${host.slice(0, 3)}.*" };
      "$(g.base)/hostdeny/" admit_ips => { "127.0.0.1" }, deny_hostnames => { "${host}" };
      "$(g.base)/hostlegacy/" admit => { "${host}" };
}
`;
}

/** Files and directories of the tree, relative to its root ("/" ends a directory). */
const TREE = [
  "open/a.txt",
  "open/sub/b.txt",
  "open/private/c.txt",
  "open/keyed/k.txt",
  "file_only.txt",
  "other.txt",
  "ipdir/127.0.0.1.txt",
  "ipdir/127.0.0.2.txt",
  "perip/127.0.0.1_DIR/x.txt",
  "perip/127.0.0.1_DIR/DENY",
  "perip/127.0.0.2_DIR/y.txt",
  "cidr/z.txt",
  "regex/r.txt",
  "range/q.txt",
  "legacy/l.txt",
  "legacykey/m.txt",
  "legacyconn/o.txt",
  "denykey/n.txt",
  "slashdot/s.txt",
  "wrongcidr/w.txt",
  "octet/t.txt",
  "octet2/u.txt",
  "empty/e.txt",
  "never/v.txt",
  "host/h.txt",
  "hostre/h.txt",
  "hostdeny/h.txt",
  "hostlegacy/h.txt",
];

/** Asked after the server started (the tree grows then: notyet* did not exist at load). */
const PROBES = [
  ...TREE,
  "open",
  "open/",
  "open/sub",
  "open/private",
  "link2/z.txt",
  "cidr",
  "notyet/t.txt",
  "notyet2/t.txt",
  "short_a",
  "mine",
  "ipdir",
];

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

test("path decisions match real cf-serverd 3.21 (cf-net stat)", { timeout: 180_000 }, async (t) => {
  const why = skipReason("cf-serverd", "cf-net", "cf-promises");
  if (why) return t.skip(why);
  const d = realpathSync(scratchDirectory("tend-srvpolicy-tree-"));
  for (const rel of TREE) {
    mkdirSync(join(d, rel, ".."), { recursive: true });
    writeFileSync(join(d, rel), `${rel}\n`);
  }
  symlinkSync(join(d, "cidr"), join(d, "link2"));
  const server = scratchHost("tend-srvpolicy-srv-");
  const client = scratchHost("tend-srvpolicy-cli-");
  // What cf-serverd's getnameinfo(NI_NAMEREQD) will find for the client's address.
  const found = await lookupService("127.0.0.1", 0).catch(() => undefined);
  const hostname = found && found.hostname !== "127.0.0.1" ? found.hostname : undefined;
  t.diagnostic(`127.0.0.1 is ${hostname ?? "nameless"} here`);
  const address = loopbackAddress();
  const port = await freePort(address);
  const policy = serverPolicy({
    address,
    port,
    trustKeysFrom: ["127.0.0.0/8"],
    extra: rules(d, client.digest, hostname ?? "localhost"),
  });
  await startCfServerd(t, server, { address, port, policy });

  const log: string[] = [];
  const loaded = loadServerPolicySync({
    file: join(server.inputs, "promises.cf"),
    workdir: server.dir,
    logger: new Logger((r) => log.push(r.message), "info"),
  });
  if (!loaded.ok) assert.fail(loaded.diagnostics.map((x) => x.message).join("; "));
  const ours = loaded.policy;
  assert.equal(ours.needReverseLookup, true);
  const conn = {
    ip: "127.0.0.1",
    keyDigest: client.digest,
    user: "root",
    encrypted: true,
    ...(hostname ? { hostname } : {}),
  };

  // Made after both loaded the policy.
  for (const rel of ["notyet/t.txt", "notyet2/t.txt"]) {
    mkdirSync(join(d, rel, ".."), { recursive: true });
    writeFileSync(join(d, rel), "late\n");
  }

  const cfNet = cfengineTool("cf-net") ?? "cf-net";
  const differences: string[] = [];
  let admittedCount = 0;
  for (const probe of PROBES) {
    const requested =
      probe.startsWith("short_") || probe === "mine"
        ? probe
        : join(d, probe) + (probe.endsWith("/") ? "/" : "");
    const run = runInHost(client.dir, [cfNet, "-H", `${address}:${port}`, "stat", requested]);
    const out = `${run.stdout}${run.stderr}`;
    const reference = / is a /.test(out) ? true : /Could not stat/.test(out) ? false : undefined;
    assert.notEqual(reference, undefined, `cf-net said neither yes nor no for ${probe}:\n${out}`);
    // What the daemon does before asking the ACL (STAT).
    const expanded = ours.expandShortcut(requested, conn);
    let path = realpathSync(expanded);
    if (isDirectory(path)) path = path.endsWith("/") ? path : `${path}/`;
    const decision = ours.checkPath(path, conn).admitted;
    if (reference) admittedCount++;
    if (decision !== reference)
      differences.push(
        `${probe}: cf-serverd ${reference ? "admits" : "refuses"}, tend ${decision ? "admits" : "refuses"}`,
      );
  }
  assert.deepEqual(differences, []);
  // The table is not trivially one-sided.
  assert.ok(admittedCount > 5 && admittedCount < PROBES.length - 5, `${admittedCount} admitted`);
});

test("roles decisions match real cf-serverd 3.21 (cf-runagent -D)", { timeout: 180_000 }, async (t) => {
  const why = skipReason("cf-serverd", "cf-runagent", "cf-promises");
  if (why) return t.skip(why);
  const server = scratchHost("tend-srvpolicy-srv-");
  const client = scratchHost("tend-srvpolicy-cli-");
  client.trust(server); // cf-runagent does not trust on first use
  // cf-runagent reads its own policy first.
  writeFileSync(
    join(client.inputs, "promises.cf"),
    'body common control { bundlesequence => { "main" }; }\nbundle agent main {}\n',
    { mode: 0o600 },
  );
  const address = loopbackAddress();
  const port = await freePort(address);
  const policy = serverPolicy({
    address,
    port,
    trustKeysFrom: ["127.0.0.0/8"],
    control: ['cfruncommand => "/bin/echo ran";'],
    admit: ["/bin/echo"],
    extra: `
bundle server roles_rules
{
  roles:
      "rootfirst_.*" authorize => { "root", "alice" };
      "rootlast_.*" authorize => { "alice", "root" };
      "alone_.*" authorize => { "root" };
      "nobody_.*" authorize => { "alice" };
      "both_.*" authorize => { "root" };
      "both_x" authorize => { "alice" };
}
`,
  });
  await startCfServerd(t, server, { address, port, policy });
  const loaded = loadServerPolicySync({
    file: join(server.inputs, "promises.cf"),
    workdir: server.dir,
    logger: new Logger(() => {}),
  });
  if (!loaded.ok) assert.fail(loaded.diagnostics.map((x) => x.message).join("; "));
  const runagent = cfengineTool("cf-runagent") ?? "cf-runagent";
  const differences: string[] = [];
  for (const cls of ["rootfirst_a", "rootlast_a", "alone_a", "nobody_a", "both_x", "both_y", "unlisted"]) {
    const run = runInHost(client.dir, [runagent, "-H", `${address}:${port}`, "-D", cls]);
    const out = `${run.stdout}${run.stderr}`;
    const reference = /executing cfruncommand/.test(out)
      ? true
      : /EXEC denied role activation/.test(out)
        ? false
        : undefined;
    assert.notEqual(reference, undefined, `cf-runagent said neither yes nor no for ${cls}:\n${out}`);
    const ours = loaded.policy.rolesAuthorize([cls], "root");
    if (ours !== reference) differences.push(`${cls}: cf-serverd ${reference}, tend ${ours}`);
  }
  assert.deepEqual(differences, []);
});
