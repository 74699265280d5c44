/**
 * The classic protocol (protocol_version 1) both ways on loopback, beside
 * 3.21: cf-agent and tend agent `copy_from` with `protocol_version =>
 * "classic"` (plain, and `encrypt => "true"`: SGET, SSYNCH, SOPENDIR,
 * SMD5) against cf-serverd and tend serverd with `allowlegacyconnects`,
 * and against both without it (refused); and tend net over classic. The
 * reference pair (cf-agent → cf-serverd) runs each scenario first; every
 * other pair must end the same way: the same outcome classes on each run,
 * the same files. Each host is a work directory in its own mount
 * namespace (hosts.ts). cf-net has no classic mode (it speaks the latest
 * protocol only), so `tend net -P classic` is checked against what the
 * server holds.
 *
 * Skipped with the reason when cfengine3 is absent or not root.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { copyPolicy, type Host, type Impl, Lab, readTree, serverControl, whyNoReference } from "./hosts.js";

const noReference = whyNoReference();
const lab = new Lab("tend-classic-");
after(() => lab.close());

interface Servers {
  readonly legacy: Host;
  readonly tlsOnly: Host;
}

const servers = new Map<Impl, Promise<Servers>>();

function serverPolicy(host: Host, legacy: boolean): string {
  const more = legacy ? ['allowlegacyconnects => { "127.0.0.0/8" };'] : [];
  const control = serverControl(host, { allowusers: ["root"], more });
  return `body common control { bundlesequence => { "main" }; }
bundle agent main { }
${control}
bundle server access_rules
{
  access:
      "${host.data}/" admit_ips => { "127.0.0.0/8" };
      "${host.data}/denied.txt" deny_ips => { "127.0.0.0/8" };
}
`;
}

function fill(host: Host): void {
  host.writeData("one.txt", "one file, copied whole\n");
  host.writeData("denied.txt", "never served\n");
  host.writeData("tree/a.txt", "a\n");
  host.writeData("tree/sub/b.txt", "b\n");
  // Several SGET blocks and several GET blocks.
  host.writeData("tree/sub/big.bin", Buffer.from(Array.from({ length: 20_000 }, (_, i) => (i * 7) % 251)));
}

async function start(impl: Impl, name: string, legacy: boolean): Promise<Host> {
  const host = await lab.host(`${name}-${impl}`);
  fill(host);
  await host.startServer(impl, host.writePolicy("promises.cf", serverPolicy(host, legacy)));
  return host;
}

function serversFor(impl: Impl): Promise<Servers> {
  let set = servers.get(impl);
  if (!set) {
    set = (async () => ({
      legacy: await start(impl, "legacy", true),
      tlsOnly: await start(impl, "tls", false),
    }))();
    servers.set(impl, set);
  }
  return set;
}

interface Scenario {
  readonly name: string;
  readonly server: keyof Servers;
  readonly promiser: string;
  readonly body: (srv: Host) => string;
  readonly before?: Readonly<Record<string, string>>;
  readonly runs: number;
  readonly expect: "copy" | "fail";
  /** How the client trusts the server: by address (cf-key -t ADDRESS:FILE, the default) or by digest only. */
  readonly trust?: "address" | "digest";
}

const SCENARIOS: readonly Scenario[] = [
  {
    name: "a single file, digest compare; unchanged on the second run",
    server: "legacy",
    promiser: "dest/one.txt",
    body: (srv) => `source => "${srv.data}/one.txt"; compare => "digest";`,
    runs: 2,
    expect: "copy",
  },
  {
    name: "a single file, encrypted (SSYNCH, SMD5, SGET)",
    server: "legacy",
    promiser: "dest/one.txt",
    body: (srv) => `source => "${srv.data}/one.txt"; compare => "digest"; encrypt => "true";`,
    runs: 2,
    expect: "copy",
  },
  {
    name: "a recursive tree with purge, encrypted (SOPENDIR); unchanged on the second run",
    server: "legacy",
    promiser: "dest/tree",
    body: (srv) => `source => "${srv.data}/tree"; compare => "digest"; purge => "true"; encrypt => "true";`,
    before: { "dest/tree/stale.txt": "to purge\n" },
    runs: 2,
    expect: "copy",
  },
  {
    name: "a path the access rules deny",
    server: "legacy",
    promiser: "dest/denied.txt",
    body: (srv) => `source => "${srv.data}/denied.txt";`,
    runs: 1,
    expect: "fail",
  },
  {
    name: "a server key trusted by digest only (no address known) is not trusted",
    server: "legacy",
    promiser: "dest/one.txt",
    body: (srv) => `source => "${srv.data}/one.txt";`,
    runs: 1,
    expect: "fail",
    trust: "digest",
  },
  {
    name: "a server without allowlegacyconnects refuses",
    server: "tlsOnly",
    promiser: "dest/one.txt",
    body: (srv) => `source => "${srv.data}/one.txt";`,
    runs: 1,
    expect: "fail",
  },
];

/**
 * The client trusts the server's key by its address, as `cf-key -t
 * ADDRESS:FILE` leaves it (the key file and a lastseen entry): the classic
 * client of 3.21 finds a server's key by address (HavePublicKeyByIP), so a
 * key file by digest alone does not make the server trusted there.
 */
function trustByAddress(client: Host, impl: Impl, srv: Host): void {
  const arg = `${srv.address}:${join(srv.ppkeys, "localhost.pub")}`;
  const run = impl === "cf" ? client.runCf("cf-key", ["-t", arg]) : client.runTend("key", ["-t", arg]);
  assert.equal(run.status, 0, `${run.command}\n${run.stdout}${run.stderr}`);
}

interface Outcome {
  readonly reports: string[][];
  readonly files: Record<string, string>;
}

let clients = 0;

async function run(clientImpl: Impl, serverImpl: Impl, s: Scenario): Promise<Outcome> {
  const srv = (await serversFor(serverImpl))[s.server];
  const client = await lab.host(`cli${++clients}-${clientImpl}`);
  if (s.trust === "digest") client.trust(srv);
  else trustByAddress(client, clientImpl, srv);
  srv.trust(client);
  for (const [rel, text] of Object.entries(s.before ?? {})) {
    mkdirSync(join(client.dir, rel, ".."), { recursive: true });
    writeFileSync(join(client.dir, rel), text);
  }
  const policy = client.writePolicy(
    "copy.cf",
    copyPolicy(client, srv, s.promiser, `protocol_version => "classic";\n  ${s.body(srv)}`),
  );
  const reports: string[][] = [];
  for (let i = 0; i < s.runs; i++) {
    const result = client.runAgent(clientImpl, policy);
    reports.push(
      result.stdout
        .split("\n")
        .filter((l) => l.startsWith("R: "))
        .map((l) => l.trim()),
    );
  }
  return { reports, files: readTree(join(client.dir, "dest")) };
}

const references = new Map<string, Promise<Outcome>>();

for (const s of SCENARIOS) {
  for (const [clientImpl, serverImpl] of [
    ["cf", "cf"],
    ["cf", "tend"],
    ["tend", "cf"],
    ["tend", "tend"],
  ] as const) {
    const label = `classic copy_from ${clientImpl === "cf" ? "cf-agent" : "tend agent"} -> ${serverImpl === "cf" ? "cf-serverd" : "tend serverd"}: ${s.name}`;
    test(label, { timeout: 180_000 }, async (t) => {
      if (noReference) return t.skip(noReference);
      let reference = references.get(s.name);
      if (!reference) {
        reference = run("cf", "cf", s);
        references.set(s.name, reference);
      }
      const expected = await reference;
      if (clientImpl === "cf" && serverImpl === "cf") {
        const last = expected.reports.at(-1)?.join(" ") ?? "";
        if (s.expect === "copy") {
          assert.ok(Object.keys(expected.files).length > 0, "the reference copied nothing");
          if (s.runs > 1) assert.match(last, /copy_kept/, "the reference's second run keeps the copy");
        } else assert.match(last, /copy_failed/, "the reference fails");
        return;
      }
      assert.deepEqual(await run(clientImpl, serverImpl, s), expected);
    });
  }
}

test("tend net -P classic: connect, stat, get and opendir, plain and encrypted", {
  timeout: 120_000,
}, async (t) => {
  if (noReference) return t.skip(noReference);
  for (const serverImpl of ["cf", "tend"] as const) {
    const srv = (await serversFor(serverImpl)).legacy;
    const client = await lab.host(`net${++clients}-tend`);
    for (const extra of [[], ["--encrypt"]]) {
      const net = (...args: string[]) =>
        client.runTend("net", ["-P", "classic", ...extra, "-H", `${srv.address}:${srv.port}`, ...args]);
      const what = `${serverImpl === "cf" ? "cf-serverd" : "tend serverd"} ${extra.join(" ")}`;
      const connect = net("connect");
      // The first connection trusts the server's key (on first use, as cf-net) and records its address.
      assert.match(connect.stdout, /Connected & authenticated successfully to '.*'\n$/, what);
      if (extra.length > 0) assert.doesNotMatch(connect.stdout, /Trusting new key/, `${what}: trusted again`);
      const stat = net("stat", `${srv.data}/one.txt`);
      assert.match(stat.stdout, /is a regular file/, `${what}: ${stat.stdout}${stat.stderr}`);
      const out = join(client.dir, `one-${serverImpl}-${extra.length}.txt`);
      const get = net("get", `${srv.data}/tree/sub/big.bin`, "-o", out);
      assert.equal(get.status, 0, `${what}: ${get.stdout}${get.stderr}`);
      assert.deepEqual(readFileSync(out), readFileSync(join(srv.data, "tree/sub/big.bin")), what);
      const listing = net("opendir", `${srv.data}/tree`);
      assert.deepEqual(
        listing.stdout.trimEnd().split("\n").sort(),
        [".", "..", "a.txt", "sub"].sort(),
        `${what}: ${listing.stdout}${listing.stderr}`,
      );
    }
    // Without allowlegacyconnects, the classic dialogue is refused.
    const plain = (await serversFor(serverImpl)).tlsOnly;
    const refused = client.runTend("net", [
      "-P",
      "classic",
      "-H",
      `${plain.address}:${plain.port}`,
      "connect",
    ]);
    assert.equal(refused.stdout, `Failed to connect to '${plain.address}:${plain.port}'\n`);
  }
});
