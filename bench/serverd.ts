/**
 * Benchmarks `tend serverd` against cf-serverd 3.21, both in one run, on
 * one policy and one tree, over loopback:
 *
 *   node dist/bench/serverd.js [--quick] [--clients 200] [--files 100]
 *     [--iterations 3] [--warmup 1] [--copies 24] [--interleaved 6]
 *     [--agent-copies 20]
 *     [--no-cf-agent] [--json]
 *
 * Rows:
 * - an unchanged policy tree: `--clients` concurrent clients (tend's
 *   client, src/net), each on its own connection walks a tree of `--files`
 *   files in 5 directories as an agent's update does when nothing changed:
 *   OPENDIR of each directory, then STAT and MD5 (digest compare, "same")
 *   of every file. Requests per second over all clients, and the time until
 *   the last client is done;
 * - a cold copy of the Masterfiles Policy Framework (as bench/mpf.ts finds
 *   it) by tend's client on one connection: OPENDIR, STAT and GET of every
 *   file into an empty directory, checked against the source; `--copies`
 *   pairs, one copy on each server per pair, the ratio the median of the
 *   pairs' with its 95% confidence interval; and `--interleaved` copies
 *   from both servers at once, request by request, the steadiest measure
 *   on a loaded machine, with each request's time by command (median and
 *   90th percentile; serverd-copy.ts);
 * - the same copy by real cf-agent 3.21 (`copy_from` with `depth_search`,
 *   a policy run on a scratch client host), `--agent-copies` pairs, when
 *   it is installed. (The interval of a median over n pairs runs from the
 *   pairs' ratio of rank n/2 - 0.98√n to that of n/2 + 1 + 0.98√n: over 6
 *   pairs it was the lowest to the highest ratio, which a loaded machine
 *   always spreads past 1; hence 24 pairs by tend's client and 20 by
 *   cf-agent, ~15 s more.)
 * - the server's CPU time per request of the unchanged tree and per cold
 *   copy by tend's client (user + system, all its processes), which the
 *   machine's other load disturbs less than the times;
 * - the peak resident memory (VmHWM) of each server over the whole run
 *   (with tend serverd's helper processes when TEND_SERVERD_PROCESSES asks
 *   for them: the sum of their peaks), and the peak of its proportional
 *   set size (PSS, sampled every 250 ms): RSS counts whole the pages a
 *   process shares with others, ~38 MB of them the Node binary's own
 *   code, mapped by every Node process (a bare \`node\` already has them);
 *   PSS counts a shared page by its share.
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
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ServerConnection } from "../src/net/client.js";
import { generateKeyPair, type KeyPair } from "../src/net/keys.js";
import { type Daemon, type Host, type Impl, Lab, tendHas, whyNoReference } from "../test/net/hosts.js";
import { fuzzServerPolicy } from "../test/server/fuzz/campaign.js";
import { cpuTimeMs, descendants, residentMemory } from "../test/server/fuzz/driver.js";
import { median, settle as syncDisks } from "./measure.js";
import { MASTERFILES } from "./mpf.js";
import {
  census,
  coldCopy,
  copyPolicy,
  interleavedCopy,
  type LatencySummary,
  type Latencies,
  noLatencies,
  type PairedRatio,
  pairedRatio,
  type RequestKind,
  sameTree,
  summarizeLatencies,
} from "./serverd-copy.js";

const NAMES: Record<Impl, string> = { tend: "tend serverd", cf: "cf-serverd" };
const DIRECTORIES = 5;
/**
 * Cold copies in each warm-up pass: tend's JIT goes on compiling the
 * functions of GET and OPENDIR for the first ten or twenty copies (its
 * compiler threads took a third of the server's CPU in the first copies,
 * a twentieth after twenty).
 */
const WARMUP_COPIES = 10;

/** One server's measures: medians over the iterations and the copies. */
export interface ServerTiming {
  readonly server: string;
  /** The unchanged tree: wall time until every client was done (ms), and requests per second. */
  readonly unchangedMs: number;
  readonly requestsPerSecond: number;
  /** The server's CPU time (user + system, all its processes) per request of the unchanged tree, µs. */
  readonly cpuUsPerRequest: number | null;
  /** Cold copy of the MPF by tend's client (ms, connection included). */
  readonly copyMs: number;
  /** The server's CPU time (user + system, all its processes) per cold copy by tend's client, ms (mean over the copies). */
  readonly copyCpuMs: number | null;
  /** Each request's time in the interleaved copies, by command. */
  readonly copyLatency: Readonly<Record<RequestKind, LatencySummary | null>>;
  /** Cold copy of the MPF by cf-agent's copy_from (ms), when it ran. */
  readonly cfAgentCopyMs: number | null;
  readonly peakRssKb: number | null;
  /** The highest proportional set size sampled (all its processes). */
  readonly peakPssKb: number | null;
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
  /** Timed cold copies by tend's client per server, and by cf-agent. */
  readonly copies: number;
  /** Interleaved copies (both servers at once, request by request; serverd-copy.ts). */
  readonly interleaved: number;
  readonly agentCopies: number;
  readonly timings: readonly ServerTiming[];
  /** tend serverd / cf-serverd over the pairs of copies (tend's client; cf-agent), when both ran. */
  readonly copyRatio: PairedRatio | null;
  /** The same over the requests of the interleaved copies, each on one server beside the same on the other. */
  readonly interleavedRatio: PairedRatio | null;
  readonly cfAgentCopyRatio: PairedRatio | null;
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

interface Target {
  readonly impl: Impl;
  readonly host: Host;
  readonly daemon: Daemon;
  readonly unchanged: number[];
  readonly rps: number[];
  readonly cpu: number[];
  readonly copy: number[];
  /** CPU ms over all the timed copies by tend's client. */
  copyCpuMs: number | null;
  /** Each request's time in the interleaved copies. */
  readonly latencies: Latencies;
  /** Each request's time in the interleaved copies, in order (the same requests on both servers). */
  readonly interleaved: number[];
  readonly cfAgentCopy: number[];
  idleRssKb: number | null;
  /** The highest PSS sampled so far. */
  peakPssKb: number | null;
}

export interface ServerdOptions {
  clients: number;
  files: number;
  iterations: number;
  warmup?: number;
  /** Pairs of timed cold copies by tend's client (default 24). */
  copies?: number;
  /** Interleaved copies from both servers (default 6). */
  interleaved?: number;
  /** Pairs of timed cold copies by cf-agent (default 20), when `cfAgent`. */
  agentCopies?: number;
  cfAgent: boolean;
  masterfiles: string;
}

/** Everything the rows are measured on. */
interface Setup {
  readonly lab: Lab;
  readonly tree: Tree;
  readonly mpf: string;
  readonly client: Client;
  readonly targets: readonly Target[];
}

export async function runServerdBenchmark(options: ServerdOptions): Promise<ServerdResult> {
  const skipped: string[] = [];
  const lab = new Lab("tend-bench-serverd-");
  let sampler: NodeJS.Timeout | undefined;
  try {
    const tree = makeTree(join(lab.root, "tree"), options.files);
    const mpf = options.masterfiles;
    const noReference = whyNoReference();
    const targets = await startServers(lab, tree, mpf, options.clients, noReference, skipped);
    const ppkeys = join(lab.root, "client-ppkeys");
    mkdirSync(ppkeys, { mode: 0o700 });
    const setup: Setup = { lab, tree, mpf, client: { keys: generateKeyPair(), ppkeys }, targets };
    sampler = setInterval(() => samplePss(targets), 250);
    const agentHost = options.cfAgent && !noReference ? await lab.host("agent") : undefined;
    if (options.cfAgent && noReference) skipped.push(`cf-agent copy_from: ${noReference}`);
    // A first connection each: keys exchanged and trusted on both sides before anything is timed.
    for (const t of targets) (await connect(t.host, setup.client)).close();
    await warmUp(setup, options.warmup ?? 1, options.clients);
    const requestsPerRun = await unchangedRounds(setup, options.iterations, options.clients);
    const copies = options.copies ?? 24;
    await copyRounds(setup, copies);
    const interleaved = targets.length === 2 ? (options.interleaved ?? 6) : 0;
    await interleavedRounds(setup, interleaved);
    const agentCopies = agentHost ? (options.agentCopies ?? 20) : 0;
    if (agentHost) await agentRounds(setup, agentHost, agentCopies);
    clearInterval(sampler);
    samplePss(targets);
    const { files: mpfFiles, bytes: mpfBytes } = census(mpf);
    const [tend, cf] = [targets.find((t) => t.impl === "tend"), targets.find((t) => t.impl === "cf")];
    return {
      clients: options.clients,
      files: options.files,
      requestsPerRun,
      mpfFiles,
      mpfBytes,
      iterations: options.iterations,
      warmup: options.warmup ?? 1,
      copies,
      interleaved,
      agentCopies,
      timings: targets.map(timing),
      copyRatio: tend && cf ? pairedRatio(tend.copy, cf.copy) : null,
      interleavedRatio: tend && cf ? pairedRatio(tend.interleaved, cf.interleaved) : null,
      cfAgentCopyRatio: tend && cf ? pairedRatio(tend.cfAgentCopy, cf.cfAgentCopy) : null,
      skipped,
    };
  } finally {
    clearInterval(sampler);
    await lab.close();
  }
}

/** Each server's PSS (its processes' sum) now, kept when it is the highest yet. */
function samplePss(targets: readonly Target[]): void {
  for (const t of targets) {
    const pid = t.daemon.pid;
    if (pid === undefined) continue;
    let total = 0;
    for (const p of [pid, ...descendants(pid)]) {
      try {
        total += Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${p}/smaps_rollup`, "utf8"))?.[1] ?? 0);
      } catch {
        // A process gone meanwhile.
      }
    }
    if (total > 0 && total > (t.peakPssKb ?? 0)) t.peakPssKb = total;
  }
}

/** Both servers (those there are), each on its own host, tend's first. */
async function startServers(
  lab: Lab,
  tree: Tree,
  mpf: string,
  clients: number,
  noReference: string | undefined,
  skipped: string[],
): Promise<Target[]> {
  const impls: Impl[] = [];
  if (noReference) skipped.push(`cf-serverd: ${noReference}`);
  else impls.push("cf");
  if (tendHas("serverd")) impls.unshift("tend");
  else skipped.push("tend serverd: not on this tree yet");
  const targets: Target[] = [];
  for (const impl of impls) {
    const host = await lab.host(`server-${impl}`);
    const policy = fuzzServerPolicy(host.address, host.port, [tree.root, mpf], clients + 50);
    const daemon = await host.startServer(impl, host.writePolicy("server.cf", policy));
    targets.push({
      impl,
      host,
      daemon,
      unchanged: [],
      rps: [],
      cpu: [],
      copy: [],
      copyCpuMs: null,
      latencies: noLatencies(),
      interleaved: [],
      cfAgentCopy: [],
      idleRssKb: residentMemory(daemon.pid as number)?.rssKb ?? null,
      peakPssKb: null,
    });
  }
  return targets;
}

/** Untimed passes of the unchanged tree and of cold copies (kept: see serverd-copy.ts). */
async function warmUp(setup: Setup, passes: number, clients: number): Promise<void> {
  for (let i = 0; i < passes; i++)
    for (const t of setup.targets) {
      await unchangedLoad(t.host, setup.client, setup.tree, clients);
      const connection = await connect(t.host, setup.client);
      for (let k = 0; k < WARMUP_COPIES; k++)
        await coldCopy(connection, setup.mpf, join(setup.lab.root, `warmup-${t.impl}-${i}-${k}`));
      connection.close();
    }
}

/** The unchanged tree on each server in turn, `iterations` times; the requests of one run. */
async function unchangedRounds(setup: Setup, iterations: number, clients: number): Promise<number> {
  let requestsPerRun = 0;
  for (let i = 0; i < iterations; i++) {
    // Every other iteration the other server goes first: what the one
    // before left running (200 connections closing, this process's
    // garbage) must not always fall on the same server.
    for (const t of alternate(setup.targets, i)) {
      await settle(setup.targets);
      const cpuBefore = cpuTimeMs(t.daemon.pid as number);
      const load = await unchangedLoad(t.host, setup.client, setup.tree, clients);
      const cpuAfter = cpuTimeMs(t.daemon.pid as number);
      if (cpuBefore !== undefined && cpuAfter !== undefined)
        t.cpu.push(((cpuAfter - cpuBefore) * 1000) / load.requests);
      requestsPerRun = load.requests;
      t.unchanged.push(load.ms);
      t.rps.push(load.perSecond);
    }
  }
  return requestsPerRun;
}

/** The targets in order, reversed every other round. */
function alternate(targets: readonly Target[], round: number): readonly Target[] {
  return round % 2 === 0 ? targets : [...targets].reverse();
}

/**
 * `pairs` cold copies by tend's client on each server, one on each in
 * turn (see serverd-copy.ts). Each server's CPU time is summed over its
 * copies: /proc counts it in ticks of 10 ms, half a copy's.
 */
async function copyRounds(setup: Setup, pairs: number): Promise<void> {
  const cpu = new Map<Target, number>();
  for (let k = 0; k < pairs; k++) {
    // What the copies wrote is on disk before the next pair starts.
    syncDisks();
    for (const t of alternate(setup.targets, k)) {
      await settle(setup.targets);
      const dest = join(setup.lab.root, `copy-${t.impl}-${k}`);
      const cpuBefore = cpuTimeMs(t.daemon.pid as number);
      const started = performance.now();
      const connection = await connect(t.host, setup.client);
      await coldCopy(connection, setup.mpf, dest);
      connection.close();
      t.copy.push(performance.now() - started);
      const cpuAfter = cpuTimeMs(t.daemon.pid as number);
      if (cpuBefore !== undefined && cpuAfter !== undefined)
        cpu.set(t, (cpu.get(t) ?? 0) + cpuAfter - cpuBefore);
      if (!sameTree(setup.mpf, dest))
        throw new Error(`${NAMES[t.impl]}: the copy of ${setup.mpf} differs from it`);
    }
  }
  for (const [t, ms] of cpu) t.copyCpuMs = ms / pairs;
}

/** `count` interleaved copies from both servers; each one's request times. */
async function interleavedRounds(setup: Setup, count: number): Promise<void> {
  for (let k = 0; k < count; k++) {
    syncDisks();
    await settle(setup.targets);
    const connections = await Promise.all(setup.targets.map((t) => connect(t.host, setup.client)));
    const latencies = setup.targets.map(() => noLatencies());
    const dests = setup.targets.map((t) => join(setup.lab.root, `interleaved-${t.impl}-${k}`));
    await interleavedCopy(connections, setup.mpf, dests, latencies);
    for (const connection of connections) connection.close();
    setup.targets.forEach((t, i) => {
      const own = latencies[i] as Latencies;
      for (const kind of Object.keys(own) as RequestKind[]) {
        t.latencies[kind].push(...own[kind]);
        t.interleaved.push(...own[kind]);
      }
      if (!sameTree(setup.mpf, dests[i] as string))
        throw new Error(`${NAMES[t.impl]}: the copy of ${setup.mpf} differs from it`);
    });
  }
}

/** `pairs` cold copies by real cf-agent (copy_from) on each server, one on each in turn. */
async function agentRounds(setup: Setup, agentHost: Host, pairs: number): Promise<void> {
  for (let k = 0; k < pairs; k++) {
    syncDisks();
    for (const t of alternate(setup.targets, k)) {
      await settle(setup.targets);
      const dest = join(agentHost.dir, `copy-${t.impl}-${k}`);
      const policy = agentHost.writePolicy(`copy-${t.impl}-${k}.cf`, copyPolicy(t.host, setup.mpf, dest));
      const started = performance.now();
      const run = agentHost.runCf("cf-agent", ["-K", "-f", policy]);
      t.cfAgentCopy.push(performance.now() - started);
      if (run.status !== 0 || !sameTree(setup.mpf, dest))
        throw new Error(
          `cf-agent copy_from ${NAMES[t.impl]} failed (${run.status}): ${run.stdout}${run.stderr}`,
        );
    }
  }
}

function timing(t: Target): ServerTiming {
  return {
    server: NAMES[t.impl],
    unchangedMs: median(t.unchanged),
    requestsPerSecond: median(t.rps),
    cpuUsPerRequest: t.cpu.length > 0 ? median(t.cpu) : null,
    copyMs: median(t.copy),
    copyCpuMs: t.copyCpuMs,
    copyLatency: summarizeLatencies(t.latencies),
    cfAgentCopyMs: t.cfAgentCopy.length > 0 ? median(t.cfAgentCopy) : null,
    peakRssKb: residentMemory(t.daemon.pid as number)?.peakKb ?? null,
    peakPssKb: t.peakPssKb,
    idleRssKb: t.idleRssKb,
  };
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

/** "1.05× (95% CI 0.98–1.12)" */
function paired(r: PairedRatio | null): string {
  return r === null ? "?" : `${r.median.toFixed(2)}× (95% CI ${r.low.toFixed(2)}–${r.high.toFixed(2)})`;
}

/** "STAT 60/90 µs" per command: median and 90th percentile of the requests' times. */
function latencyLine(t: ServerTiming): string {
  const names: Record<RequestKind, string> = { opendir: "OPENDIR", stat: "STAT", get: "GET" };
  return (Object.keys(names) as RequestKind[])
    .map((kind) => {
      const l = t.copyLatency[kind];
      return `${names[kind]} ${l ? `${l.p50Us.toFixed(0)}/${l.p90Us.toFixed(0)}` : "?"}`;
    })
    .join(", ");
}

function render(r: ServerdResult): string {
  const lines = r.skipped.map((s) => `serverd benchmarks: skipped ${s}`);
  const ms = (v: number | null) => (v === null ? "?" : `${v.toFixed(0)} ms`);
  const cpuMs = (v: number | null) => (v === null ? "?" : `${v.toFixed(1)} ms`);
  const mb = (v: number | null) => (v === null ? "?" : `${(v / 1024).toFixed(1)} MB`);
  for (const t of r.timings)
    lines.push(
      `serverd, ${t.server}: ${r.clients} clients × ${r.files} files unchanged (stat + MD5, ${r.requestsPerRun} requests) ${ms(t.unchangedMs)}, ${t.requestsPerSecond.toFixed(0)} req/s, server CPU ${t.cpuUsPerRequest === null ? "?" : t.cpuUsPerRequest.toFixed(0)} µs/request; ` +
        `cold copy of the MPF (${r.mpfFiles} files, ${(r.mpfBytes / 1048576).toFixed(1)} MB) tend client ${ms(t.copyMs)} (server CPU ${cpuMs(t.copyCpuMs)}; request µs median/p90 ${latencyLine(t)}), cf-agent copy_from ${ms(t.cfAgentCopyMs)}; ` +
        `RSS idle ${mb(t.idleRssKb)}, peak ${mb(t.peakRssKb)}; PSS peak ${mb(t.peakPssKb)}`,
    );
  const tend = r.timings.find((t) => t.server === NAMES.tend);
  const cf = r.timings.find((t) => t.server === NAMES.cf);
  if (tend && cf) {
    lines.push(
      `  tend / cf-serverd: throughput ${ratio(tend.requestsPerSecond, cf.requestsPerSecond)} (goal ≥ 1×), unchanged-tree time ${ratio(tend.unchangedMs, cf.unchangedMs)}, CPU per request ${ratio(tend.cpuUsPerRequest, cf.cpuUsPerRequest)}`,
      `  tend / cf-serverd: cold copy ${paired(r.copyRatio)} with tend's client, server CPU ${ratio(tend.copyCpuMs, cf.copyCpuMs)}; interleaved, per request ${paired(r.interleavedRatio)}; ${paired(r.cfAgentCopyRatio)} with cf-agent; peak RSS ${ratio(tend.peakRssKb, cf.peakRssKb)}, peak PSS ${ratio(tend.peakPssKb, cf.peakPssKb)}`,
    );
  }
  lines.push(
    `  (unchanged tree: medians of ${r.iterations} iteration${r.iterations === 1 ? "" : "s"}; cold copies: ${r.copies} by tend's client and ${r.agentCopies} by cf-agent on each server in pairs, and ${r.interleaved} interleaved; ratios the medians of the pairs' (copies, or requests when interleaved); after ${r.warmup} untimed pass${r.warmup === 1 ? "" : "es"} of the unchanged tree and ${WARMUP_COPIES} copies)`,
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
      copies: { type: "string" },
      interleaved: { type: "string" },
      "agent-copies": { type: "string" },
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
    copies: Number(values.copies ?? (values.quick ? 4 : 24)),
    interleaved: Number(values.interleaved ?? (values.quick ? 2 : 6)),
    agentCopies: Number(values["agent-copies"] ?? (values.quick ? 2 : 20)),
    cfAgent: !values["no-cf-agent"],
    masterfiles,
  });
  process.stdout.write(values.json ? `${JSON.stringify(result, null, 2)}\n` : `${render(result)}\n`);
  // Half-closed connections must not keep the process alive.
  process.exit(0);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
