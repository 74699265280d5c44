/**
 * Access by host name beside cf-serverd 3.21: `admit_hostnames`,
 * `deny_hostnames`, legacy `admit`/`deny` with a name, and
 * `$(connection.hostname)` in a path.
 *
 * Loopback addresses have no names, so each server runs in a private mount
 * namespace whose /etc/hosts (and /etc/nsswitch.conf: "hosts: files", no
 * DNS asked) are the test's own files bound over the machine's, which are
 * never touched. One client connects from an address /etc/hosts names
 * (client-a.example.test), another from one it does not name. Both ask
 * both servers, under the same policy, for the same paths; what each server
 * grants and refuses, and what it logs about the lookups, must be the same.
 * Each client also asks to run remote bundles (cf-runagent's EXEC -b)
 * admitted by host name (`resource_type => "bundle"`). Then real cf-agent
 * and tend agent copy from each server as each client (`bindtointerface`
 * in body agent control picks the address they connect from: an address,
 * a name in the same /etc/hosts, a name it lacks, an address not this
 * host's), with the latest protocol and the classic one (where the client
 * names itself, by the same /etc/hosts).
 *
 * Skipped with the reason when cfengine3 or namespaces are missing.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, type TestContext, test } from "node:test";
import { ServerConnection } from "../../src/net/client.js";
import { readKeyPair } from "../../src/net/keys.js";
import {
  CF_BIN,
  copyPolicy,
  Daemon,
  type Host,
  type Impl,
  Lab,
  serverControl,
  whyNoReference,
} from "./hosts.js";

const reason = whyNoReference();
const lab = new Lab("tend-revdns-");
after(() => lab.close());

/** Binds $1 over /etc/hosts, $2 over /etc/nsswitch.conf, $3 (when given) over the work directory; runs the rest. */
const NAMESPACE = `set -e
mount --bind "$1" /etc/hosts
mount --bind "$2" /etc/nsswitch.conf
if [ -n "$3" ]; then mount --bind "$3" /var/lib/cfengine3; fi
shift 3
exec "$@"`;

const NAMED = "client-a.example.test";

/** The paths asked for, under data/, each with a file `f` in it. */
const DIRS = [
  "byname",
  "bydomain",
  "byregex",
  "shortname",
  "other",
  "legacy",
  "denied",
  "legacydeny",
  `perhost/${NAMED}`,
  "perhost/nobody.example.test",
  `perhostips/${NAMED}`,
  "byip",
];

/** Remote bundles (cf-runagent -b) admitted by host name: what each client may run. */
const BUNDLES = ["named_bundle", "domain_bundle", "other_bundle"];

function policy(server: Host, runCommand: string): string {
  const d = server.data;
  return `body common control { bundlesequence => { "main" }; }
bundle agent main { }
${serverControl(server, {
  allowusers: ["root"],
  cfruncommand: runCommand,
  more: ['allowlegacyconnects => { "127.0.0.0/8" };'],
})}
bundle server access_rules
{
  access:
      "${runCommand}" admit_ips => { "127.0.0.0/8" };
      "named_bundle" resource_type => "bundle", admit_hostnames => { "${NAMED}" };
      "domain_bundle" resource_type => "bundle", admit_hostnames => { ".example.test" };
      "other_bundle" resource_type => "bundle", admit_hostnames => { "nobody.example.test" };
      "${d}/byname/" admit_hostnames => { "${NAMED}" };
      "${d}/bydomain/" admit_hostnames => { ".example.test" };
      "${d}/byregex/" admit_hostnames => { "client-.*" };
      "${d}/shortname/" admit_hostnames => { "client-a" };
      "${d}/other/" admit_hostnames => { "nobody.example.test" };
      "${d}/legacy/" admit => { "${NAMED}" };
      "${d}/denied/" admit_ips => { "127.0.0.0/8" }, deny_hostnames => { "${NAMED}" };
      "${d}/legacydeny/" admit_ips => { "127.0.0.0/8" }, deny => { "${NAMED}" };
      # The rule itself names the peer (as 3.21's acceptance tests write $(connection.ip)):
      "${d}/perhost/$(connection.hostname)/" admit_hostnames => { "$(connection.hostname)" };
      # Any loopback peer, but 3.21 checks the magic path against the magic strings: refused.
      "${d}/perhostips/$(connection.hostname)/" admit_ips => { "127.0.0.0/8" };
      "${d}/byip/" admit_ips => { "127.0.0.0/8" };
      # A shortcut to a file of the peer's own: "mine".
      "${d}/short/$(connection.hostname).txt"
        admit_hostnames => { "$(connection.hostname)" },
        shortcut => "mine";
  roles:
      ".*" authorize => { "root" };
}
`;
}

interface Outcome {
  /** "<client> <dir>: ok" or the refusal. */
  readonly answers: string[];
  /** The server's log lines about names and refusals, normalised. */
  readonly log: string[];
}

async function serveBoth(t: TestContext, impl: Impl, clients: readonly Host[]): Promise<Outcome> {
  const server = await lab.host(`${impl}-server`);
  for (const dir of DIRS) server.writeData(`${dir}/f`, `${dir}\n`);
  server.writeData(`short/${NAMED}.txt`, `${NAMED} only\n`);
  const etc = join(server.dir, "etc");
  mkdirSync(etc);
  writeFileSync(join(etc, "hosts"), `127.0.0.1 localhost\n${clients[0]!.address} ${NAMED} client-a\n`);
  writeFileSync(join(etc, "nsswitch.conf"), "hosts: files\n");
  for (const client of clients) {
    server.trust(client);
    client.trust(server);
  }
  const runCommand = join(server.dir, "run.sh");
  writeFileSync(runCommand, '#!/bin/sh\necho "ran: $*"\n', { mode: 0o755 });
  const file = server.writePolicy("promises.cf", policy(server, runCommand));
  if (impl === "cf") {
    const check = server.runCf("cf-promises", ["-c", "-f", file]);
    assert.equal(check.status, 0, `${check.stdout}${check.stderr}`);
  }
  const args = ["-F", "-K", "-I", "-f", file];
  const program = impl === "cf" ? [join(CF_BIN, "cf-serverd"), ...args] : server.tendArgv("serverd", args);
  const child = spawn(
    "unshare",
    [
      "-m",
      "sh",
      "-c",
      NAMESPACE,
      "ns",
      join(etc, "hosts"),
      join(etc, "nsswitch.conf"),
      impl === "cf" ? server.dir : "",
      ...program,
    ],
    { env: server.env(), stdio: ["ignore", "pipe", "pipe"] },
  );
  const daemon = new Daemon(impl, server, child);
  lab.daemons.push(daemon);
  t.after(() => daemon.stop());
  await daemon.waitListening();
  const answers: string[] = [];
  const connect = (client: Host) => {
    const keys = readKeyPair(client.ppkeys);
    assert.ok(keys);
    return ServerConnection.connect({
      host: server.address,
      port: server.port,
      localAddress: client.address,
      keys,
      ppkeys: client.ppkeys,
      user: "root",
      trustServer: false,
      timeoutMs: 20_000,
    });
  };
  for (const [n, client] of clients.entries()) {
    const conn = await connect(client);
    // Each directory's f, and the per-host file through its shortcut.
    for (const dir of [...DIRS, "mine"]) {
      const path = dir === "mine" ? "mine" : `${server.data}/${dir}/f`;
      const expected = dir === "mine" ? `${NAMED} only\n` : `${dir}\n`;
      let answer: string;
      try {
        const stat = await conn.stat(path);
        const body = await conn.get(path, stat.size);
        answer = body?.toString() === expected ? "ok" : `wrong content ${String(body)}`;
      } catch (error) {
        answer = error instanceof Error ? error.message : String(error);
      }
      answers.push(`client${n} ${dir}: ${answer}`);
    }
    conn.close();
    // A remote bundle is run only for the clients its access promise names
    // (cf-runagent -b; each EXEC ends its connection).
    for (const bundle of BUNDLES) {
      const lines: string[] = [];
      const exec = await connect(client);
      const code = await exec.exec({ bundles: [bundle] }, (line) => lines.push(line.trim()));
      exec.close();
      const said = lines.join(" | ").split(server.dir).join("SERVER");
      answers.push(`client${n} exec ${bundle}: ${said} (code ${String(code)})`);
    }
  }
  /**
   * Real cf-agent or tend agent copying `dir`'s file from this server as
   * `client`, with `bindtointerface => bind`, under the same /etc/hosts (a
   * classic client names itself with it): the outcome and the agent's lines
   * about binding and connecting.
   */
  const copyAs = (
    agent: Impl,
    client: Host,
    protocol: string,
    dir: string,
    bind: string,
    promiser: string,
  ) => {
    const body = `source => "${server.data}/${dir}/f";\n  protocol_version => "${protocol}";`;
    const text = `${copyPolicy(client, server, promiser, body)}
body agent control { bindtointerface => "${bind}"; }
`;
    const policyFile = client.writePolicy(`${promiser}.cf`, text);
    const args = ["-K", "-I", "-f", policyFile];
    const argv = agent === "cf" ? [join(CF_BIN, "cf-agent"), ...args] : client.tendArgv("agent", args);
    const nsArgv = ["-m", "sh", "-c", NAMESPACE, "ns", join(etc, "hosts"), join(etc, "nsswitch.conf")];
    const run = spawnSync("unshare", [...nsArgv, agent === "cf" ? client.dir : "", ...argv], {
      env: client.env(),
      encoding: "utf8",
      timeout: 60_000,
    });
    const outcome = /outcome: (\S*)/.exec(run.stdout)?.[1] ?? `no outcome:\n${run.stdout}${run.stderr}`;
    const said = run.stdout
      .split("\n")
      .filter((line) => /Unable to (lookup|bind)|No server is responding/.test(line))
      .map((line) => line.trim())
      .join(" | ")
      .replace(`port: ${server.port}`, "port: PORT");
    return { outcome, said };
  };
  // Each client by its address, with the latest protocol and the classic one.
  for (const protocol of ["latest", "classic"])
    for (const agent of ["cf", "tend"] as const)
      for (const [n, client] of clients.entries())
        for (const dir of protocol === "classic" ? ["legacy", "byname"] : ["byname"]) {
          const promiser = `got-${impl}-${agent}-${protocol}-${dir}`;
          const { outcome } = copyAs(agent, client, protocol, dir, client.address, promiser);
          answers.push(`${agent}-agent ${protocol} client${n} ${dir}: ${outcome}`);
        }
  // `bindtointerface` given as a name is looked up (here in the test's
  // /etc/hosts); a name that does not resolve fails the connection; an
  // address that is not this host's is logged and the connection made
  // from the kernel's choice.
  const binds: Array<[string, string]> = [
    [NAMED, "byname"],
    ["no-such-iface.example.test", "byip"],
    ["192.0.2.1", "byip"],
  ];
  for (const protocol of ["latest", "classic"])
    for (const agent of ["cf", "tend"] as const)
      for (const [bind, dir] of binds) {
        const promiser = `bound-${impl}-${agent}-${protocol}-${bind}`;
        const { outcome, said } = copyAs(agent, clients[0] as Host, protocol, dir, bind, promiser);
        answers.push(`${agent}-agent ${protocol} bind ${bind} ${dir}: ${outcome} ${said}`);
      }
  await daemon.stop();
  const names: Array<[string, string]> = [
    [server.data, "DATA"],
    ...clients.map((c, n): [string, string] => [c.address, `CLIENT${n}`]),
  ];
  const log = daemon.log
    .split("\n")
    .filter((line) => /everse|[Dd]enied|[Gg]ranted/.test(line))
    .map((line) => {
      let out = line.replace(/^\s*info: /, "");
      for (const [value, name] of names) out = out.split(value).join(name);
      return out.trim();
    });
  return { answers, log };
}

test("admit and deny by host name, $(connection.hostname): tend serverd as cf-serverd", {
  skip: reason,
  timeout: 120_000,
}, async (t) => {
  const clients = [await lab.host("named-client"), await lab.host("unnamed-client")];
  const theirs = await serveBoth(t, "cf", clients);
  const ours = await serveBoth(t, "tend", clients);
  t.diagnostic(theirs.answers.join("\n"));
  t.diagnostic(theirs.log.join("\n"));
  // What 3.21 does, so that a change in the reference shows.
  assert.ok(theirs.answers.includes("client0 byname: ok"), theirs.answers.join("\n"));
  assert.ok(theirs.answers.includes(`client0 perhost/${NAMED}: ok`), theirs.answers.join("\n"));
  assert.ok(theirs.answers.includes("client0 mine: ok"), theirs.answers.join("\n"));
  assert.ok(!theirs.answers.includes("client1 byname: ok"), theirs.answers.join("\n"));
  assert.ok(!theirs.answers.includes("client0 denied: ok"), theirs.answers.join("\n"));
  assert.ok(theirs.answers.includes("client1 denied: ok"), theirs.answers.join("\n"));
  assert.ok(
    theirs.answers.includes("cf-agent latest client0 byname: copy_kept,copy_repaired"),
    theirs.answers.join("\n"),
  );
  assert.ok(
    theirs.answers.includes("cf-agent latest client1 byname: copy_failed"),
    theirs.answers.join("\n"),
  );
  const said = (prefix: string) => theirs.answers.find((a) => a.startsWith(prefix)) ?? "";
  assert.match(said("client0 exec named_bundle:"), /> ran: --bundlesequence named_bundle/);
  assert.match(said("client0 exec domain_bundle:"), /> ran: --bundlesequence domain_bundle/);
  assert.match(said("client0 exec other_bundle:"), /EXEC denied bundle activation/);
  assert.match(said("client1 exec named_bundle:"), /EXEC denied bundle activation/);
  assert.match(said(`cf-agent latest bind ${NAMED} byname:`), /copy_repaired/);
  assert.match(said("cf-agent latest bind no-such-iface"), /copy_failed error: Unable to lookup interface/);
  assert.match(said("cf-agent latest bind 192.0.2.1"), /copy_repaired error: Unable to bind to interface/);
  assert.deepEqual(ours.answers, theirs.answers);
  assert.deepEqual(ours.log, theirs.log);
});
