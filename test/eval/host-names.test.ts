/**
 * The host's names (`sys.host`, `sys.fqhost`, `sys.uqhost`, `sys.domain`,
 * the classes derived from them) as cf-agent 3.21 computes them: from the
 * node name and the canonical name the resolver gives for it, which
 * /etc/hosts decides when nsswitch.conf says `files`. And the name a
 * classic-protocol client gives itself, which takes `sys.domain`.
 *
 * The differential cases run real cf-agent and tend agent in a private
 * UTS and mount namespace each (their own host name, /etc/hosts and
 * nsswitch.conf bound over the machine's, which are never touched); they
 * skip with the reason when cf-agent or namespaces are missing.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { hostNames } from "../../src/eval/host.js";
import { lookupHostEntry } from "../../src/eval/host-resolver.js";
import { CF_BIN, combinedOutput, freePort, scratchHost, skipReason, TEND } from "../net/hosts.js";
import { scratchDirectory } from "../scratch.js";

test("host names are derived from the node name and its canonical name, as 3.21 does", () => {
  assert.deepEqual(hostNames("web1", "web1.example.com"), {
    fqhost: "web1.example.com",
    uqhost: "web1",
    domain: "example.com",
  });
  assert.deepEqual(hostNames("Web1.Example.COM", undefined), {
    fqhost: "web1.example.com",
    uqhost: "web1",
    domain: "example.com",
  });
  // A canonical name that does not extend the node name is the fqhost alone.
  assert.deepEqual(hostNames("web1", "other.example.com"), {
    fqhost: "other.example.com",
    uqhost: "web1",
    domain: "",
  });
  assert.deepEqual(hostNames("web1.a.b", "other.example.com"), {
    fqhost: "other.example.com",
    uqhost: "web1",
    domain: "a.b",
  });
  // A canonical name with no dot says nothing.
  assert.deepEqual(hostNames("web1", "web1"), { fqhost: "web1", uqhost: "web1", domain: "" });
});

test("the canonical name comes from the first /etc/hosts line naming the host", async () => {
  const etc = scratchDirectory("tend-host-names-");
  writeFileSync(
    join(etc, "hosts"),
    [
      "127.0.0.1 localhost",
      "# 10.0.0.9 commented.example.com web1",
      "fd00::1 six.example.com web6",
      "10.0.0.1 Web1.Example.com web1 # a comment",
      "10.0.0.2 second.example.com web1",
      "not-an-address wrong.example.com web2",
      "",
    ].join("\n"),
  );
  writeFileSync(join(etc, "nsswitch.conf"), "hosts: files dns\n");
  assert.equal((await lookupHostEntry("web1", etc))?.name, "Web1.Example.com");
  assert.equal((await lookupHostEntry("WEB1", etc))?.name, "Web1.Example.com");
  assert.equal((await lookupHostEntry("web6", etc))?.name, "six.example.com");
  assert.deepEqual(await lookupHostEntry("web1.example.com", etc), {
    name: "Web1.Example.com",
    aliases: ["web1"],
    address: "10.0.0.1",
  });
  assert.equal((await lookupHostEntry("web2", etc))?.name, undefined);
  assert.equal((await lookupHostEntry("web3", etc))?.name, undefined);
  // Not asked when nsswitch.conf leaves files out.
  writeFileSync(join(etc, "nsswitch.conf"), "hosts: dns\n");
  assert.equal((await lookupHostEntry("web1", etc))?.name, undefined);
  writeFileSync(join(etc, "nsswitch.conf"), "hosts: files [NOTFOUND=return] dns\n");
  assert.equal((await lookupHostEntry("web1", etc))?.name, "Web1.Example.com");
});

const reason = skipReason("cf-agent");

/**
 * Binds $1 over /etc/hosts, $2 over /etc/nsswitch.conf and $4 (when given)
 * over cf-agent's work directory, names the host $3, runs the rest.
 */
const NAMESPACE = `set -e
mount --bind "$1" /etc/hosts
mount --bind "$2" /etc/nsswitch.conf
if [ -n "$4" ]; then mount --bind "$4" /var/lib/cfengine3; fi
hostname "$3"
shift 4
exec "$@"`;

const HOSTS = [
  "127.0.0.1 localhost",
  "::1 client-b.v6.test client-b",
  "127.0.1.1 Client-A.Example.Test client-a",
  "127.0.1.2 other.example.test client-c",
  "127.0.1.5 shorty",
  "",
].join("\n");

/** The node names tried: qualified, plain, named by /etc/hosts in several ways. */
const NODENAMES = ["client-x.example.test", "plainhost", "Client-A", "client-c", "client-b"];

/** One work directory (keys made) for each agent. */
const workdirs = new Map<string, string>();

async function run(dir: string, nodename: string, agent: "cf" | "tend", policy: string) {
  const key = `${dir} ${agent}`;
  const workdir = workdirs.get(key) ?? scratchHost(`tend-host-names-${agent}-`).dir;
  workdirs.set(key, workdir);
  const args = ["-K", "-f", policy];
  const argv =
    agent === "cf" ? [join(CF_BIN, "cf-agent"), ...args] : [process.execPath, TEND, "agent", ...args];
  const files = [join(dir, "hosts"), join(dir, "nsswitch.conf")];
  // Not spawnSync: the classic test's listener answers from this process.
  const child = spawn(
    "unshare",
    ["-m", "-u", "sh", "-c", NAMESPACE, "ns", ...files, nodename, agent === "cf" ? workdir : "", ...argv],
    {
      timeout: 60_000,
      env: agent === "cf" ? process.env : { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: workdir },
    },
  );
  return (await combinedOutput(child)).trim();
}

test("sys.host, fqhost, uqhost, domain and their classes: tend agent as cf-agent", {
  skip: reason,
}, async () => {
  const dir = scratchDirectory("tend-host-names-ns-");
  writeFileSync(join(dir, "hosts"), HOSTS);
  writeFileSync(join(dir, "nsswitch.conf"), "hosts: files\n");
  const policy = join(dir, "names.cf");
  writeFileSync(
    policy,
    `bundle agent main
{
  vars:
      "classes" slist => sort(classesmatching(".*", "derived-from=sys.fqhost"), "lex");
      "more" slist => sort(classesmatching(".*", "(derived|based)-from=sys.(uqhost|domain)|based-on=.*"), "lex");
  reports:
      "host=$(sys.host) fqhost=$(sys.fqhost) uqhost=$(sys.uqhost) domain=$(sys.domain)";
      "classes=$(with)" with => join(",", classes);
      "more=$(with)" with => join(",", more);
}
`,
  );
  for (const nodename of NODENAMES) {
    const theirs = await run(dir, nodename, "cf", policy);
    const ours = await run(dir, nodename, "tend", policy);
    assert.match(theirs, /R: host=/, theirs);
    assert.equal(ours, theirs, `node name ${nodename}`);
  }
  // What 3.21 does, so that a change in the reference shows.
  assert.match(
    await run(dir, "Client-A", "cf", policy),
    /fqhost=client-a\.example\.test uqhost=client-a domain=example\.test/,
  );
});

test("a classic client names itself with sys.domain, as cf-agent does", { skip: reason }, async (t) => {
  const dir = scratchDirectory("tend-host-names-caut-");
  writeFileSync(join(dir, "hosts"), HOSTS);
  writeFileSync(join(dir, "nsswitch.conf"), "hosts: files\n");
  // A listener that keeps each client's first line (its CAUTH) and hangs up.
  const seen: string[] = [];
  const server = createServer((socket) => {
    socket.once("data", (data) => {
      seen.push(data.subarray(8).toString("latin1").replace(/\0.*$/s, ""));
      socket.destroy();
    });
    socket.on("error", () => undefined);
  });
  const port = await freePort("127.0.0.1");
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  t.after(() => server.close());
  const policy = join(dir, "copy.cf");
  writeFileSync(
    policy,
    `body agent control { bindtointerface => "127.0.1.5"; }
bundle agent main
{
  files:
      "${dir}/copied" copy_from => remote;
}
body copy_from remote
{
  source => "/etc/hostname";
  servers => { "127.0.0.1" };
  portnumber => "${port}";
  protocol_version => "classic";
}
`,
  );
  for (const nodename of ["client-x.example.test", "plainhost", "Client-A"]) {
    const names: string[] = [];
    for (const agent of ["cf", "tend"] as const) {
      seen.length = 0;
      await run(dir, nodename, agent, policy);
      names.push(seen[0]?.split(" ").slice(0, 3).join(" ") ?? "(nothing sent)");
    }
    assert.equal(names[1], names[0], `node name ${nodename}`);
    if (nodename === "client-x.example.test") assert.equal(names[0], "CAUTH 127.0.1.5 shorty.example.test");
  }
});
