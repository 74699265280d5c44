/**
 * The lastseen database (3.21's `LastSaw1` at each trusted connection):
 * tend serverd records each client it serves, incoming, and `tend key -s`
 * lists it as `cf-key -s` lists 3.21's.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { main } from "../../../src/cli/app.js";
import type { CliIo } from "../../../src/cli/io.js";
import { keyDigest } from "../../../src/net/keys.js";
import {
  forceRemoveFromLastSeen,
  LASTSEEN_FILE,
  lastSeenIncoherences,
  readLastSeen,
  recordLastSeen,
  removeFromLastSeen,
} from "../../../src/net/lastseen.js";
import { scratchDirectory } from "../../scratch.js";
import { handPolicy, startTestServer } from "./harness.js";

async function tendKey(args: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = "";
  const io: CliIo = {
    stdout: (t) => {
      stdout += t;
    },
    stderr: () => {},
    stdoutIsTTY: false,
    stderrIsTTY: false,
    env: {},
    cwd: process.cwd(),
  };
  return { code: await main(["key", ...args], io), stdout };
}

test("tend serverd records each trusted client in lastseen; tend key -s lists it", async (t) => {
  const s = await startTestServer(t, handPolicy());
  const before = Math.floor(Date.now() / 1000);
  const connection = await s.connect();
  assert.equal(await connection.version(), "3.21.0");
  connection.close();
  await s.server.close();
  const digest = keyDigest(s.clientKeys.publicKey);
  const seen = readLastSeen(`${s.workdir}/state`);
  assert.equal(seen.length, 1);
  assert.deepEqual(
    { ...seen[0], lastseen: 0 },
    {
      direction: "incoming",
      key: digest,
      address: "127.0.0.1",
      lastseen: 0,
      interval: { q: 0, expect: 0, var: 0, dq: 0 },
    },
  );
  assert.ok((seen[0]?.lastseen ?? 0) >= before);
  const show = await tendKey(["-w", s.workdir, "-s", "-N", "-n"]);
  assert.equal(show.code, 0);
  const lines = show.stdout.trimEnd().split("\n");
  assert.equal(lines[0], "Direction\tIP\tName\tLast connection\tKey");
  assert.match(
    lines[1] as string,
    new RegExp(`^Incoming\\t127\\.0\\.0\\.1\\t127\\.0\\.0\\.1\\t.*\\t${digest}$`),
  );
  assert.equal(lines.at(-1), "Total Entries: 1");
});

const still = { q: 0, expect: 0, var: 0, dq: 0 };

test("lastseen: a key's address is the last seen either way (3.21's kKEY entry)", () => {
  const statedir = scratchDirectory("tend-lastseen-");
  assert.deepEqual(readLastSeen(statedir), []);
  recordLastSeen(statedir, [
    { direction: "incoming", key: "MD5=aa", address: "10.0.0.1", lastseen: 100 },
    { direction: "outgoing", key: "MD5=aa", address: "10.0.0.1", lastseen: 150 },
  ]);
  recordLastSeen(statedir, [{ direction: "outgoing", key: "MD5=bb", address: "10.0.0.3", lastseen: 120 }]);
  recordLastSeen(statedir, [{ direction: "incoming", key: "MD5=aa", address: "10.0.0.2", lastseen: 200 }]);
  assert.deepEqual(readLastSeen(statedir), [
    {
      direction: "incoming",
      key: "MD5=aa",
      address: "10.0.0.2",
      lastseen: 200,
      interval: { q: 100, expect: 40, var: 4000, dq: 100 },
    },
    { direction: "outgoing", key: "MD5=aa", address: "10.0.0.2", lastseen: 150, interval: still },
    { direction: "outgoing", key: "MD5=bb", address: "10.0.0.3", lastseen: 120, interval: still },
  ]);
});

test("lastseen: the interval between connections as 3.21's rolling average (weight 0.4)", () => {
  const statedir = scratchDirectory("tend-lastseen-q-");
  for (const lastseen of [100, 150, 250])
    recordLastSeen(statedir, [{ direction: "outgoing", key: "MD5=cc", address: "10.0.0.5", lastseen }]);
  const [entry] = readLastSeen(statedir);
  assert.equal(entry?.lastseen, 250);
  // 150: q 50, expect 0.4*50 = 20, var 0.4*50^2 = 1000; 250: q 100, expect 40+12, var 0.4*80^2+600.
  assert.deepEqual(entry?.interval, { q: 100, expect: 52, var: 3160, dq: 50 });
});

test("lastseen: removal by key or address, coherence, forced removal by prefix", () => {
  const statedir = scratchDirectory("tend-lastseen-rm-");
  recordLastSeen(statedir, [
    { direction: "outgoing", key: "MD5=aa", address: "10.0.0.1", lastseen: 100 },
    { direction: "incoming", key: "MD5=bb", address: "10.0.0.10", lastseen: 100 },
  ]);
  assert.deepEqual(lastSeenIncoherences(statedir), []);
  assert.deepEqual(removeFromLastSeen(statedir, "10.0.0.99", true), { removed: false, reason: "host" });
  assert.deepEqual(removeFromLastSeen(statedir, "MD5=00", true), { removed: false, reason: "digest" });
  assert.deepEqual(removeFromLastSeen(statedir, "10.0.0.1", true), { removed: true, equivalent: "MD5=aa" });
  assert.deepEqual(
    readLastSeen(statedir).map((e) => e.key),
    ["MD5=bb"],
  );
  recordLastSeen(statedir, [{ direction: "outgoing", key: "MD5=aa", address: "10.0.0.1", lastseen: 100 }]);
  // 3.21 matches the address as a prefix: 10.0.0.1 takes 10.0.0.10's key along.
  const forced = forceRemoveFromLastSeen(statedir, "10.0.0.1");
  assert.deepEqual([...forced.keys].sort(), ["MD5=aa", "MD5=bb"]);
  assert.equal(forced.mainEntryFound, true);
  assert.deepEqual(readLastSeen(statedir), []);
  assert.deepEqual(forceRemoveFromLastSeen(statedir, "MD5=aa"), { keys: ["MD5=aa"], mainEntryFound: false });
});

test("lastseen: the first format (incoming only) is read on", () => {
  const statedir = scratchDirectory("tend-lastseen-v1-");
  writeFileSync(
    join(statedir, LASTSEEN_FILE),
    JSON.stringify({ version: 1, hosts: { "i:MD5=aa": { address: "10.0.0.1", lastseen: 100 } } }),
  );
  assert.deepEqual(readLastSeen(statedir), [
    { direction: "incoming", key: "MD5=aa", address: "10.0.0.1", lastseen: 100, interval: still },
  ]);
});
