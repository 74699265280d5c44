/**
 * `tend runagent` against a real cf-serverd 3.21 whose cfruncommand is a
 * script that echoes its arguments, compared with real cf-runagent 3.21
 * run on the same server with the same arguments. Skips with the reason
 * when CFEngine or namespaces are missing.
 */
import assert from "node:assert/strict";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import {
  cfengineTool,
  freePort,
  loopbackAddress,
  runInHost,
  type ScratchHost,
  scratchHost,
  serverPolicy,
  skipReason,
  startCfServerd,
} from "../net/hosts.js";
import { scratchDirectory } from "../scratch.js";
import { runTendIn } from "./run.js";

const reason = skipReason("cf-serverd", "cf-promises", "cf-runagent");

interface Run {
  readonly code: number | null;
  readonly stdout: string;
}

function runCfRunagent(host: ScratchHost, args: readonly string[]): Run {
  const result = runInHost(host.dir, [cfengineTool("cf-runagent") ?? "cf-runagent", ...args]);
  return { code: result.status, stdout: result.stdout };
}

/** A client host with a policy for cf-runagent to load (it refuses to run without one). */
function clientHost(prefix: string, control = ""): ScratchHost {
  const host = scratchHost(prefix);
  writeFileSync(join(host.inputs, "promises.cf"), `${control}\nbundle agent main\n{\n}\n`, { mode: 0o600 });
  return host;
}

async function setUp(t: TestContext, exitCode = 3) {
  const dir = scratchDirectory("tend-runagent-cmd-");
  chmodSync(dir, 0o755);
  const script = join(dir, "echo.sh");
  writeFileSync(script, `#!/bin/sh\necho "args: $*"\necho "second line"\nexit ${exitCode}\n`, {
    mode: 0o755,
  });
  const server = scratchHost("tend-runagent-srv-");
  const address = loopbackAddress();
  const port = await freePort(address);
  const cf = clientHost("tend-runagent-cf-");
  const tend = clientHost("tend-runagent-tend-");
  for (const client of [cf, tend]) {
    server.trust(client);
    client.trust(server);
  }
  await startCfServerd(t, server, {
    address,
    port,
    policy: serverPolicy({
      address,
      port,
      admit: [script],
      control: [`cfruncommand => "${script}";`],
      extra: `
bundle server runagent_rules
{
  access:
    "allowed_bundle" resource_type => "bundle", admit_ips => { "127.0.0.0/8" };
  roles:
    ".*" authorize => { "root" };
}
`,
    }),
  });
  return { server, cf, tend, host: `${address}:${port}`, address, cwd: dir };
}

async function compare(s: Awaited<ReturnType<typeof setUp>>, args: readonly string[]): Promise<void> {
  const want = runCfRunagent(s.cf, args);
  const got = await runTendIn(s.tend.dir, ["runagent", ...args], s.cwd);
  assert.equal(got.stdout, want.stdout, `stdout of runagent ${args.join(" ")}`);
  assert.equal(got.code, want.code, `exit code of runagent ${args.join(" ")}`);
}

test("tend runagent prints what cf-runagent prints, exit codes included", { skip: reason }, async (t) => {
  const s = await setUp(t);
  await compare(s, ["-H", s.host]);
  await compare(s, ["-H", s.host, "-D", "one,two", "-D", "three"]);
  await compare(s, ["-H", s.host, "--remote-bundles", "allowed_bundle"]);
  await compare(s, ["-H", s.host, "--remote-bundles", "refused_bundle"]);
  await compare(s, ["-H", s.host, "-s", "no_such_class"]);
  await compare(s, ["-H", s.host, "-s", "any"]);
  await compare(s, ["-I", "-H", s.host]);
  await compare(s, ["-H", s.host, "-b"]);
  await compare(s, ["-H", s.host, "-b", "-i"]);
  await compare(s, ["-H", s.host, "-o", "x"]);
  await compare(s, []);
});

test("tend runagent counts failed hosts as cf-runagent does", { skip: reason }, async (t) => {
  const s = await setUp(t);
  const closed = await freePort(s.address);
  await compare(s, ["-H", `${s.host},${s.address}:${closed}`]);
  await compare(s, ["-H", `${s.address}:${closed}`]);
});

test("tend runagent takes its hosts from body runagent control", { skip: reason }, async (t) => {
  const s = await setUp(t);
  const control = `body runagent control\n{\n  hosts => { "${s.host}" };\n}\n`;
  for (const client of [s.cf, s.tend])
    writeFileSync(join(client.inputs, "promises.cf"), `${control}\nbundle agent main\n{\n}\n`, {
      mode: 0o600,
    });
  await compare(s, []);
  await compare(s, ["-I"]);
});

test("tend runagent refuses an unknown server key, as cf-runagent", { skip: reason }, async (t) => {
  const s = await setUp(t);
  const stranger = clientHost("tend-runagent-stranger-");
  const got = await runTendIn(stranger.dir, ["runagent", "-H", s.host], s.cwd);
  assert.match(got.stdout, /^ {3}error: TRUST FAILED, server presented untrusted key: MD5=[0-9a-f]{32}\n/);
  assert.match(got.stdout, /error: Failed to connect to host: /);
  assert.equal(got.code, 255);
});

test("tend runagent without a policy says so, as cf-runagent", { skip: reason }, async () => {
  const bare = scratchHost("tend-runagent-bare-");
  const got = await runTendIn(bare.dir, ["runagent", "-H", "127.0.0.1:1"], bare.dir);
  assert.match(got.stdout, /error: Can't stat file '.*promises\.cf' for parsing/);
  assert.equal(got.code, 1);
});

test("tend runagent -i asks before trusting the key the server presented", { skip: reason }, async (t) => {
  const s = await setUp(t);
  const stranger = clientHost("tend-runagent-asker-");
  s.server.trust(stranger);
  const no = await runTendIn(stranger.dir, ["runagent", "-i", "-H", s.host], s.cwd, "maybe\nno\n");
  assert.match(no.stdout, /WARNING - You do not have a public key from host /);
  assert.match(no.stdout, /Please reply yes or no\.\.\.\(maybe\)\nWill not trust the key\.\.\.\n/);
  assert.equal(no.code, 255);
  const yes = await runTendIn(stranger.dir, ["runagent", "-i", "-H", s.host], s.cwd, "yes\n");
  assert.match(yes.stdout, /Will trust the key\.\.\.\n/);
  assert.match(yes.stdout, /> \(exit code: 3\)\n/);
  assert.equal(yes.code, 3);
  // Trusted now: no question the next time.
  const again = await runTendIn(stranger.dir, ["runagent", "-i", "-H", s.host], s.cwd);
  assert.doesNotMatch(again.stdout, /WARNING/);
  assert.equal(again.code, 3);
});

test("tend runagent writes each host's replies to a file with output_to_file, as cf-runagent", {
  skip: reason,
}, async (t) => {
  const s = await setUp(t);
  const outputs = new Map<ScratchHost, string>();
  for (const client of [s.cf, s.tend]) {
    const dir = scratchDirectory("tend-runagent-out-");
    outputs.set(client, dir);
    const control = `body runagent control\n{\n  hosts => { "${s.host}" };\n  output_to_file => "true";\n  output_directory => "${dir}";\n}\n`;
    writeFileSync(join(client.inputs, "promises.cf"), `${control}\nbundle agent main\n{\n}\n`, {
      mode: 0o600,
    });
  }
  const want = runCfRunagent(s.cf, []);
  const got = await runTendIn(s.tend.dir, ["runagent"], s.cwd);
  const file = (client: ScratchHost) => join(outputs.get(client) ?? "", `${s.address}_runagent.out`);
  assert.equal(got.stdout, want.stdout.replaceAll(outputs.get(s.cf) ?? "", outputs.get(s.tend) ?? ""));
  assert.equal(got.code, want.code);
  assert.equal(readFileSync(file(s.tend), "utf8"), readFileSync(file(s.cf), "utf8"));
  assert.match(readFileSync(file(s.tend), "utf8"), /> \(exit code: 3\)\n$/);
});
