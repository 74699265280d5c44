/**
 * `tend net` and `tend runagent` against `tend serverd`, compared with real
 * cf-net and cf-runagent 3.21 against the same tend serverd: whatever the
 * server answers, the two clients must print the same lines. Skips with
 * the reason when CFEngine or namespaces are missing.
 */
import assert from "node:assert/strict";
import { chmodSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { type Host, Lab, serverControl, whyNoReference } from "../net/hosts.js";

const noReference = whyNoReference();
const lab = new Lab("tend-netcli-tendsrv-");
after(() => lab.close());

async function tendServer(): Promise<{ server: Host; cf: Host; tend: Host; at: string }> {
  const server = await lab.host(`srv${Math.random().toString(36).slice(2, 7)}`);
  server.writeData("pub/hello.txt", "hello\n");
  server.writeData("pub/sub/a.txt", "a\n");
  server.writeData("pub/denied.txt", "no\n");
  const script = server.writeData("echo.sh", '#!/bin/sh\necho "args: $*"\nexit 4\n');
  chmodSync(script, 0o755);
  const policy = `body common control { bundlesequence => { "main" }; }
bundle agent main { }
${serverControl(server, { cfruncommand: script, allowusers: ["root"] })}
bundle server access_rules
{
  access:
      "${server.data}/pub/" admit_ips => { "127.0.0.0/8" };
      "${server.data}/pub/denied.txt" deny_ips => { "127.0.0.0/8" };
      "${script}" admit_ips => { "127.0.0.0/8" };
      "allowed_bundle" resource_type => "bundle", admit_ips => { "127.0.0.0/8" };
  roles:
      ".*" authorize => { "root" };
}
`;
  await server.startServer("tend", server.writePolicy("promises.cf", policy));
  const cf = await lab.host(`cf${Math.random().toString(36).slice(2, 7)}`);
  const tend = await lab.host(`tend${Math.random().toString(36).slice(2, 7)}`);
  for (const client of [cf, tend]) {
    client.writePolicy("promises.cf", "bundle agent main\n{\n}\n");
    server.trust(client);
  }
  return { server, cf, tend, at: `${server.address}:${server.port}` };
}

test("tend net and cf-net print the same against tend serverd", { skip: noReference }, async () => {
  const s = await tendServer();
  const d = s.server.data;
  const cases = [
    ["connect"],
    ["stat", `${d}/pub/hello.txt`],
    ["stat", `${d}/pub/sub`],
    ["stat", `${d}/pub/denied.txt`],
    ["stat", `${d}/nowhere`],
    ["opendir", `${d}/pub/sub`],
    ["opendir", `${d}/secret`],
    ["get", `${d}/pub/nothing`, "-o", join(s.tend.dir, "x")],
  ];
  for (const args of cases) {
    const want = s.cf.runCf("cf-net", ["-H", s.at, ...args]);
    const got = s.tend.runTend("net", ["-H", s.at, ...args]);
    assert.equal(got.stdout, want.stdout, `stdout of net ${args.join(" ")}`);
    assert.equal(got.status, want.status, `exit code of net ${args.join(" ")}`);
    if (args[0] === "connect") assert.match(got.stdout, /Connected & authenticated successfully/);
  }
});

test("tend runagent and cf-runagent print the same against tend serverd", { skip: noReference }, async () => {
  const s = await tendServer();
  // cf-runagent does not trust a server's key on first use.
  s.cf.trust(s.server);
  s.tend.trust(s.server);
  const cases = [
    [],
    ["-D", "one,two"],
    ["--remote-bundles", "allowed_bundle"],
    ["--remote-bundles", "refused_bundle"],
    ["-s", "no_such_class"],
  ];
  for (const args of cases) {
    const want = s.cf.runCf("cf-runagent", ["-H", s.at, ...args]);
    const got = s.tend.runTend("runagent", ["-H", s.at, ...args]);
    assert.equal(got.stdout, want.stdout, `stdout of runagent ${args.join(" ")}`);
    assert.equal(got.status, want.status, `exit code of runagent ${args.join(" ")}`);
    if (args.length === 0) assert.match(got.stdout, /> \(exit code: 4\)\n/);
  }
});
