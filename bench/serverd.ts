/**
 * Benchmarks `tend serverd` against cf-serverd 3.21, both in one run, on
 * one policy and one tree, over loopback:
 *
 *   node dist/bench/serverd.js [--quick] [--clients 200] [--files 100]
 *     [--iterations 3] [--warmup 1] [--no-cf-agent] [--json]
 *
 * Rows:
 * - an unchanged policy tree: `--clients` concurrent clients (tend's
 *   client, src/net), each on its own connection walks a tree of `--files`
 *   files in 5 directories as an agent's update does when nothing changed:
 *   OPENDIR of each directory, then STAT and MD5 (digest compare, "same")
 *   of every file. Requests per second over all clients, and the time until
 *   the last client is done;
 * - a cold copy of the Masterfiles Policy Framework (as bench/mpf.ts finds
 *   it) by tend's client on one connection (three per iteration): OPENDIR,
 *   STAT and GET of every file into an empty directory, checked against
 *   the source;
 * - the same copy by real cf-agent 3.21 (`copy_from` with `depth_search`,
 *   a policy run on a scratch client host), when it is installed;
 * - the server's CPU time per request of the unchanged tree and per cold
 *   copy by tend's client (user + system, all its processes), which the
 *   machine's other load disturbs less than the times;
 * - the peak resident memory (VmHWM) of each server over the whole run
 *   (with tend serverd's helper processes when TEND_SERVERD_PROCESSES asks
 *   for them: the sum of their peaks).
 * Both servers run at once, each on its own scratch host (test/net/hosts.ts:
 * cf-serverd in a private mount namespace, tend serverd as a child
 * process); the loads alternate between them within an iteration (which
 * server goes first alternates too), each load starts once both servers
 * are idle (what one load leaves running, such as 200 connections
 * closing, is not charged to the next), and rows give medians. Before
 * anything is timed, each server gets `--warmup` untimed passes of the
 * unchanged tree and of ten cold copies (a server runs for days: what
 * counts is its steady state, and tend's JIT needs a few thousand requests
 * to reach it; cf-serverd is the same before and after). The client runs
 * in this process for both servers, so the client side is the same. The
 * goal (issue 14): tend at least cf-serverd's throughput. A server that is
 * missing is skipped with the reason.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ServerConnection } from "../src/net/client.js";
import { generateKeyPair, type KeyPair } from "../src/net/keys.js";
import { type Daemon, type Host, type Impl, Lab, tendHas, whyNoReference } from "../test/net/hosts.js";
import { fuzzServerPolicy } from "../test/server/fuzz/campaign.js";
import { cpuTimeMs, residentMemory } from "../test/server/fuzz/driver.js";
import { median } from "./measure.js";
import { MASTERFILES } from "./mpf.js";

const NAMES: Record<Impl, string> = { tend: "tend serverd", cf: "cf-serverd" };
const DIRECTORIES = 5;
/**
 * Cold copies in each warm-up pass: tend's JIT goes on compiling the
 * functions of GET and OPENDIR for the first ten or twenty copies (its
 * compiler threads took a third of the server's CPU in the first copies,
 * a twentieth after twenty).
 */
const WARMUP_COPIES = 10;
/** Timed cold copies by tend's client per iteration and server (one copy is short: its time varies). */
const COPIES = 3;

/** One server's measures; medians over the iterations. */
export interface ServerTiming {
  readonly server: string;
  /** The unchanged tree: wall time until every client was done (ms), and requests per second. */
  readonly unchangedMs: number;
  readonly requestsPerSecond: number;
  /** The server's CPU time (user + system, all its processes) per request of the unchanged tree, µs. */
  readonly cpuUsPerRequest: number | null;
  /** Cold copy of the MPF by tend's client (ms). */
  readonly copyMs: number;
  /** The server's CPU time (user + system, all its processes) per cold copy by tend's client, ms. */
  readonly copyCpuMs: number | null;
  /** Cold copy of the MPF by cf-agent's copy_from (ms), when it ran. */
  readonly cfAgentCopyMs: number | null;
  readonly peakRssKb: number | null;
  readonly idleRssKb: number | null;
}

export interface ServerdResult {
  readonly clients: number;
  readonly files: number;
  readonly requestsPerRun: number;
  readonly mpfFiles: number;
  readonly mpfBytes: number;
  readonly iterations: number;
  readonly warmup: number;
  readonly timings: readonly ServerTiming[];
  readonly skipped: readonly string[];
}

interface Client {
  readonly keys: KeyPair;
  readonly ppkeys: string;
}

interface Tree {
  readonly root: string;
  readonly files: readonly { readonly path: string; readonly md5: Buffer }[];
}

/** A policy tree of `count` files of 1 to 8 KiB in 5 directories, with each file's MD5. */
function makeTree(root: string, count: number): Tree {
  const files: { path: string; md5: Buffer }[] = [];
  for (let i = 0; i < count; i++) {
    const dir = join(root, `dir${i % DIRECTORIES}`);
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `file${i}.cf`);
    const content = `# policy file ${i}\n${'bundle agent b { reports: "x"; }\n'.repeat(32 + ((i * 37) % 224))}`;
    writeFileSync(path, content);
    files.push({ path, md5: createHash("md5").update(content).digest() });
  }
  return { root, files };
}

function connect(host: Host, client: Client): Promise<ServerConnection> {
  return ServerConnection.connect({
    host: host.address,
    port: host.port,
    keys: client.keys,
    ppkeys: client.ppkeys,
    user: "root",
    trustServer: true,
    timeoutMs: 120_000,
  });
}

/** One agent's update on an unchanged tree: OPENDIR of each directory, STAT and MD5 of each file. */
async function walkUnchanged(host: Host, client: Client, tree: Tree): Promise<number> {
  const connection = await connect(host, client);
  let requests = 0;
  try {
    for (let d = 0; d < DIRECTORIES; d++) {
      await connection.opendir(join(tree.root, `dir${d}`));
      requests++;
    }
    for (const file of tree.files) {
      await connection.stat(file.path);
      if (await connection.md5Differs(file.path, file.md5))
        throw new Error(`${file.path}: the server's digest differs`);
      requests += 2;
    }
  } finally {
    connection.close();
  }
  return requests;
}

async function unchangedLoad(host: Host, client: Client, tree: Tree, clients: number) {
  const started = performance.now();
  const counts = await Promise.all(Array.from({ length: clients }, () => walkUnchanged(host, client, tree)));
  const ms = performance.now() - started;
  const requests = counts.reduce((a, b) => a + b, 0);
  return { ms, requests, perSecond: requests / (ms / 1000) };
}

/** Copies `remote` (a directory on the server) into `local` with tend's client; returns the files copied. */
async function coldCopy(connection: ServerConnection, remote: string, local: string): Promise<number> {
  mkdirSync(local, { recursive: true });
  let copied = 0;
  for (const name of await connection.opendir(remote)) {
    if (name === "." || name === "..") continue;
    const from = join(remote, name);
    const stat = await connection.stat(from);
    if (stat.type === "dir") copied += await coldCopy(connection, from, join(local, name));
    else if (stat.type === "file") {
      writeFileSync(join(local, name), (await connection.get(from, stat.size)) ?? Buffer.alloc(0));
      copied++;
    }
  }
  return copied;
}

/** Files and bytes under `dir` (regular files only). */
function census(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    files++;
    bytes += statSync(join(entry.parentPath, entry.name)).size;
  }
  return { files, bytes };
}

/** cf-agent's policy: a recursive copy_from of `source` on `server` into `dest`. */
function copyPolicy(server: Host, source: string, dest: string): string {
  return `body common control { bundlesequence => { "copy" }; }
bundle agent copy {
  files:
    "${dest}/."
      create => "true",
      copy_from => remote("${source}", "${server.address}", "${server.port}"),
      depth_search => all;
}
body copy_from remote(from, server, port) {
  source => "$(from)";
  servers => { "$(server)" };
  portnumber => "$(port)";
  trustkey => "true";
  compare => "digest";
}
body depth_search all { depth => "inf"; }
`;
}

function same(a: string, b: string): boolean {
  const x = census(a);
  const y = census(b);
  return x.files === y.files && x.bytes === y.bytes;
}

interface Target {
  readonly impl: Impl;
  readonly host: Host;
  readonly daemon: Daemon;
  readonly unchanged: number[];
  readonly rps: number[];
  readonly cpu: number[];
  readonly copy: number[];
  readonly copyCpu: number[];
  readonly cfAgentCopy: number[];
  idleRssKb: number | null;
}

export async function runServerdBenchmark(options: {
  clients: number;
  files: number;
  iterations: number;
  warmup?: number;
  cfAgent: boolean;
  masterfiles: string;
}): Promise<ServerdResult> {
  const skipped: string[] = [];
  const lab = new Lab("tend-bench-serverd-");
  try {
    const tree = makeTree(join(lab.root, "tree"), options.files);
    const mpf = options.masterfiles;
    const targets: Target[] = [];
    const impls: Impl[] = [];
    const noReference = whyNoReference();
    if (noReference) skipped.push(`cf-serverd: ${noReference}`);
    else impls.push("cf");
    if (tendHas("serverd")) impls.unshift("tend");
    else skipped.push("tend serverd: not on this tree yet");
    for (const impl of impls) {
      const host = await lab.host(`server-${impl}`);
      const policy = fuzzServerPolicy(host.address, host.port, [tree.root, mpf], options.clients + 50);
      const daemon = await host.startServer(impl, host.writePolicy("server.cf", policy));
      targets.push({
        impl,
        host,
        daemon,
        unchanged: [],
        rps: [],
        cpu: [],
        copy: [],
        copyCpu: [],
        cfAgentCopy: [],
        idleRssKb: residentMemory(daemon.pid as number)?.rssKb ?? null,
      });
    }
    const ppkeys = join(lab.root, "client-ppkeys");
    mkdirSync(ppkeys, { mode: 0o700 });
    const client: Client = { keys: generateKeyPair(), ppkeys };
    const agentHost = options.cfAgent && !noReference ? await lab.host("agent") : undefined;
    if (options.cfAgent && noReference) skipped.push(`cf-agent copy_from: ${noReference}`);
    // A first connection each: keys exchanged and trusted on both sides before anything is timed.
    for (const t of targets) (await connect(t.host, client)).close();
    for (let i = 0; i < (options.warmup ?? 1); i++)
      for (const t of targets) {
        await unchangedLoad(t.host, client, tree, options.clients);
        const connection = await connect(t.host, client);
        for (let k = 0; k < WARMUP_COPIES; k++) {
          const dest = join(lab.root, `warmup-${t.impl}-${i}-${k}`);
          await coldCopy(connection, mpf, dest);
          rmSync(dest, { recursive: true });
        }
        connection.close();
      }

    let requestsPerRun = 0;
    for (let i = 0; i < options.iterations; i++) {
      // Every other iteration the other server goes first: what the one
      // before left running (200 connections closing, this process's
      // garbage) must not always fall on the same server.
      const order = i % 2 === 0 ? targets : [...targets].reverse();
      for (const t of order) {
        await settle(targets);
        const cpuBefore = cpuTimeMs(t.daemon.pid as number);
        const load = await unchangedLoad(t.host, client, tree, options.clients);
        const cpuAfter = cpuTimeMs(t.daemon.pid as number);
        if (cpuBefore !== undefined && cpuAfter !== undefined)
          t.cpu.push(((cpuAfter - cpuBefore) * 1000) / load.requests);
        requestsPerRun = load.requests;
        t.unchanged.push(load.ms);
        t.rps.push(load.perSecond);
      }
      // A server's copies one after the other, its CPU time over them all:
      // the clock ticks of /proc are 10 ms, a third of a copy's.
      for (const t of order) {
        await settle(targets);
        const cpuBefore = cpuTimeMs(t.daemon.pid as number);
        for (let k = 0; k < COPIES; k++) {
          const dest = join(lab.root, `copy-${t.impl}-${i}-${k}`);
          const started = performance.now();
          const connection = await connect(t.host, client);
          await coldCopy(connection, mpf, dest);
          connection.close();
          t.copy.push(performance.now() - started);
          if (!same(mpf, dest)) throw new Error(`${NAMES[t.impl]}: the copy of ${mpf} differs from it`);
          rmSync(dest, { recursive: true });
        }
        const cpuAfter = cpuTimeMs(t.daemon.pid as number);
        if (cpuBefore !== undefined && cpuAfter !== undefined)
          t.copyCpu.push((cpuAfter - cpuBefore) / COPIES);
      }
      if (agentHost)
        for (const t of order) {
          await settle(targets);
          const dest = join(agentHost.dir, `copy-${t.impl}-${i}`);
          const policy = agentHost.writePolicy(`copy-${t.impl}-${i}.cf`, copyPolicy(t.host, mpf, dest));
          const started = performance.now();
          const run = agentHost.runCf("cf-agent", ["-K", "-f", policy]);
          t.cfAgentCopy.push(performance.now() - started);
          if (run.status !== 0 || !same(mpf, dest))
            throw new Error(
              `cf-agent copy_from ${NAMES[t.impl]} failed (${run.status}): ${run.stdout}${run.stderr}`,
            );
        }
    }
    const { files: mpfFiles, bytes: mpfBytes } = census(mpf);
    const timings = targets.map((t) => ({
      server: NAMES[t.impl],
      unchangedMs: median(t.unchanged),
      requestsPerSecond: median(t.rps),
      cpuUsPerRequest: t.cpu.length > 0 ? median(t.cpu) : null,
      copyMs: median(t.copy),
      copyCpuMs: t.copyCpu.length > 0 ? median(t.copyCpu) : null,
      cfAgentCopyMs: t.cfAgentCopy.length > 0 ? median(t.cfAgentCopy) : null,
      peakRssKb: residentMemory(t.daemon.pid as number)?.peakKb ?? null,
      idleRssKb: t.idleRssKb,
    }));
    return {
      clients: options.clients,
      files: options.files,
      requestsPerRun,
      mpfFiles,
      mpfBytes,
      iterations: options.iterations,
      warmup: options.warmup ?? 1,
      timings,
      skipped,
    };
  } finally {
    await lab.close();
  }
}

/**
 * Waits (at most 3 s) until no server uses CPU for 100 ms: a load's
 * aftermath (connections closing, threads ending, collected garbage) is
 * not charged to the next load, whichever server it is on.
 */
async function settle(targets: readonly Target[]): Promise<void> {
  // Idle: no more than a clock tick (10 ms) of CPU in 100 ms.
  const busy = () => targets.reduce((sum, t) => sum + (cpuTimeMs(t.daemon.pid as number) ?? 0), 0);
  const deadline = performance.now() + 3000;
  let before = busy();
  while (performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = busy();
    if (now - before <= 10) return;
    before = now;
  }
}

function ratio(a: number | null, b: number | null): string {
  return a === null || b === null || b === 0 ? "?" : `${(a / b).toFixed(2)}×`;
}

function render(r: ServerdResult): string {
  const lines = r.skipped.map((s) => `serverd benchmarks: skipped ${s}`);
  const ms = (v: number | null) => (v === null ? "?" : `${v.toFixed(0)} ms`);
  const mb = (v: number | null) => (v === null ? "?" : `${(v / 1024).toFixed(1)} MB`);
  for (const t of r.timings)
    lines.push(
      `serverd, ${t.server}: ${r.clients} clients × ${r.files} files unchanged (stat + MD5, ${r.requestsPerRun} requests) ${ms(t.unchangedMs)}, ${t.requestsPerSecond.toFixed(0)} req/s, server CPU ${t.cpuUsPerRequest === null ? "?" : t.cpuUsPerRequest.toFixed(0)} µs/request; ` +
        `cold copy of the MPF (${r.mpfFiles} files, ${(r.mpfBytes / 1048576).toFixed(1)} MB) tend client ${ms(t.copyMs)} (server CPU ${ms(t.copyCpuMs)}), cf-agent copy_from ${ms(t.cfAgentCopyMs)}; ` +
        `RSS idle ${mb(t.idleRssKb)}, peak ${mb(t.peakRssKb)}`,
    );
  const tend = r.timings.find((t) => t.server === NAMES.tend);
  const cf = r.timings.find((t) => t.server === NAMES.cf);
  if (tend && cf) {
    lines.push(
      `  tend / cf-serverd: throughput ${ratio(tend.requestsPerSecond, cf.requestsPerSecond)} (goal ≥ 1×), unchanged-tree time ${ratio(tend.unchangedMs, cf.unchangedMs)}, CPU per request ${ratio(tend.cpuUsPerRequest, cf.cpuUsPerRequest)}`,
      `  tend / cf-serverd: cold copy ${ratio(tend.copyMs, cf.copyMs)} (tend client; server CPU ${ratio(tend.copyCpuMs, cf.copyCpuMs)}), ${ratio(tend.cfAgentCopyMs, cf.cfAgentCopyMs)} (cf-agent); peak RSS ${ratio(tend.peakRssKb, cf.peakRssKb)}`,
    );
  }
  lines.push(
    `  (medians of ${r.iterations} iteration${r.iterations === 1 ? "" : "s"}, after ${r.warmup} untimed pass${r.warmup === 1 ? "" : "es"} of the unchanged tree and ${WARMUP_COPIES} copies)`,
  );
  return lines.join("\n");
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean" },
      clients: { type: "string" },
      files: { type: "string" },
      iterations: { type: "string" },
      warmup: { type: "string" },
      "no-cf-agent": { type: "boolean" },
      masterfiles: { type: "string" },
      json: { type: "boolean" },
    },
  });
  const masterfiles = values.masterfiles ?? MASTERFILES.find((dir) => existsSync(join(dir, "promises.cf")));
  if (!masterfiles) {
    process.stdout.write("serverd benchmarks: skipped, no masterfiles (apt-get install cfengine3)\n");
    return;
  }
  const result = await runServerdBenchmark({
    clients: Number(values.clients ?? (values.quick ? 50 : 200)),
    files: Number(values.files ?? 100),
    iterations: Number(values.iterations ?? (values.quick ? 1 : 3)),
    warmup: Number(values.warmup ?? 1),
    cfAgent: !values["no-cf-agent"],
    masterfiles,
  });
  process.stdout.write(values.json ? `${JSON.stringify(result, null, 2)}\n` : `${render(result)}\n`);
  // Half-closed connections must not keep the process alive.
  process.exit(0);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
