/**
 * The lastseen database (3.21's `LastSaw1` at each trusted connection):
 * tend serverd records each client it serves, incoming, and `tend key -s`
 * lists it as `cf-key -s` lists 3.21's.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { main } from "../../../src/cli/app.js";
import type { CliIo } from "../../../src/cli/io.js";
import { keyDigest } from "../../../src/net/keys.js";
import { readLastSeen, recordLastSeen } from "../../../src/net/lastseen.js";
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
    { direction: "incoming", key: digest, address: "127.0.0.1", lastseen: 0 },
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
  // The client's key is trusted for root and nobody: seen once, so no "Trusted" row for it.
  assert.equal(lines.at(-1), "Total Entries: 1");
});

test("lastseen: entries by direction and key, a later connection replacing the earlier", () => {
  const statedir = scratchDirectory("tend-lastseen-");
  assert.deepEqual(readLastSeen(statedir), []);
  recordLastSeen(statedir, [
    { direction: "incoming", key: "MD5=aa", address: "10.0.0.1", lastseen: 100 },
    { direction: "outgoing", key: "MD5=aa", address: "10.0.0.1", lastseen: 150 },
  ]);
  recordLastSeen(statedir, [{ direction: "incoming", key: "MD5=aa", address: "10.0.0.2", lastseen: 200 }]);
  assert.deepEqual(readLastSeen(statedir), [
    { direction: "incoming", key: "MD5=aa", address: "10.0.0.2", lastseen: 200 },
    { direction: "outgoing", key: "MD5=aa", address: "10.0.0.1", lastseen: 150 },
  ]);
});
