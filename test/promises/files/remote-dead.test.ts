/**
 * A server that accepts connections and never answers, and one where
 * nothing listens: tend agent's copy_from gives up within its `timeout`
 * (cf-agent 3.21 waits its own 30 s for the TLS handshake whatever
 * `timeout` says), fails the promise with 3.21's lines, goes on with the
 * next server, and the run ends (the client's worker does not keep the
 * process alive). Needs no cfengine tools: the keys are made here.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { generateKeyPair, writeKeyPair } from "../../../src/net/keys.js";
import { scratchDirectory } from "../../scratch.js";

const TEND = fileURLToPath(new URL("../../../../bin/tend.js", import.meta.url));

const sockets: Socket[] = [];
let mute: Server | undefined;
after(() => {
  for (const socket of sockets) socket.destroy();
  mute?.close();
});

function listenMute(): Promise<number> {
  return new Promise((resolve) => {
    mute = createServer((socket) => {
      sockets.push(socket);
      socket.on("error", () => undefined);
    });
    mute.listen(0, "127.0.0.1", () => {
      const address = mute?.address();
      resolve(typeof address === "object" && address ? address.port : 0);
    });
  });
}

test("a mute server and a dead one: the copy fails within its timeout, the run ends", async () => {
  const port = await listenMute();
  const dir = scratchDirectory("tend-remote-dead-");
  const workdir = join(dir, "work");
  mkdirSync(join(workdir, "ppkeys"), { recursive: true, mode: 0o700 });
  writeKeyPair(join(workdir, "ppkeys"), generateKeyPair());
  writeFileSync(join(dir, "local.txt"), "local\n");
  const policy = join(dir, "dead.cf");
  writeFileSync(
    policy,
    `body common control { bundlesequence => { "main" }; }
bundle agent main {
  files:
    "${dir}/out/mute" copy_from => r("/etc/hostname", "${port}"), classes => c("mute");
    "${dir}/out/local" copy_from => local("${dir}/local.txt"), classes => c("local");
  reports:
    mute_failed:: "mute_failed";
    local_repaired:: "local_repaired";
}
body copy_from r(f, p) { source => "$(f)"; servers => { "127.0.0.1" }; portnumber => "$(p)"; timeout => "1"; }
body copy_from local(f) { source => "$(f)"; servers => { "127.0.0.2", "localhost" }; portnumber => "${port}"; timeout => "1"; }
body classes c(p) { repair_failed => { "$(p)_failed" }; promise_repaired => { "$(p)_repaired" }; }
`,
  );
  const run = spawnSync(process.execPath, [TEND, "agent", "-K", "-I", "-w", workdir, "-f", policy], {
    encoding: "utf8",
    timeout: 120_000,
  });
  const output = run.stdout + run.stderr;
  assert.equal(run.signal, null, `the run ended by itself: ${output}`);
  assert.match(output, /R: mute_failed/);
  assert.match(output, /info: Unable to establish connection to '127\.0\.0\.1'/);
  assert.match(output, /error: No suitable server found for '.*\/out\/mute'/);
  // 127.0.0.2 refuses at once; "localhost" in the list means the local disk.
  assert.match(output, /info: Unable to establish connection to '127\.0\.0\.2'/);
  assert.match(output, /R: local_repaired/);
  assert.equal(readFileSync(join(dir, "out/local"), "utf8"), "local\n");
});
