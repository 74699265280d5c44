/**
 * A short, seeded fuzz campaign (test/server/fuzz/) against tend serverd
 * run as a child process on a scratch host: 5,000 malformed or truncated
 * frames, bad dialogs, hostile paths, abrupt closes, silent connections
 * held throughout and floods past maxconnections, while a well-behaved
 * client fetches a file. The server must stay alive, every fetch must
 * succeed (or be refused past maxconnections, then succeed), and its memory
 * must stay flat. The long run (≥ 100,000 frames, and the same against
 * cf-serverd 3.21) is scripts/fuzz-serverd.ts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { campaignProblems } from "../../scripts/fuzz-serverd.js";
import { tendHas } from "../net/hosts.js";
import { runCampaign } from "./fuzz/campaign.js";

test("tend serverd holds under 5,000 seeded malformed frames, slowloris and floods", async (t) => {
  if (!tendHas("serverd")) return t.todo("tend serverd is not on this tree yet");
  const result = await runCampaign({
    server: "tend",
    seed: 14,
    frames: 5000,
    concurrency: 8,
    slowloris: 2,
    maxConnections: 30,
    flood: 45,
    floodEveryMs: 8000,
    watchEveryMs: 250,
  });
  t.diagnostic(
    `${result.fuzz?.frames} frames, ${result.fuzz?.connections} connections; client ${result.watch.ok} ok, ${result.watch.refused} refused; RSS ${result.memory?.startKb}/${result.memory?.peakKb}/${result.memory?.endKb} kB`,
  );
  assert.deepEqual(campaignProblems(result), []);
  assert.ok((result.fuzz?.frames ?? 0) >= 5000);
  assert.ok(result.watch.ok > 0);
});

test("tend serverd with allowlegacyconnects holds under 1,500 malformed classic key dialogues", async (t) => {
  if (!tendHas("serverd")) return t.todo("tend serverd is not on this tree yet");
  const result = await runCampaign({
    server: "tend",
    seed: 21,
    frames: 1500,
    concurrency: 8,
    kinds: ["classic-handshake", "classic-cauth"],
    legacy: true,
    slowloris: 1,
    maxConnections: 30,
    flood: 0,
    floodEveryMs: 8000,
    watchEveryMs: 250,
  });
  t.diagnostic(
    `${result.fuzz?.frames} frames, ${result.fuzz?.connections} connections, reactions ${JSON.stringify(result.fuzz?.reactions)}; client ${result.watch.ok} ok; RSS ${result.memory?.startKb}/${result.memory?.peakKb}/${result.memory?.endKb} kB`,
  );
  assert.deepEqual(campaignProblems(result), []);
  assert.ok((result.fuzz?.frames ?? 0) >= 1500);
  assert.ok(result.watch.ok > 0);
});
