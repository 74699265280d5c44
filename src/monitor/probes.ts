/**
 * The built-in Linux probes of cf-monitord 3.21, read from /proc (and the
 * root file system for disk space, /sys/class/block for sector sizes):
 * users and processes, disk free, load, CPU, connections per service and
 * listening ports, I/O and memory. A `ProbeState` keeps what the counters
 * need between samples (CPU ticks, disk counters, log sizes), as 3.21 keeps
 * it in statics. Paths are parameters so tests give a fake /proc.
 */
import { readdirSync, readFileSync, statfsSync, statSync } from "node:fs";
import { join } from "node:path";
import { OBSERVABLE_COUNT, SERVICES, slotOf } from "./observables.js";

export interface ProbeRoots {
  /** /proc */
  readonly proc: string;
  /** /etc/passwd, to name process owners as ps does */
  readonly passwd: string;
  /** The file system whose free space is `diskfree` (/) */
  readonly disk: string;
  /** /sys/class/block */
  readonly sysBlock: string;
  /** The log files whose growth is webaccess, weberrors, syslog, messages */
  readonly logs: { webaccess: string; weberrors: string; syslog: string; messages: string };
}

export const LINUX_ROOTS: ProbeRoots = {
  proc: "/proc",
  passwd: "/etc/passwd",
  disk: "/",
  sysBlock: "/sys/class/block",
  logs: {
    webaccess: "/var/log/apache2/access_log",
    weberrors: "/var/log/apache2/error_log",
    syslog: "/var/log/syslog",
    messages: "/var/log/messages",
  },
};

/** Roots under one directory, for tests: <root>/proc, <root>/etc/passwd... */
export function rootsUnder(root: string): ProbeRoots {
  return {
    proc: join(root, "proc"),
    passwd: join(root, "etc/passwd"),
    disk: root,
    sysBlock: join(root, "sys/class/block"),
    logs: {
      webaccess: join(root, "var/log/apache2/access_log"),
      weberrors: join(root, "var/log/apache2/error_log"),
      syslog: join(root, "var/log/syslog"),
      messages: join(root, "var/log/messages"),
    },
  };
}

/** A listening socket: port and local address. */
export interface Listening {
  readonly port: string;
  readonly address: string;
}

export interface Sample {
  /** One value per observable slot. */
  readonly values: Float64Array;
  /** The users owning processes, as cf_users lists them. */
  readonly users: string[];
  /** Listening ports, newest first as 3.21 prepends them, no duplicates. */
  readonly listening: {
    all: string[];
    tcp4: Listening[];
    tcp6: Listening[];
    udp4: Listening[];
    udp6: Listening[];
  };
  /** Per service and direction (`ssh_in`), the /proc/net lines seen, as 3.21 saves them in cf_incoming.ssh. */
  readonly connections: Map<string, string[]>;
}

/** What the counters remember between samples. */
export class ProbeState {
  readonly cpuQ = new Map<string, number>();
  readonly cpuT = new Map<string, number>();
  readonly disk = new Map<string, { value: number; time: number }>();
  readonly logSizes = new Map<string, number>();
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "latin1");
  } catch {
    return undefined;
  }
}

/** Takes one sample of every built-in probe. `now` is in seconds. */
export function sample(roots: ProbeRoots, state: ProbeState, now: number): Sample {
  const values = new Float64Array(OBSERVABLE_COUNT);
  const users = probeProcesses(roots, values);
  probeDisk(roots, state, values);
  probeCpu(roots, state, values);
  probeLoad(roots, values);
  const { listening, connections } = probeNetwork(roots, values);
  probeIo(roots, state, values, now);
  probeMemory(roots, values);
  return { values, users, listening, connections };
}

// ---------------------------------------------------------------- processes

function passwdNames(path: string): Map<number, string> {
  const names = new Map<number, string>();
  for (const line of (readText(path) ?? "").split("\n")) {
    const fields = line.split(":");
    const uid = Number(fields[2]);
    if (fields.length >= 3 && fields[0] && Number.isInteger(uid) && !names.has(uid))
      names.set(uid, fields[0]);
  }
  return names;
}

/** users, rootprocs, otherprocs: as 3.21 counts `ps` lines by owner (a numeric owner is skipped). */
function probeProcesses(roots: ProbeRoots, values: Float64Array): string[] {
  const names = passwdNames(roots.passwd);
  const users: string[] = [];
  let root = 0;
  let other = 0;
  let entries: string[];
  try {
    entries = readdirSync(roots.proc);
  } catch {
    return users;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const status = readText(join(roots.proc, entry, "status"));
    const uid = status === undefined ? undefined : /^Uid:\s+\d+\s+(\d+)/m.exec(status)?.[1];
    if (uid === undefined) continue;
    const user = names.get(Number(uid));
    if (user === undefined || /^\d/.test(user)) continue;
    if (!users.includes(user)) users.unshift(user);
    if (user === "root") root++;
    else other++;
  }
  values[slotOf("users")] += users.length;
  values[slotOf("rootprocs")] += root;
  values[slotOf("otherprocs")] += other;
  return users;
}

// ---------------------------------------------------------------- disk

function probeDisk(roots: ProbeRoots, state: ProbeState, values: Float64Array): void {
  try {
    const fs = statfsSync(roots.disk);
    const used = fs.blocks - fs.bfree;
    const total = fs.bavail + used;
    values[slotOf("diskfree")] = total > 0 ? Math.trunc((fs.bavail / total) * 100) : 0;
  } catch {
    values[slotOf("diskfree")] = 0;
  }
  for (const [name, path] of Object.entries(roots.logs)) {
    values[slotOf(name)] = fileGrowth(state, name, path);
  }
}

/** Bytes a log grew since the last sample (the first sample: a hundredth of its size). */
function fileGrowth(state: ProbeState, name: string, path: string): number {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return 0;
  }
  const last = state.logSizes.get(name) ?? 0;
  state.logSizes.set(name, size);
  if (last === 0) return Math.trunc(size / 100 + 0.5);
  return Math.trunc(size - last + 0.5);
}

// ---------------------------------------------------------------- CPU and load

function probeCpu(roots: ProbeRoots, state: ProbeState, values: Float64Array): void {
  const text = readText(join(roots.proc, "stat"));
  if (text === undefined) return;
  for (const line of text.split("\n")) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 8) continue;
    const ticks = fields.slice(1, 8).map(Number);
    if (ticks.some((n) => !Number.isFinite(n))) continue;
    const cpu = fields[0] as string;
    let slot: number;
    if (cpu === "cpu") slot = slotOf("cpu");
    else if (/^cpu\d+$/.test(cpu)) {
      const index = Number(cpu.slice(3));
      if (index >= 4) continue;
      slot = slotOf(`cpu${index}`);
    } else return;
    const [user = 0, nice = 0, system = 0, idle = 0] = ticks;
    const total = user + nice + system + idle;
    const q = 100 * (total - idle);
    let dq = (q - (state.cpuQ.get(cpu) ?? 0)) / (total - (state.cpuT.get(cpu) ?? 0));
    if (!(dq <= 100 && dq >= 0)) dq = 50;
    values[slot] = dq;
    state.cpuQ.set(cpu, q);
    state.cpuT.set(cpu, total);
  }
}

/** loadavg: the one-minute load, as getloadavg(…, 1) gives it. */
function probeLoad(roots: ProbeRoots, values: Float64Array): void {
  const first = Number((readText(join(roots.proc, "loadavg")) ?? "").trim().split(/\s+/)[0]);
  values[slotOf("loadavg")] = Number.isFinite(first) ? first : 0;
}

// ---------------------------------------------------------------- network

const LISTEN = 0x0a;

function ipv4(hex: string): string {
  const n = Number.parseInt(hex, 16) >>> 0;
  return [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, (n >>> 24) & 255].join(".");
}

/** An IPv6 address from /proc/net/tcp6's four host-order words, shortened as inet_ntop does. */
function ipv6(hex: string): string {
  const bytes: number[] = [];
  for (let w = 0; w < 4; w++) {
    const word = hex.slice(w * 8, w * 8 + 8);
    for (let b = 3; b >= 0; b--) bytes.push(Number.parseInt(word.slice(b * 2, b * 2 + 2), 16));
  }
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0));
  // IPv4-mapped and compatible forms as glibc prints them.
  if (
    groups.slice(0, 5).every((g) => g === 0) &&
    (groups[5] === 0xffff || (groups[5] === 0 && (groups[6] ?? 0) > 0))
  ) {
    const v4 = bytes.slice(12).join(".");
    if (groups[5] === 0xffff) return `::ffff:${v4}`;
    if (groups[6] !== 0 || (groups[7] ?? 0) > 1) return `::${v4}`;
  }
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hexes = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hexes.join(":");
  return `${hexes.slice(0, bestStart).join(":")}::${hexes.slice(bestStart + bestLen).join(":")}`;
}

function probeNetwork(roots: ProbeRoots, values: Float64Array) {
  const listening = {
    all: [] as string[],
    tcp4: [] as Listening[],
    tcp6: [] as Listening[],
    udp4: [] as Listening[],
    udp6: [] as Listening[],
  };
  const connections = new Map<string, string[]>();
  for (const service of SERVICES) {
    connections.set(`${service.name}_in`, []);
    connections.set(`${service.name}_out`, []);
  }
  const tables = [
    ["tcp", "tcp4", false],
    ["tcp6", "tcp6", true],
    ["udp", "udp4", false],
    ["udp6", "udp6", true],
  ] as const;
  for (const [file, kind, six] of tables) {
    const text = readText(join(roots.proc, "net", file));
    if (text === undefined) continue;
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 4) continue;
      const [localAddr, localPort] = (fields[1] as string).split(":");
      const [remoteAddr, remotePort] = (fields[2] as string).split(":");
      if (!localAddr || !localPort || !remoteAddr || !remotePort) continue;
      const lport = Number.parseInt(localPort, 16);
      const rport = Number.parseInt(remotePort, 16);
      const st = Number.parseInt(fields[3] as string, 16);
      if (![lport, rport, st].every(Number.isFinite)) continue;
      if (st === LISTEN) {
        const port = String(lport);
        const address = six ? ipv6(localAddr) : ipv4(localAddr);
        if (!listening.all.includes(port)) listening.all.unshift(port);
        const list = listening[kind];
        if (!list.some((l) => l.port === port)) list.unshift({ port, address });
      }
      for (const service of SERVICES) {
        if (lport === service.port) {
          values[slotOf(`${service.observable}_in`)]++;
          connections.get(`${service.name}_in`)?.push(line);
        }
        if (rport === service.port) {
          values[slotOf(`${service.observable}_out`)]++;
          connections.get(`${service.name}_out`)?.push(line);
        }
      }
    }
  }
  return { listening, connections };
}

// ---------------------------------------------------------------- I/O and memory

function sectorSize(roots: ProbeRoots, device: string): number {
  const size = Number.parseInt(readText(join(roots.sysBlock, device, "queue/logical_block_size")) ?? "", 10);
  return Number.isFinite(size) ? size : 512;
}

/** Per-second rates from a counter, as 3.21's GetInstantUint32Value (undefined the first time). */
function rate(state: ProbeState, key: string, value: number, now: number): number | undefined {
  const last = state.disk.get(key);
  state.disk.set(key, { value, time: now });
  if (last === undefined) return undefined;
  const diff = value < last.value ? 0x7fffffff - last.value + value : value - last.value;
  const dt = now - last.time;
  if (dt === 0) return undefined;
  return Math.trunc(diff / dt) >>> 0;
}

function probeIo(roots: ProbeRoots, state: ProbeState, values: Float64Array, now: number): void {
  const text = readText(join(roots.proc, "diskstats"));
  if (text === undefined) return;
  let reads = 0;
  let writes = 0;
  let readBytes = 0;
  let writtenBytes = 0;
  for (const line of text.split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10) continue;
    const name = (f[2] as string).replaceAll("/", "!");
    const counters = [f[3], f[5], f[7], f[9]].map((x) => Number(x) >>> 0);
    const [r = 0, rs = 0, w = 0, ws = 0] = counters;
    if (!r && !rs && !w && !ws) continue;
    // 3.21 means to skip partitions and stacked devices, but its checks look at
    // /sys/class/block itself, so it counts every device: so does tend.
    const rr = rate(state, `${name}:reads`, r, now);
    const wr = rate(state, `${name}:writes`, w, now);
    const rsr = rate(state, `${name}:readsectors`, rs, now);
    const wsr = rate(state, `${name}:writtensectors`, ws, now);
    if (rr === undefined) continue;
    const size = sectorSize(roots, name);
    reads += rr;
    writes += wr ?? 0;
    readBytes += (rsr ?? 0) * size;
    writtenBytes += (wsr ?? 0) * size;
  }
  if (reads) values[slotOf("io_reads")] = reads;
  if (writes) values[slotOf("io_writes")] = writes;
  if (readBytes) values[slotOf("io_readdata")] = readBytes / 1024 / 1024;
  if (writtenBytes) values[slotOf("io_writtendata")] = writtenBytes / 1024 / 1024;
}

function probeMemory(roots: ProbeRoots, values: Float64Array): void {
  const text = readText(join(roots.proc, "meminfo"));
  if (text === undefined) return;
  const kb = new Map<string, number>();
  for (const line of text.split("\n")) {
    const m = /^([^:]+):\s*(\d+)/.exec(line);
    if (m) kb.set(m[1] as string, Number(m[2]));
  }
  const mb = (key: string) => (kb.get(key) ?? 0) / 1024;
  values[slotOf("mem_total")] = mb("MemTotal");
  values[slotOf("mem_free")] = mb("MemFree");
  values[slotOf("mem_cached")] = mb("Cached");
  values[slotOf("mem_swap")] = mb("SwapTotal");
  values[slotOf("mem_freeswap")] = mb("SwapFree");
}
