/**
 * One whole fuzz campaign against one server, as the must-show run and the
 * in-suite test both run it: a scratch tree (an admitted directory with
 * links that lead out of it, and a sibling that is not admitted), the server
 * started as a child process, silent connections held throughout
 * (slowloris), floods past maxconnections now and then, the cases, and the
 * well-behaved client; memory sampled throughout.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateKeyPair } from "../../../src/net/keys.js";
import { type Daemon, type Impl, Lab } from "../../net/hosts.js";
import type { FuzzTarget } from "./cases.js";
import {
  agentFetch,
  type FuzzStats,
  holdConnections,
  residentMemory,
  runFuzz,
  type AgentIdentity,
  type WatchStats,
  watchServer,
} from "./driver.js";
import { makePeer } from "./wire.js";

/** The two servers, by the name the reports give them. */
export const SERVER_NAMES: Record<Impl, string> = { cf: "cf-serverd", tend: "tend serverd" };

/**
 * The policy both servers run: connections and first-use key trust from
 * loopback, several connections per peer, `maxconnections`, and `admit`
 * (directories) admitted to loopback.
 */
export function fuzzServerPolicy(
  address: string,
  port: number,
  admit: readonly string[],
  maxConnections: number,
  legacy = false,
): string {
  return [
    "body common control { bundlesequence => { }; }",
    "bundle agent main { }",
    "body server control {",
    `  port => "${port}";`,
    `  bindtointerface => "${address}";`,
    '  allowconnects => { "127.0.0.0/8" };',
    '  allowallconnects => { "127.0.0.0/8" };',
    '  trustkeysfrom => { "127.0.0.0/8" };',
    '  allowusers => { "root" };',
    `  maxconnections => "${maxConnections}";`,
    ...(legacy ? ['  allowlegacyconnects => { "127.0.0.0/8" };'] : []),
    "}",
    "bundle server access {",
    "  access:",
    ...admit.map((dir) => `    "${dir}/" admit_ips => { "127.0.0.0/8" };`),
    "}",
    "",
  ].join("\n");
}

export interface CampaignOptions {
  readonly server: Impl;
  readonly seed: number;
  readonly frames: number;
  readonly concurrency: number;
  /** Only cases of these kinds (all when absent). */
  readonly kinds?: readonly string[];
  /** Silent connections of each kind (bare TCP, TLS) held for the whole run. */
  readonly slowloris: number;
  readonly maxConnections: number;
  /** Connections opened at once by each flood (0: no floods). */
  readonly flood: number;
  /** Time between floods (ms). */
  readonly floodEveryMs: number;
  /** Time between two fetches of the well-behaved client (ms). */
  readonly watchEveryMs: number;
  /** Serve the classic protocol too (allowlegacyconnects), so that its key dialogue is reached. */
  readonly legacy?: boolean;
  readonly onProgress?: (line: string) => void;
}

export interface MemoryTrace {
  readonly startKb: number;
  /** The highest of the samples taken every 250 ms during the run. */
  readonly peakKb: number;
  readonly endKb: number;
  readonly samples: number;
  /** Resident memory as the run went on: one point every 1,000 cases, and the end. */
  readonly curve: readonly CurvePoint[];
}

export interface CurvePoint {
  readonly seconds: number;
  readonly frames: number;
  readonly rssKb: number;
}

export interface CampaignResult {
  readonly server: Impl;
  readonly fuzz: FuzzStats | undefined;
  readonly fuzzError?: string;
  readonly watch: WatchStats;
  readonly memory: MemoryTrace | undefined;
  readonly floods: number;
  /** Connections refused or dropped by the server in floods (of all opened). */
  readonly floodDropped: number;
  /** Slowloris connections the server closed before the end. */
  readonly slowlorisClosed: number;
  readonly slowlorisOpened: number;
  readonly aliveAtEnd: boolean;
  readonly seconds: number;
  readonly log: string;
}

/** The scratch tree: `tree/` admitted, with links out; `tree-other/` not admitted. */
export function makeFuzzTree(dir: string): FuzzTarget & { readonly content: Buffer } {
  const root = join(dir, "tree");
  mkdirSync(join(root, "sub"), { recursive: true });
  mkdirSync(`${root}-other`, { recursive: true });
  writeFileSync(`${root}-other/secret`, "not admitted\n");
  const content = Buffer.from(`${"well-behaved client's file\n".repeat(200)}`);
  const file = join(root, "file.txt");
  writeFileSync(file, content);
  writeFileSync(join(root, "sub", "inner"), "inner\n");
  symlinkSync("/etc", join(root, "escape-dir"));
  symlinkSync("/etc/passwd", join(root, "escape-file"));
  symlinkSync("..", join(root, "escape-dotdot"));
  symlinkSync(`${root}-other/secret`, join(root, "escape-sibling"));
  return { root, file, content };
}

/** Runs the campaign; never throws for what the server does (that is in the result). */
export async function runCampaign(options: CampaignOptions): Promise<CampaignResult> {
  const started = Date.now();
  const lab = new Lab("tend-fuzz-serverd-");
  try {
    const host = await lab.host("server");
    const tree = makeFuzzTree(host.data);
    const policy = host.writePolicy(
      "server.cf",
      fuzzServerPolicy(host.address, host.port, [tree.root], options.maxConnections, options.legacy === true),
    );
    const server = await host.startServer(options.server, policy);
    const agentDir = join(lab.root, "agent-ppkeys");
    mkdirSync(agentDir, { mode: 0o700 });
    const agent = { host: host.address, port: host.port, keys: generateKeyPair(), ppkeys: agentDir };
    return await campaignOn(server, agent, tree, options, started);
  } finally {
    await lab.close();
  }
}

async function campaignOn(
  server: Daemon,
  agent: AgentIdentity,
  tree: FuzzTarget & { readonly content: Buffer },
  options: CampaignOptions,
  started: number,
): Promise<CampaignResult> {
  const pid = server.pid as number;
  const peer = makePeer(agent.host, agent.port);
  const fetch = () => agentFetch(agent, tree.file, tree.content);
  const progress = options.onProgress ?? (() => {});
  // Memory: the first sample once the server has served one client.
  await fetch();
  const first = residentMemory(pid);
  const curve: CurvePoint[] = first ? [{ seconds: 0, frames: 0, rssKb: first.rssKb }] : [];
  const mark = (frames: number): void => {
    const rss = residentMemory(pid)?.rssKb;
    if (rss !== undefined) curve.push({ seconds: (Date.now() - started) / 1000, frames, rssKb: rss });
  };
  let samples = 0;
  let peakKb = first?.rssKb ?? 0;
  const sampler = setInterval(() => {
    const now = residentMemory(pid);
    if (!now) return;
    samples++;
    peakKb = Math.max(peakKb, now.rssKb);
  }, 250);

  const watcher = watchServer(fetch, options.watchEveryMs);
  const heldTcp = await holdConnections(peer, options.slowloris, "tcp");
  const heldTls = await holdConnections(peer, options.slowloris, "tls");

  let floods = 0;
  let floodDropped = 0;
  let flooding = Promise.resolve();
  const floodTimer =
    options.flood > 0
      ? setInterval(() => {
          flooding = flooding.then(async () => {
            const held = await holdConnections(peer, options.flood, "tcp");
            await new Promise((resolve) => setTimeout(resolve, 1500));
            floods++;
            floodDropped += options.flood - held.opened + held.closedByServer();
            held.release();
          });
        }, options.floodEveryMs)
      : undefined;

  let fuzz: FuzzStats | undefined;
  let fuzzError: string | undefined;
  try {
    fuzz = await runFuzz({
      peer,
      target: tree,
      seed: options.seed,
      frames: options.frames,
      concurrency: options.concurrency,
      ...(options.kinds ? { kinds: options.kinds } : {}),
      onProgress: (s) => {
        mark(s.frames);
        progress(
          `${s.frames} frames, ${s.cases} cases, ${s.connections} connections, RSS ${residentMemory(pid)?.rssKb ?? "?"} kB`,
        );
      },
    });
  } catch (error) {
    fuzzError = (error as Error).message;
  }
  if (floodTimer) clearInterval(floodTimer);
  await flooding;
  const watch = await watcher.stop();
  const slowlorisClosed = heldTcp.closedByServer() + heldTls.closedByServer();
  heldTcp.release();
  heldTls.release();
  clearInterval(sampler);
  const last = residentMemory(pid);
  if (last)
    curve.push({ seconds: (Date.now() - started) / 1000, frames: fuzz?.frames ?? 0, rssKb: last.rssKb });
  const memory =
    first && last
      ? { startKb: first.rssKb, peakKb: Math.max(peakKb, last.rssKb), endKb: last.rssKb, samples, curve }
      : undefined;
  return {
    server: server.impl,
    fuzz,
    ...(fuzzError === undefined ? {} : { fuzzError }),
    watch,
    memory,
    floods,
    floodDropped,
    slowlorisClosed,
    slowlorisOpened: heldTcp.opened + heldTls.opened,
    aliveAtEnd: server.running,
    seconds: (Date.now() - started) / 1000,
    log: server.log,
  };
}
