/**
 * Real cf-net and cf-agent 3.21 against `tend serverd` (the command, in the
 * foreground), each host in its own work directory and mount namespace
 * (test/net/hosts.ts). Skipped with the reason when cfengine3 is absent.
 * The full client x server matrix is test/net/interop.test.ts; these are
 * the server's own basic cases.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { type Host, Lab, serverControl, whyNoReference } from "../../net/hosts.js";

const noReference = whyNoReference();
const lab = new Lab("tend-serverd-real-");
after(() => lab.close());

function accessPolicy(host: Host, trustkeysfrom: readonly string[] = ["127.0.0.0/8"]): string {
  const d = host.data;
  return `body common control { bundlesequence => { "main" }; }
bundle agent main { }
${serverControl(host, { trustkeysfrom })}
bundle server access_rules
{
  access:
      "${d}/pub/" admit_ips => { "127.0.0.0/8" };
      "${d}/pub/denied.txt" deny_ips => { "127.0.0.0/8" };
}
`;
}

async function serverHost(name: string, trustkeysfrom?: readonly string[]): Promise<Host> {
  const server = await lab.host(name);
  server.writeData("pub/hello.txt", "hello from tend serverd\n");
  server.writeData("pub/tree/a.txt", "a\n");
  server.writeData("pub/tree/sub/b.txt", "b\n".repeat(5000));
  server.writeData("pub/denied.txt", "never served\n");
  server.writeData("secret.txt", "outside every rule\n");
  await server.startServer("tend", server.writePolicy("promises.cf", accessPolicy(server, trustkeysfrom)));
  return server;
}

test("cf-net stat, get and opendir against tend serverd", { skip: noReference }, async () => {
  const server = await serverHost("net-srv");
  const client = await lab.host("net-cli");
  const at = `${server.address}:${server.port}`;
  const stat = client.runCf("cf-net", ["-H", at, "stat", join(server.data, "pub/hello.txt")]);
  assert.match(stat.stdout, /is a regular file/, stat.stdout + stat.stderr);
  const get = client.runCf("cf-net", ["-H", at, "get", join(server.data, "pub/tree/sub/b.txt")], {
    cwd: client.dir,
  });
  assert.equal(get.status, 0, get.stdout + get.stderr);
  assert.equal(readFileSync(join(client.dir, "b.txt"), "utf8"), "b\n".repeat(5000));
  const list = client.runCf("cf-net", ["-H", at, "opendir", join(server.data, "pub/tree")]);
  assert.deepEqual(list.stdout.trim().split("\n").sort(), [".", "..", "a.txt", "sub"]);
  const denied = client.runCf("cf-net", ["-H", at, "stat", join(server.data, "pub/denied.txt")]);
  assert.match(
    denied.stdout + denied.stderr,
    /BAD: Unspecified server refusal \(see verbose server output\)/,
  );
  const outside = client.runCf("cf-net", ["-H", at, "get", join(server.data, "pub/../secret.txt")], {
    cwd: client.dir,
  });
  assert.equal(existsSync(join(client.dir, "secret.txt")), false, outside.stdout);
});

function copyPolicy(server: Host, client: Host): string {
  return `body common control { bundlesequence => { "main" }; }
bundle agent main
{
  files:
      "${client.data}/single.txt"
        copy_from => remote("${server.data}/pub/hello.txt"),
        classes => outcome("single");
      "${client.data}/tree"
        copy_from => remote("${server.data}/pub/tree"),
        depth_search => recurse,
        classes => outcome("tree");
      "${client.data}/denied.txt"
        copy_from => remote("${server.data}/pub/denied.txt"),
        classes => outcome("denied");
  reports:
      single_repaired:: "single repaired";
      single_kept:: "single kept";
      tree_repaired:: "tree repaired";
      tree_kept.!tree_repaired:: "tree kept";
      denied_failed:: "denied failed";
}
body copy_from remote(path)
{
  source => "$(path)";
  servers => { "${server.address}" };
  portnumber => "${server.port}";
  trustkey => "true";
  compare => "digest";
}
body depth_search recurse { depth => "inf"; }
body classes outcome(p)
{
  promise_repaired => { "$(p)_repaired" };
  promise_kept => { "$(p)_kept" };
  repair_failed => { "$(p)_failed" };
  repair_denied => { "$(p)_failed" };
  repair_timeout => { "$(p)_failed" };
}
`;
}

test("cf-agent copy_from a file and a tree from tend serverd; the second run keeps them", {
  skip: noReference,
}, async () => {
  const server = await serverHost("copy-srv");
  const client = await lab.host("copy-cli");
  const policy = client.writePolicy("copy.cf", copyPolicy(server, client));
  const first = client.runAgent("cf", policy);
  const out = first.stdout + first.stderr;
  assert.match(out, /R: single repaired/, out);
  assert.match(out, /R: tree repaired/, out);
  assert.match(out, /R: denied failed/, out);
  assert.equal(readFileSync(join(client.data, "single.txt"), "utf8"), "hello from tend serverd\n");
  assert.equal(readFileSync(join(client.data, "tree/sub/b.txt"), "utf8"), "b\n".repeat(5000));
  assert.equal(existsSync(join(client.data, "denied.txt")), false);
  const second = client.runAgent("cf", policy);
  const again = second.stdout + second.stderr;
  assert.match(again, /R: single kept/, again);
  assert.match(again, /R: tree kept/, again);
  assert.doesNotMatch(again, /single repaired|tree repaired/, again);
});

test("an untrusted client key is refused; trustkeysfrom trusts it", { skip: noReference }, async () => {
  const closed = await serverHost("trust-closed", ["10.0.0.0/8"]);
  const client = await lab.host("trust-cli");
  const file = join(closed.data, "pub/hello.txt");
  const refused = client.runCf("cf-net", ["-H", `${closed.address}:${closed.port}`, "stat", file]);
  assert.doesNotMatch(refused.stdout, /is a regular file/, refused.stdout + refused.stderr);
  assert.equal(closed.trusts(client), false);
  const daemon = lab.daemons.find((d) => d.host === closed);
  // The client ran synchronously: let the daemon's output in.
  for (let i = 0; i < 100 && !daemon?.log.includes("TRUST FAILED"); i++)
    await new Promise((r) => setTimeout(r, 20));
  const log = daemon?.log ?? "";
  assert.match(log, /TRUST FAILED, peer presented an untrusted key, dropping connection!/, log);
  const open = await serverHost("trust-open");
  const accepted = client.runCf("cf-net", [
    "-H",
    `${open.address}:${open.port}`,
    "stat",
    join(open.data, "pub/hello.txt"),
  ]);
  assert.match(accepted.stdout, /is a regular file/, accepted.stdout + accepted.stderr);
  assert.equal(open.trusts(client), true);
});
