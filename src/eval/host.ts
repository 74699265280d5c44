/**
 * Facts about this host that hard classes and `sys.*` variables derive
 * from. Gathered once per process with cheap calls only (no subprocesses):
 * this sits on the startup path of `tend check`.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads";
import { DNS_BUDGET_MS, filesFirst, findHostEntry, type HostNames, hostNames } from "./hosts-file.js";
import { compareNaturally } from "./natural-order.js";

export { type HostEntry, hostNames } from "./hosts-file.js";

export interface HostFacts {
  /** The kernel's node name (uname -n) as it is. */
  readonly hostname: string;
  /** `sys.fqhost`: the fully qualified name (see hostNames). */
  readonly fqhost: string;
  /** The aliases the resolver gives for fqhost: each is a hard class, as in 3.21. */
  readonly fqhostAliases?: readonly string[];
  /** The fqhost's IPv4 address as the resolver gives it (see HostNames). */
  readonly fqhostAddress?: string;
  readonly uqhost: string;
  readonly domain: string;
  /** CFEngine's architecture name: x86_64, aarch64, i686... */
  readonly arch: string;
  /** Lower-case kernel name: linux, freebsd, darwin... */
  readonly os: string;
  readonly release: string;
  readonly version: string;
  readonly cpus: number;
  readonly osRelease: Readonly<Record<string, string>>;
  /** /etc/debian_version when present ("12.11"). */
  readonly debianVersion: string | undefined;
  readonly interfaces: readonly { name: string; address: string; family: "IPv4" | "IPv6"; mac: string }[];
  /** The IPv4 default gateway from /proc/net/route, if any. */
  readonly defaultGateway: string | undefined;
  readonly uid: number;
  readonly home: string;
  /** Seconds since boot (/proc/uptime), if known. */
  readonly uptimeSeconds?: number;
  /** The current user's passwd entry, if found. */
  readonly user?: UserEntry;
  /** Interface flags as cf-agent words them ("up broadcast running multicast"), by interface. */
  readonly interfaceFlags?: Readonly<Record<string, string>>;
  /**
   * Ethernet interfaces and their MAC addresses, in the order `ifconfig -a`
   * lists them (by name), including interfaces without addresses.
   */
  readonly macAddresses?: readonly { readonly name: string; readonly mac: string }[];
  /** IPv6 addresses per interface, in the kernel's order (/proc/net/if_inet6), `::1` excluded. */
  readonly ipv6Order?: readonly { readonly name: string; readonly address: string }[];
}

/** A passwd entry. */
export interface UserEntry {
  readonly name: string;
  readonly gecos: string;
  readonly home: string;
  readonly shell: string;
  readonly uid: number;
  readonly gid: number;
}

const ARCH_NAMES: Record<string, string> = { x64: "x86_64", arm64: "aarch64", ia32: "i686", arm: "armv7l" };

let cached: HostFacts | undefined;

/**
 * The facts of this host (memoized). When the host's names need more than
 * /etc/hosts, and prepareHostFacts has not found them first, a worker
 * thread finds them while this one waits (~20 ms more CPU to start it).
 */
export function getHostFacts(): HostFacts {
  if (cached) return cached;
  const hostname = os.hostname();
  cached = detectHostFacts(hostname, namesFromHostsFile(hostname) ?? resolveOnWorker(hostname));
  return cached;
}

/**
 * Finds the facts before getHostFacts is asked, DNS asked on this thread
 * if need be: the commands that evaluate policy call it first. Costs
 * nothing more than getHostFacts when /etc/hosts has the node name.
 */
export async function prepareHostFacts(): Promise<void> {
  if (cached) return;
  const hostname = os.hostname();
  let names = namesFromHostsFile(hostname);
  if (names === undefined) {
    names = await (await loadResolver()).resolveHostNames(hostname, "/etc", process.env);
  }
  cached ??= detectHostFacts(hostname, names);
}

/**
 * The names 3.21 finds (see hostNames) when the first source of
 * nsswitch.conf's hosts line is files (as without one) and /etc/hosts
 * lists the node name: the usual case, read here at no further cost.
 * Anything else (DNS, other sources) is host-resolver.ts's, loaded then.
 */
function namesFromHostsFile(hostname: string): HostNames | undefined {
  if (!filesFirst(readTrimmed("/etc/nsswitch.conf"))) return undefined;
  const hosts = readTrimmed("/etc/hosts");
  const entry = hosts === undefined ? undefined : findHostEntry(hosts, hostname);
  if (entry === undefined) return undefined;
  const names = hostNames(hostname, entry.name);
  // The fqhost is a name of the same line (or the node name): files answer it too.
  const fq = findHostEntry(hosts as string, names.fqhost);
  return { ...names, fqhostAliases: fq?.aliases ?? [], fqhostAddress: fq?.address };
}

type Resolver = typeof import("./host-resolver.js");

/**
 * host-resolver.ts, its own file: the bundle (CommonJS run through
 * node:vm) requires its CommonJS copy beside it, as an import() there goes
 * through a loader Node 20 warns about; the compiled modules import it.
 */
async function loadResolver(): Promise<Resolver> {
  if (import.meta.url.endsWith(".cjs"))
    return createRequire(import.meta.url)("./host-resolver.cjs") as Resolver;
  return (await import(new URL("./host-resolver.js", import.meta.url).href)) as Resolver;
}

/** How long the worker may take: DNS's own bound, and the worker's start. */
const WORKER_WAIT_MS = DNS_BUDGET_MS + 1500;

/** host-resolver.ts on a worker thread (dns-worker.ts), this thread waiting (Atomics.wait). */
function resolveOnWorker(hostname: string): HostNames {
  const shared = new SharedArrayBuffer(4);
  const signal = new Int32Array(shared);
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(new URL("./dns-worker.js", import.meta.url), {
    workerData: { signal: shared, port: port2, hostname },
    transferList: [port2],
    // None of this process's options: `node -e CODE` would have the worker run CODE.
    execArgv: [],
  });
  worker.unref();
  // A worker that fails is waited for no longer (below): its error must not end the process.
  worker.on("error", () => undefined);
  const end = Date.now() + WORKER_WAIT_MS;
  try {
    for (;;) {
      const reply = receiveMessageOnPort(port1);
      if (reply) return reply.message as HostNames;
      const left = end - Date.now();
      // No answer in time (a worker that failed): the node name alone, as without a resolver.
      if (left <= 0) return { ...hostNames(hostname, undefined), fqhostAliases: [] };
      Atomics.wait(signal, 0, 0, left);
    }
  } finally {
    port1.close();
    void worker.terminate().catch(() => undefined);
  }
}

function detectHostFacts(hostname: string, names: HostNames): HostFacts {
  return {
    hostname,
    ...names,
    arch: ARCH_NAMES[os.arch()] ?? os.arch(),
    os: os.platform() === "win32" ? "windows" : os.platform(),
    release: os.release(),
    version: typeof os.version === "function" ? os.version() : "",
    cpus: os.availableParallelism?.() ?? os.cpus().length,
    osRelease: readOsRelease(),
    debianVersion: readTrimmed("/etc/debian_version"),
    interfaces: listInterfaces(),
    defaultGateway: readDefaultGateway(),
    uid: typeof process.getuid === "function" ? process.getuid() : 0,
    home: os.homedir(),
    ...readLinuxFacts(),
  };
}

function readTrimmed(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return undefined;
  }
}

/** Parses /etc/os-release (KEY=value, optionally quoted). */
export function parseOsRelease(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const match = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (!match) continue;
    out[match[1]] = match[2].replace(/^(["'])(.*)\1$/, "$2");
  }
  return out;
}

function readOsRelease(): Record<string, string> {
  const text = readTrimmed("/etc/os-release") ?? readTrimmed("/usr/lib/os-release");
  return text ? parseOsRelease(text) : {};
}

function listInterfaces(): HostFacts["interfaces"] {
  const out: { name: string; address: string; family: "IPv4" | "IPv6"; mac: string }[] = [];
  for (const [name, addresses] of Object.entries(os.networkInterfaces())) {
    for (const a of addresses ?? []) {
      out.push({ name, address: a.address, family: a.family === "IPv6" ? "IPv6" : "IPv4", mac: a.mac });
    }
  }
  return out;
}

/** The gateway of the default route: /proc/net/route holds it as little-endian hex. */
function readDefaultGateway(): string | undefined {
  const table = readTrimmed("/proc/net/route");
  for (const line of table?.split("\n").slice(1) ?? []) {
    const [, destination, gateway] = line.split(/\s+/);
    if (destination !== "00000000" || !gateway) continue;
    const bytes = gateway.match(/../g)?.map((h) => Number.parseInt(h, 16)) ?? [];
    return bytes.reverse().join(".");
  }
  return undefined;
}

/** Facts only Linux's /proc and /sys give; cheap reads, no subprocess. */
function readLinuxFacts(): Partial<HostFacts> {
  const uptime = Number.parseFloat(readTrimmed("/proc/uptime") ?? "");
  return {
    uptimeSeconds: Number.isFinite(uptime) ? uptime : undefined,
    user: readUser(typeof process.getuid === "function" ? process.getuid() : 0),
    interfaceFlags: readInterfaceFlags(),
    macAddresses: readMacAddresses(),
    ipv6Order: readIpv6Order(),
  };
}

function readUser(uid: number): UserEntry | undefined {
  for (const line of (readTrimmed("/etc/passwd") ?? "").split("\n")) {
    const [name, , id, gid, gecos, home, shell] = line.split(":");
    if (Number(id) === uid && shell !== undefined) return { name, gecos, home, shell, uid, gid: Number(gid) };
  }
  return undefined;
}

/** Interface names as /proc/net/dev lists them. */
function listNetDevices(): string[] {
  const text = readTrimmed("/proc/net/dev") ?? "";
  return text
    .split("\n")
    .slice(2)
    .map((line) => line.split(":")[0].trim())
    .filter((name) => name !== "");
}

const FLAG_WORDS: readonly [number, string][] = [
  [0x1, "up"],
  [0x2, "broadcast"],
  [0x4, "debug"],
  [0x8, "loopback"],
  [0x10, "pointopoint"],
  [0x20, "notrailers"],
  [0x40, "running"],
  [0x80, "noarp"],
  [0x100, "promisc"],
  [0x200, "allmulti"],
  [0x1000, "multicast"],
];

function readInterfaceFlags(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of listNetDevices()) {
    let flags = Number.parseInt(readTrimmed(`/sys/class/net/${name}/flags`) ?? "", 16);
    if (!Number.isFinite(flags)) continue;
    // The kernel reports RUNNING through the ioctl, not in /sys: an interface
    // that is up with its operational state up (or unknown, as lo) runs.
    const operstate = readTrimmed(`/sys/class/net/${name}/operstate`);
    if (flags & 0x1 && (operstate === "up" || operstate === "unknown")) flags |= 0x40;
    const words = FLAG_WORDS.filter(([bit]) => flags & bit).map(([, word]) => word);
    if (words.length > 0) out[name] = words.join(" ");
  }
  return out;
}

function readMacAddresses(): { name: string; mac: string }[] {
  const out: { name: string; mac: string }[] = [];
  const names = listNetDevices().sort(compareNaturally);
  for (const name of names) {
    // ifconfig prints an `ether` line for Ethernet devices (ARPHRD_ETHER = 1) only.
    if (readTrimmed(`/sys/class/net/${name}/type`) !== "1") continue;
    const mac = readTrimmed(`/sys/class/net/${name}/address`);
    if (mac) out.push({ name, mac });
  }
  return out;
}

function readIpv6Order(): { name: string; address: string }[] {
  const out: { name: string; address: string }[] = [];
  for (const line of (readTrimmed("/proc/net/if_inet6") ?? "").split("\n")) {
    const [hex, , , , , name] = line.trim().split(/\s+/);
    if (!hex || !name || hex.length !== 32) continue;
    out.push({ name, address: hex });
  }
  return out;
}
