/**
 * Runs a fuzz campaign against a server: cases (cases.ts) sent by a few
 * concurrent workers, each reusing a session while the server keeps it
 * open; silent connections held for the whole run (slowloris); floods of
 * connections past maxconnections; and a well-behaved client fetching a
 * file every few hundred milliseconds, whose every fetch must succeed (or be
 * refused the way 3.21 refuses past maxconnections, and succeed after).
 */
import { readdirSync, readFileSync } from "node:fs";
import { ServerConnection } from "../../../src/net/client.js";
import { isNetError } from "../../../src/net/errors.js";
import type { KeyPair } from "../../../src/net/keys.js";
import { type FuzzCase, type FuzzTarget, makeFuzzCase } from "./cases.js";
import { type FuzzPeer, Probe, type Reaction } from "./wire.js";

export interface FuzzOptions {
  readonly peer: FuzzPeer;
  readonly target: FuzzTarget;
  readonly seed: number;
  /** Stop once this many malformed or truncated units were sent. */
  readonly frames: number;
  readonly concurrency: number;
  /** Only cases of these kinds (all when absent). */
  readonly kinds?: readonly string[];
  /** How long to wait for a reaction before calling the server silent (ms). */
  readonly idleMs?: number;
  /** How long a reply must stay quiet to be over (ms). */
  readonly quietMs?: number;
  /** Called now and then with the counts so far. */
  readonly onProgress?: (stats: FuzzStats) => void;
}

export interface FuzzStats {
  cases: number;
  /** Malformed or truncated units written while the connection was open. */
  frames: number;
  connections: number;
  /** Connections the server refused or closed before the point a case strikes. */
  refusedConnections: number;
  reactions: Record<Reaction, number>;
  byKind: Record<string, number>;
}

/** Attempts at one case's connection before the campaign gives up on the server. */
const MAX_CONNECT_FAILURES = 200;

function emptyStats(): FuzzStats {
  return {
    cases: 0,
    frames: 0,
    connections: 0,
    refusedConnections: 0,
    reactions: { reply: 0, closed: 0, silent: 0 },
    byKind: {},
  };
}

/** Opens the connection a case needs, at its stage; undefined when the server refused it. */
async function openFor(fuzzCase: FuzzCase, peer: FuzzPeer, timeoutMs: number): Promise<Probe | undefined> {
  try {
    if (fuzzCase.stage === "tcp") return await Probe.tcp(peer, timeoutMs);
    const probe = await Probe.tls(peer, timeoutMs);
    if (fuzzCase.stage === "tls") return probe;
    if (fuzzCase.stage === "dialog") {
      if ((await probe.line(timeoutMs))?.startsWith("CFE_v")) return probe;
    } else if (await probe.dialog(peer.user, timeoutMs)) return probe;
    probe.destroy();
    return undefined;
  } catch {
    return undefined;
  }
}

/** Runs the campaign to `options.frames`; rejects if the server stops accepting connections. */
export async function runFuzz(options: FuzzOptions): Promise<FuzzStats> {
  const stats = emptyStats();
  const idleMs = options.idleMs ?? 300;
  const quietMs = options.quietMs ?? 15;
  const timeoutMs = Math.max(5000, idleMs * 4);
  let next = 0;
  let lastProgress = 0;
  let stopped = false;

  async function worker(): Promise<void> {
    let session: Probe | undefined;
    let failures = 0;
    while (stats.frames < options.frames && !stopped) {
      const fuzzCase = makeFuzzCase(options.seed, next++, options.target);
      if (options.kinds && !options.kinds.includes(fuzzCase.kind)) continue;
      let probe = fuzzCase.stage === "session" && session && !session.closed ? session : undefined;
      if (!probe) {
        probe = await openFor(fuzzCase, options.peer, timeoutMs);
        stats.connections++;
        if (!probe) {
          stats.refusedConnections++;
          if (++failures > MAX_CONNECT_FAILURES) {
            stopped = true;
            throw new Error(`the server refused ${failures} connections in a row`);
          }
          await new Promise((resolve) => setTimeout(resolve, 20));
          continue;
        }
        failures = 0;
      }
      for (const bytes of fuzzCase.writes)
        if (probe.write(bytes)) stats.frames += fuzzCase.frames / fuzzCase.writes.length;
      stats.cases++;
      stats.byKind[fuzzCase.kind] = (stats.byKind[fuzzCase.kind] ?? 0) + 1;
      // A session outlives a case only if the server answered it and stayed.
      let keep = false;
      if (fuzzCase.ending === "wait") {
        const reaction = await probe.reaction(idleMs, quietMs);
        stats.reactions[reaction]++;
        keep = reaction === "reply" && fuzzCase.stage === "session";
      }
      if (fuzzCase.stage === "session") session = keep ? probe : undefined;
      if (!keep) probe.destroy();
      if (options.onProgress && stats.cases - lastProgress >= 1000) {
        lastProgress = stats.cases;
        options.onProgress(stats);
      }
    }
    session?.destroy();
  }

  await Promise.all(Array.from({ length: options.concurrency }, worker));
  stats.frames = Math.floor(stats.frames);
  return stats;
}

/** Connections held open and silent: `tcp` never starts TLS, `tls` never says its version. */
export interface HeldConnections {
  readonly opened: number;
  /** How many the server has closed so far. */
  closedByServer(): number;
  release(): void;
}

/** Opens `count` silent connections of the given kind, as a slowloris or a flood does. */
export async function holdConnections(
  peer: FuzzPeer,
  count: number,
  kind: "tcp" | "tls",
  timeoutMs = 5000,
): Promise<HeldConnections> {
  const attempts = Array.from({ length: count }, () =>
    (kind === "tcp" ? Probe.tcp(peer, timeoutMs) : Probe.tls(peer, timeoutMs)).catch(() => undefined),
  );
  const probes = (await Promise.all(attempts)).filter((p): p is Probe => p !== undefined);
  return {
    opened: probes.length,
    closedByServer: () => probes.filter((p) => p.closed).length,
    release: () => {
      for (const probe of probes) probe.destroy();
    },
  };
}

/** What the well-behaved client saw. */
export interface WatchStats {
  ok: number;
  /** Refused the way 3.21 refuses past maxconnections (closed before OK WELCOME), and retried. */
  refused: number;
  failed: number;
  failures: string[];
  /** The longest run of refusals before a success. */
  longestRefusalRun: number;
  /** Whether the last fetch was a success (a refusal must be followed by one). */
  lastOk: boolean;
  maxLatencyMs: number;
}

/** One fetch: resolves `ok` or `refused`; rejects with what went wrong. */
export type Fetch = () => Promise<"ok" | "refused">;

/** Fetches every `intervalMs` until stopped; a refusal is retried at once (after 50 ms). */
export function watchServer(fetch: Fetch, intervalMs: number): { stop(): Promise<WatchStats> } {
  const stats: WatchStats = {
    ok: 0,
    refused: 0,
    failed: 0,
    failures: [],
    longestRefusalRun: 0,
    lastOk: true,
    maxLatencyMs: 0,
  };
  let running = true;
  let refusals = 0;
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      let pause = intervalMs;
      try {
        const result = await fetch();
        if (result === "ok") {
          stats.ok++;
          refusals = 0;
          stats.lastOk = true;
        } else {
          stats.refused++;
          stats.longestRefusalRun = Math.max(stats.longestRefusalRun, ++refusals);
          stats.lastOk = false;
          pause = 50;
        }
      } catch (error) {
        stats.failed++;
        stats.lastOk = false;
        if (stats.failures.length < 20) stats.failures.push((error as Error).message);
      }
      stats.maxLatencyMs = Math.max(stats.maxLatencyMs, Date.now() - started);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      // A refusal at the very end must still be followed by a success (within 10 s).
      for (let i = 0; i < 100 && !stats.lastOk; i++) {
        try {
          if ((await fetch()) === "ok") stats.lastOk = true;
          else await new Promise((resolve) => setTimeout(resolve, 100));
        } catch (error) {
          stats.failed++;
          stats.failures.push((error as Error).message);
          break;
        }
      }
      return stats;
    },
  };
}

/**
 * Resident memory of a process and its descendants (a server's helper
 * processes), in kB: now, and the sum of each one's peak so far (VmHWM).
 */
export function residentMemory(pid: number): { rssKb: number; peakKb: number } | undefined {
  const own = processMemory(pid);
  if (!own) return undefined;
  let { rssKb, peakKb } = own;
  for (const child of descendants(pid)) {
    const m = processMemory(child);
    if (!m) continue;
    rssKb += m.rssKb;
    peakKb += m.peakKb;
  }
  return { rssKb, peakKb };
}

function processMemory(pid: number): { rssKb: number; peakKb: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const rss = /VmRSS:\s+(\d+)/.exec(status);
    const peak = /VmHWM:\s+(\d+)/.exec(status);
    return rss && peak ? { rssKb: Number(rss[1]), peakKb: Number(peak[1]) } : undefined;
  } catch {
    return undefined;
  }
}

/** Every process below `pid` (from /proc/<pid>/task/<tid>/children). */
export function descendants(pid: number): number[] {
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.shift() as number;
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${next}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      let children = "";
      try {
        children = readFileSync(`/proc/${next}/task/${task}/children`, "utf8");
      } catch {
        continue;
      }
      for (const child of children
        .split(" ")
        .filter((c) => c !== "")
        .map(Number)) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

/** CPU time (user + system, ms) used so far by a process and its descendants. */
export function cpuTimeMs(pid: number): number | undefined {
  const ticks = (p: number): number | undefined => {
    try {
      const fields = readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
      return Number(fields[11]) + Number(fields[12]);
    } catch {
      return undefined;
    }
  };
  const own = ticks(pid);
  if (own === undefined) return undefined;
  let total = own;
  for (const child of descendants(pid)) total += ticks(child) ?? 0;
  // USER_HZ is 100 on Linux.
  return total * 10;
}

/** The well-behaved client: a key of its own and a ppkeys directory to keep the server's key in. */
export interface AgentIdentity {
  readonly host: string;
  readonly port: number;
  readonly keys: KeyPair;
  readonly ppkeys: string;
}

/**
 * One fetch as an agent does it, with tend's client: connect, STAT, GET,
 * the bytes checked against `expected`. `refused` when the server turned
 * the connection away before OK WELCOME (what 3.21 does past
 * maxconnections: it closes); rejects on anything else.
 */
export async function agentFetch(
  agent: AgentIdentity,
  path: string,
  expected: Buffer,
): Promise<"ok" | "refused"> {
  let connection: ServerConnection;
  try {
    connection = await ServerConnection.connect({
      host: agent.host,
      port: agent.port,
      keys: agent.keys,
      ppkeys: agent.ppkeys,
      user: "root",
      trustServer: true,
      timeoutMs: 10_000,
    });
  } catch (error) {
    if (isNetError(error, "closed") || isNetError(error, "refused")) return "refused";
    throw error;
  }
  try {
    const stat = await connection.stat(path);
    const content = await connection.get(path, stat.size);
    if (!content?.equals(expected))
      throw new Error(`GET ${path}: ${content?.length ?? "no"} bytes, not the file`);
    return "ok";
  } finally {
    connection.close();
  }
}
