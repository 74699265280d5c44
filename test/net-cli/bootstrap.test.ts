/**
 * `tend agent -B`: bootstrapping to a real cf-serverd 3.21 serving a small
 * masterfiles (in a scratch namespace, on loopback), and to this host's
 * own address as a policy server. What a bootstrap leaves behind is
 * checked as cf-agent 3.21 leaves it: policy_server.dat, the trusted
 * server key in ppkeys, the policy copied into inputs, the hub marker,
 * the classes and variables the fetched policy sees, the success line.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import {
  freePort,
  loopbackAddress,
  type ScratchHost,
  scratchHost,
  serverPolicy,
  skipReason,
  startCfServerd,
} from "../net/hosts.js";
import { scratchDirectory } from "../scratch.js";
import { runTendIn } from "./run.js";

const reason = skipReason("cf-serverd", "cf-promises");

const HUB_POLICY = `body common control
{
  bundlesequence => { "main" };
  inputs => { "lib/extra.cf" };
}

bundle agent main
{
  reports:
    "hub policy: hub $(sys.policy_hub) port $(sys.policy_hub_port) extra $(extra.x)";
    bootstrap_mode::
      "hub policy: bootstrap_mode";
    policy_server::
      "hub policy: policy_server";
    am_policy_hub::
      "hub policy: am_policy_hub";
}
`;

/** A masterfiles tree: promises.cf, lib/extra.cf and a .git directory that must not travel. */
function writeMasterfiles(dir: string): void {
  mkdirSync(join(dir, "lib"), { recursive: true });
  mkdirSync(join(dir, ".git"), { recursive: true });
  writeFileSync(join(dir, "promises.cf"), HUB_POLICY);
  writeFileSync(
    join(dir, "lib", "extra.cf"),
    'bundle common extra\n{\n  vars:\n      "x" string => "from lib";\n}\n',
  );
  writeFileSync(join(dir, ".git", "HEAD"), "ref: refs/heads/main\n");
}

async function startHub(t: TestContext): Promise<{ server: ScratchHost; entry: string; address: string }> {
  const server = scratchHost("tend-bootstrap-hub-");
  writeMasterfiles(join(server.dir, "masterfiles"));
  mkdirSync(join(server.dir, "modules"), { recursive: true });
  writeFileSync(join(server.dir, "modules", "module.sh"), "#!/bin/sh\n");
  const address = loopbackAddress();
  const port = await freePort(address);
  await startCfServerd(t, server, {
    address,
    port,
    policy: serverPolicy({
      address,
      port,
      trustKeysFrom: ["127.0.0.0/8"],
      extra: `
bundle server shortcuts
{
  access:
    "/var/lib/cfengine3/masterfiles" shortcut => "masterfiles", admit_ips => { "127.0.0.0/8" };
    "/var/lib/cfengine3/modules" shortcut => "modules", admit_ips => { "127.0.0.0/8" };
}
`,
    }),
  });
  return { server, entry: `${address}:${port}`, address };
}

function reports(stdout: string): string[] {
  return stdout.split("\n").filter((line) => line.startsWith("R: hub policy"));
}

test("tend agent -B fetches the policy from a real cf-serverd and keeps it as its server", {
  skip: reason,
}, async (t) => {
  const hub = await startHub(t);
  const workdir = scratchDirectory("tend-bootstrap-client-");
  const run = await runTendIn(workdir, ["agent", "-B", hub.entry], workdir);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /warning: Bootstrapping to loopback interface/);
  assert.match(run.stdout, /notice: Bootstrap mode: implicitly trusting server, use --trust-server=no/);
  assert.match(run.stdout, new RegExp(`notice: Trusting new key: ${hub.server.digest}\\n`));
  assert.ok(
    run.stdout.endsWith(`  notice: Bootstrap to '${hub.entry}' completed successfully!\n`),
    run.stdout,
  );
  // As cf-agent 3.21 leaves them.
  assert.equal(readFileSync(join(workdir, "policy_server.dat"), "utf8"), `${hub.entry}\n`);
  assert.equal(statSync(join(workdir, "policy_server.dat")).mode & 0o777, 0o600);
  assert.match(readFileSync(join(workdir, "bootstrap_id.dat"), "utf8"), /^[A-Za-z0-9+/]{40}\n$/);
  assert.ok(existsSync(join(workdir, "ppkeys", `root-${hub.server.digest}.pub`)));
  assert.ok(existsSync(join(workdir, "ppkeys", "localhost.priv")), "a key pair is made when missing");
  assert.equal(readFileSync(join(workdir, "inputs", "promises.cf"), "utf8"), HUB_POLICY);
  assert.ok(existsSync(join(workdir, "inputs", "lib", "extra.cf")));
  assert.ok(!existsSync(join(workdir, "inputs", ".git")), "version control files stay on the hub");
  assert.ok(existsSync(join(workdir, "modules", "module.sh")));
  assert.ok(!existsSync(join(workdir, "state", "am_policy_hub")));
  // The fetched policy ran once, in bootstrap mode, knowing its hub.
  assert.deepEqual(reports(run.stdout), [
    `R: hub policy: hub ${hub.address} port ${hub.entry.split(":")[1]} extra from lib`,
    "R: hub policy: bootstrap_mode",
  ]);
  // Afterwards the agent runs the fetched policy with the hub known.
  const after = await runTendIn(workdir, ["agent", "-K"], workdir);
  assert.deepEqual(reports(after.stdout), [
    `R: hub policy: hub ${hub.address} port ${hub.entry.split(":")[1]} extra from lib`,
  ]);
});

test("tend agent -B --trust-server=no refuses an unknown hub and undoes the bootstrap", {
  skip: reason,
}, async (t) => {
  const hub = await startHub(t);
  const workdir = scratchDirectory("tend-bootstrap-distrust-");
  const run = await runTendIn(workdir, ["agent", "-B", hub.entry, "--trust-server=no"], workdir);
  assert.equal(run.code, 1, run.stdout);
  assert.doesNotMatch(run.stdout, /implicitly trusting/);
  assert.match(
    run.stdout,
    /Bootstrapping failed, no input file at '.*\/inputs\/promises\.cf' after bootstrap\n$/,
  );
  assert.ok(!existsSync(join(workdir, "policy_server.dat")));
  assert.ok(!existsSync(join(workdir, "ppkeys", `root-${hub.server.digest}.pub`)));
  // Trusted beforehand, the same bootstrap works.
  const keys = scratchHost("tend-bootstrap-trusting-");
  keys.trust(hub.server);
  const trusted = await runTendIn(keys.dir, ["agent", "-B", hub.entry, "-Tno"], keys.dir);
  assert.equal(trusted.code, 0, trusted.stdout);
  assert.match(trusted.stdout, /completed successfully!\n$/);
});

test("tend agent -B to a port nobody serves fails with exit code 1", { skip: reason }, async () => {
  const address = loopbackAddress();
  const port = await freePort(address);
  const workdir = scratchDirectory("tend-bootstrap-nowhere-");
  const run = await runTendIn(workdir, ["agent", "-B", `${address}:${port}`], workdir);
  assert.equal(run.code, 1, run.stdout);
  assert.match(run.stdout, /R: Failed to copy the policy from the policy server /);
  assert.match(run.stdout, /error: Bootstrapping failed, no input file at /);
  assert.ok(!existsSync(join(workdir, "policy_server.dat")));
});

test("tend agent -B to this host's own address makes it a policy server", async () => {
  const workdir = scratchDirectory("tend-bootstrap-self-");
  const missing = await runTendIn(workdir, ["agent", "-B", "127.0.0.1"], workdir);
  assert.equal(missing.code, 1);
  assert.match(
    missing.stdout,
    /error: In order to bootstrap as a policy server, the file '.*\/masterfiles\/promises\.cf' must exist\.\n/,
  );
  writeMasterfiles(join(workdir, "masterfiles"));
  const run = await runTendIn(workdir, ["agent", "-B", "127.0.0.1", "-I"], workdir);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(
    run.stdout,
    /info: Assuming role as policy server, with policy distribution point at: .*\/masterfiles\n/,
  );
  assert.ok(existsSync(join(workdir, "state", "am_policy_hub")));
  assert.equal(readFileSync(join(workdir, "policy_server.dat"), "utf8"), "127.0.0.1\n");
  assert.equal(readFileSync(join(workdir, "inputs", "promises.cf"), "utf8"), HUB_POLICY);
  assert.deepEqual(reports(run.stdout), [
    "R: hub policy: hub 127.0.0.1 port 5308 extra from lib",
    "R: hub policy: bootstrap_mode",
    "R: hub policy: policy_server",
    "R: hub policy: am_policy_hub",
  ]);
  assert.match(run.stdout, /notice: Bootstrap to '127\.0\.0\.1' completed successfully!\n$/);
  // Later runs know the hub and the bootstrap, as cf-agent's do.
  const later = await runTendIn(
    workdir,
    [
      "agent",
      "-K",
      "--show-evaluated-vars=sys\\.(bootstrap_id|policy_hub.*)",
      "--show-evaluated-classes=(am_)?policy_(server|hub)",
    ],
    workdir,
  );
  const id = readFileSync(join(workdir, "bootstrap_id.dat"), "utf8").trim();
  assert.match(
    later.stdout,
    new RegExp(`default:sys\\.bootstrap_id +${id.replaceAll("+", "\\+")} +source=bootstrap`),
  );
  assert.match(later.stdout, /default:sys\.policy_hub +127\.0\.0\.1 +source=bootstrap/);
  assert.match(later.stdout, /default:sys\.policy_hub_port +5308 +source=bootstrap/);
  assert.match(later.stdout, /^am_policy_hub +source=bootstrap,deprecated,alias=policy_server/m);
  assert.match(later.stdout, /^policy_server +inventory,attribute_name=CFEngine roles,source=bootstrap/m);
});

test("tend agent --trust-server without -B is refused, as cf-agent", async () => {
  const workdir = scratchDirectory("tend-bootstrap-usage-");
  const run = await runTendIn(workdir, ["agent", "--trust-server=no"], workdir);
  assert.equal(run.code, 1);
  assert.equal(run.stdout, "   error: Option --trust-server can only be used when bootstrapping\n");
});
