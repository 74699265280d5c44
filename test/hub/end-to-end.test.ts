/**
 * End to end on loopback, with the built CLI: `tend hub` on SQLite and
 * three nodes, each with its own work directory and key, running `tend
 * agent --hub` on a policy with kept, repaired and failed promises. Two
 * nodes are trusted by the hub and show up in its API with the right
 * counts; the third is refused for its untrusted key, runs as it would
 * without a hub, and keeps its report in its spool. Then the pages show
 * them in Debian's headless Chromium (skipped with the reason when absent).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import https from "node:https";
import { userInfo } from "node:os";
import { join } from "node:path";
import { rmSync, writeFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { trustKey } from "../../src/net/keys.js";
import { browserUnavailable, launchBrowser } from "./web/browser.js";
import { listSpool, spoolPaths } from "../../src/reporting/spool.js";
import { type HubProcess, keyedWorkdir, startHubProcess, TEND_BIN, tempDir } from "./harness.js";

const root = tempDir("hub-e2e");
let hub: HubProcess | undefined;
let token = "";
const hubDir = keyedWorkdir(join(root, "hub"), 2048);
const nodes = ["alpha", "beta", "gamma"].map((name) => ({ name, ...keyedWorkdir(join(root, name), 2048) }));

function policy(dir: string): string {
  const file = join(dir, "promises.cf");
  writeFileSync(join(dir, "present"), "here\n");
  writeFileSync(
    file,
    `body common control { bundlesequence => { "main" }; }
bundle agent main {
  files:
    "${dir}/present" create => "true";
    "${dir}/made" create => "true";
  commands:
    "/bin/false";
  reports:
    "hello from $(sys.workdir)";
}
`,
  );
  return file;
}

/** Runs the built CLI without blocking this process (the hub's log is read meanwhile). */
function tend(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [TEND_BIN, ...args],
      { encoding: "utf8", timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ status: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

function api(path: string, token: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    https
      .get(
        {
          host: "127.0.0.1",
          port: hub?.port,
          path,
          headers: { authorization: `Bearer ${token}` },
          rejectUnauthorized: false,
        },
        (response) => {
          let text = "";
          response.on("data", (c) => (text += c));
          response.on("end", () => resolve(JSON.parse(text)));
        },
      )
      .on("error", reject);
  });
}

before(async () => {
  const user = userInfo().username;
  for (const node of nodes) {
    trustKey(node.ppkeys, user, hubDir.pair.publicKey);
    if (node.name !== "gamma") trustKey(hubDir.ppkeys, "root", node.pair.publicKey);
  }
  hub = await startHubProcess(["-w", hubDir.dir, "-p", "0", "-v"]);
});

after(async () => {
  await hub?.stop("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

test("three nodes run tend agent --hub; the trusted two are stored, the third refused", async () => {
  const runs = await Promise.all(
    nodes.map(async (node) => {
      const file = policy(node.dir);
      const run = await tend(["agent", "-K", "-w", node.dir, "-f", file, "--hub", `127.0.0.1:${hub?.port}`]);
      return { node, run, file };
    }),
  );
  for (const { node, run } of runs) {
    assert.equal(run.status, 0, `${node.name}: ${run.stdout}${run.stderr}`);
    assert.match(run.stdout, /R: hello from /);
  }
  const gamma = runs[2]?.run;
  assert.match(
    gamma?.stdout ?? "",
    /warning: Run reports not sent \(1 kept in the spool for the next run\): the hub answered 403: untrusted key MD5=/,
  );
  assert.equal(listSpool(spoolPaths(nodes[2]?.dir as string).spool).length, 1);
  for (const node of nodes.slice(0, 2)) assert.equal(listSpool(spoolPaths(node.dir).spool).length, 0);
  assert.match(
    hub?.log() ?? "",
    new RegExp(`TRUST FAILED, 127.0.0.1 presented an untrusted key ${nodes[2]?.digest}`),
  );

  // alpha runs again: its second run is stored too.
  const again = await tend([
    "agent",
    "-K",
    "-w",
    nodes[0]?.dir as string,
    "-f",
    runs[0]?.file as string,
    "--hub",
    `127.0.0.1:${hub?.port}`,
  ]);
  assert.equal(again.status, 0);

  const made = await tend(["hub", "token", "create", "e2e", "-w", hubDir.dir]);
  assert.equal(made.status, 0, made.stderr);
  token = made.stdout.trim();
  const listed = (await api("/api/v1/nodes", token)).nodes as {
    id: string;
    status: string;
    lastRun: { kept: number; repaired: number; notKept: number; total: number; frontEnd: string };
  }[];
  assert.deepEqual(listed.map((n) => n.id).sort(), [nodes[0]?.digest, nodes[1]?.digest].sort());
  for (const n of listed) {
    assert.equal(n.status, "failed");
    assert.equal(n.lastRun.frontEnd, "agent");
    assert.equal(n.lastRun.notKept, 1, "/bin/false");
  }
  const beta = listed.find((n) => n.id === nodes[1]?.digest);
  assert.deepEqual(
    [beta?.lastRun.kept, beta?.lastRun.repaired],
    [2, 1],
    "present and the report kept, made repaired",
  );
  const alpha = (await api(`/api/v1/nodes/${encodeURIComponent(nodes[0]?.digest as string)}`, token)) as {
    runs: { runId: string; repaired: number }[];
  };
  assert.deepEqual(
    alpha.runs.map((r) => r.repaired),
    [0, 1],
    "the second run found `made` there",
  );
  const results = (await api(`/api/v1/runs/${alpha.runs[0]?.runId}/results`, token)).results as {
    outcome: string;
    type: string;
    promiser: string;
  }[];
  assert.deepEqual(results[0], {
    ...results[0],
    outcome: "failed",
    type: "commands",
    promiser: "/bin/false",
  });
  const lines = (await api(`/api/v1/runs/${alpha.runs[0]?.runId}/lines`, token)).lines as string[];
  assert.deepEqual(lines, [`R: hello from ${nodes[0]?.dir}`]);
});

test("the fleet and node pages show the two stored nodes in Chromium", async (t) => {
  const reason = browserUnavailable();
  if (reason) return t.skip(reason);
  assert.ok(token, "the test before made a token");
  const browser = await launchBrowser();
  t.after(() => browser.close());
  const base = `https://127.0.0.1:${hub?.port}`;
  await browser.context.addCookies([{ name: "tend_token", value: token, url: base }]);
  const page = await browser.context.newPage();
  await page.goto(`${base}/ui/`);
  assert.equal(await page.title(), "Fleet · tend hub");
  assert.equal(await page.locator("#nodes tbody tr").count(), 2, "gamma was refused");
  assert.deepEqual(await page.locator("#nodes tbody tr td:first-child").allTextContents(), [
    "failed",
    "failed",
  ]);
  assert.equal((await page.textContent(".card[data-status=failed] b"))?.trim(), "2");
  const beta = nodes[1]?.digest as string;
  await page.goto(`${base}/ui/nodes/${encodeURIComponent(beta)}`);
  const outcomes = await page.locator("#promises tbody tr td:first-child").allTextContents();
  assert.deepEqual(
    outcomes,
    ["failed", "repaired", "kept", "kept"],
    "failures first: /bin/false, made, present, the report",
  );
  const promisers = await page.locator("#promises tbody tr").allTextContents();
  assert.ok(promisers[0]?.includes("/bin/false"), promisers[0]);
  assert.equal(await page.locator("#runs tbody tr").count(), 1);
});

test("the hub stops on SIGTERM, saying what it did", async () => {
  assert.equal(await hub?.stop("SIGTERM"), 0);
  assert.match(hub?.log() ?? "", /stopped \(3 stored, 0 duplicates, 1 refused\)/);
});
