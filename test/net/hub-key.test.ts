/**
 * 3.21's PolicyHubUpdateKeys beside cf-agent: on a policy hub
 * (`state/am_policy_hub`, `policy_server.dat`), an agent starting finds
 * `ppkeys/root-<own digest>.pub` missing, copies its public key there (the
 * hub trusts itself as its clients do) and records the policy server as
 * an outgoing peer with that key in lastseen. cf-agent 3.21 and tend
 * agent each run an empty policy on a hub of their own; the key files and
 * `key -s` must end alike. A host that is not a hub gets neither.
 *
 * Skipped with the reason when cfengine3 is absent or not root.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { type Host, type Impl, Lab, whyNoReference } from "./hosts.js";

const noReference = whyNoReference();
const lab = new Lab("tend-hub-key-");
after(() => lab.close());

const EMPTY = `body common control { bundlesequence => { "main" }; }
bundle agent main { }
`;

async function hub(impl: Impl, isHub: boolean): Promise<{ host: Host; keys: string[]; shown: string[] }> {
  const host = await lab.host(`${isHub ? "hub" : "node"}-${impl}`);
  writeFileSync(join(host.dir, "policy_server.dat"), `${host.address}\n`);
  if (isHub) writeFileSync(join(host.dir, "state", "am_policy_hub"), "");
  const policy = host.writePolicy("empty.cf", EMPTY);
  for (let run = 0; run < 2; run++) {
    const result =
      impl === "cf"
        ? host.runCf("cf-agent", ["-K", "-f", policy])
        : host.runTend("agent", ["-K", "-f", policy]);
    assert.equal(result.status, 0, `${result.command}\n${result.stdout}${result.stderr}`);
  }
  const show =
    impl === "cf" ? host.runCf("cf-key", ["-s", "-N", "-n"]) : host.runTend("key", ["-s", "-N", "-n"]);
  const shown = show.stdout
    .split(host.address)
    .join("SELF")
    .split(host.keys.digest)
    .join("SELFKEY")
    .trimEnd()
    .split("\n")
    .map((l) => l.replace(/^(Outgoing|Incoming)\t([^\t]*)\t([^\t]*)\t[^\t]*\t/, "$1\t$2\t$3\tDATE\t"));
  const keys = readdirSync(host.ppkeys)
    .map((name) => name.split(host.keys.digest).join("SELFKEY"))
    .sort();
  return { host, keys, shown };
}

for (const isHub of [true, false]) {
  test(`an agent starting on ${isHub ? "a policy hub" : "a bootstrapped host"}: its own key trusted and recorded as 3.21's`, {
    timeout: 120_000,
  }, async (t) => {
    if (noReference) return t.skip(noReference);
    const theirs = await hub("cf", isHub);
    const ours = await hub("tend", isHub);
    if (isHub) {
      assert.deepEqual(theirs.keys, ["localhost.priv", "localhost.pub", "root-SELFKEY.pub"]);
      assert.deepEqual(theirs.shown, [
        "Direction\tIP\tName\tLast connection\tKey",
        "Outgoing\tSELF\tSELF\tDATE\tSELFKEY",
        "Total Entries: 1",
      ]);
      const copy = join(ours.host.ppkeys, `root-${ours.host.keys.digest}.pub`);
      assert.ok(existsSync(copy));
      assert.equal(readFileSync(copy, "utf8"), readFileSync(join(ours.host.ppkeys, "localhost.pub"), "utf8"));
    } else {
      assert.deepEqual(theirs.keys, ["localhost.priv", "localhost.pub"]);
    }
    assert.deepEqual(ours.keys, theirs.keys);
    assert.deepEqual(ours.shown, theirs.shown);
  });
}
