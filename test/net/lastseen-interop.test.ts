/**
 * The lastseen database both ways, beside 3.21: after a client copies a
 * file from a server, the client lists the server as "Outgoing" and the
 * server lists the client as "Incoming" (`cf-key -s` / `tend key -s`), for
 * every pair of cf-agent/tend agent and cf-serverd/tend serverd; cf-net and
 * tend net connect "off the record" (no entry), as cf-net does. The tend
 * pairs must print what the reference pair prints, once addresses, keys
 * and dates are written as names.
 *
 * Skipped with the reason when cfengine3 is absent or not root.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { type Host, type Impl, Lab, serverControl, whyNoReference } from "./hosts.js";

const noReference = whyNoReference();
const lab = new Lab("tend-lastseen-");
after(() => lab.close());

function serverPolicy(host: Host): string {
  return `body common control { bundlesequence => { "main" }; }
bundle agent main { }
${serverControl(host, { trustkeysfrom: ["127.0.0.0/8"], allowusers: ["root"] })}
bundle server access_rules
{
  access:
      "${host.data}/" admit_ips => { "127.0.0.0/8" };
}
`;
}

function copyPolicy(server: Host): string {
  return `body common control { bundlesequence => { "main" }; }
bundle agent main
{
  files:
      "$(sys.workdir)/dest/one.txt"
        copy_from => remote;
}
body copy_from remote
{
  servers => { "${server.address}" };
  portnumber => "${server.port}";
  source => "${server.data}/one.txt";
  compare => "digest";
  trustkey => "true";
}
`;
}

/** `key -s -N -n` of a host, its rows sorted, addresses, keys and dates written as names. */
function shown(host: Host, impl: Impl, names: Readonly<Record<string, Host>>): string[] {
  const run =
    impl === "cf" ? host.runCf("cf-key", ["-s", "-N", "-n"]) : host.runTend("key", ["-s", "-N", "-n"]);
  assert.equal(run.status, 0, `${run.command}\n${run.stdout}${run.stderr}`);
  let text = run.stdout;
  for (const [name, h] of Object.entries(names))
    text = text.split(h.address).join(`${name}ADDR`).split(h.keys.digest).join(`${name}KEY`);
  return text
    .trimEnd()
    .split("\n")
    .map((line) => line.replace(/^(Incoming|Outgoing)\t([^\t]*)\t([^\t]*)\t[^\t]*\t/, "$1\t$2\t$3\tDATE\t"))
    .sort();
}

interface Seen {
  readonly client: string[];
  readonly server: string[];
}

let count = 0;

async function scenario(clientImpl: Impl, serverImpl: Impl, tool: "agent" | "net"): Promise<Seen> {
  const n = ++count;
  const server = await lab.host(`srv${n}-${serverImpl}`);
  const client = await lab.host(`cli${n}-${clientImpl}`);
  server.writeData("one.txt", "one\n");
  const daemon = await server.startServer(
    serverImpl,
    server.writePolicy("promises.cf", serverPolicy(server)),
  );
  if (tool === "agent") {
    const run = client.runAgent(clientImpl, client.writePolicy("copy.cf", copyPolicy(server)));
    assert.equal(run.status, 0, `${run.command}\n${run.stdout}${run.stderr}`);
  } else {
    const args = ["-H", `${server.address}:${server.port}`, "stat", `${server.data}/one.txt`];
    const run = clientImpl === "cf" ? client.runCf("cf-net", args) : client.runTend("net", args);
    assert.equal(run.status, 0, `${run.command}\n${run.stdout}${run.stderr}`);
  }
  // tend serverd writes its record every few seconds and when it stops.
  await daemon.stop();
  const names = { SRV: server, CLI: client };
  return { client: shown(client, clientImpl, names), server: shown(server, serverImpl, names) };
}

const references = new Map<string, Promise<Seen>>();

for (const tool of ["agent", "net"] as const) {
  for (const [clientImpl, serverImpl] of [
    ["cf", "cf"],
    ["tend", "cf"],
    ["cf", "tend"],
    ["tend", "tend"],
  ] as const) {
    const label = `lastseen after ${clientImpl === "cf" ? "cf-" : "tend "}${tool} -> ${serverImpl === "cf" ? "cf-serverd" : "tend serverd"}`;
    test(label, { timeout: 120_000 }, async (t) => {
      if (noReference) return t.skip(noReference);
      let reference = references.get(tool);
      if (!reference) {
        reference = scenario("cf", "cf", tool);
        references.set(tool, reference);
      }
      const expected = await reference;
      if (clientImpl === "cf" && serverImpl === "cf") {
        // What 3.21 does, written down: the agent records the server, cf-net does not;
        // the server records the client at its source address (loopback: 127.0.0.1).
        const total = expected.client.find((l) => l.startsWith("Total"));
        assert.equal(total, tool === "agent" ? "Total Entries: 1" : "Total Entries: 0");
        if (tool === "agent") assert.ok(expected.client.includes("Outgoing\tSRVADDR\tSRVADDR\tDATE\tSRVKEY"));
        assert.ok(expected.server.includes("Incoming\t127.0.0.1\t127.0.0.1\tDATE\tCLIKEY"));
        return;
      }
      const seen = await scenario(clientImpl, serverImpl, tool);
      assert.deepEqual(seen, expected);
    });
  }
}
