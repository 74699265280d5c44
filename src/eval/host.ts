/**
 * Facts about this host that hard classes and `sys.*` variables derive
 * from. Gathered once per process with cheap calls only (no subprocesses):
 * this sits on the startup path of `tend check`.
 */
import { existsSync, readFileSync } from "node:fs";
import * as os from "node:os";
import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads";
import type { DnsReply, DnsRequest } from "./dns-worker.js";
import { compareNaturally } from "./natural-order.js";
import {
  type DnsResult,
  findHostEntry,
  type HostEntry,
  type NssSource,
  parseNsswitchHosts,
  parseResolvConf,
  type ResolverConfig,
} from "./resolver.js";

export type { HostEntry } from "./resolver.js";

export interface HostFacts {
  /** The kernel's node name (uname -n) as it is. */
  readonly hostname: string;
  /** `sys.fqhost`: the fully qualified name (see hostNames). */
  readonly fqhost: string;
  /** The aliases the resolver gives for fqhost: each is a hard class, as in 3.21. */
  readonly fqhostAliases?: readonly string[];
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

/** The facts of this host (memoized). */
export function getHostFacts(): HostFacts {
  cached ??= detectHostFacts();
  return cached;
}

function detectHostFacts(): HostFacts {
  const hostname = os.hostname();
  // As 3.21: the node name's canonical name, then the fqhost's aliases.
  const resolver = new HostResolver("/etc", hostname, process.env);
  const names = hostNames(hostname, resolver.lookup(hostname)?.name);
  const fqhostAliases = resolver.lookup(names.fqhost)?.aliases ?? [];
  resolver.close();
  return {
    hostname,
    ...names,
    fqhostAliases,
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

/**
 * The host's names as 3.21 computes them (DetectDomainName): the node name
 * in lower case, and the name the resolver gives for it (`dnsname`, the
 * canonical name of gethostbyname). A dnsname with a dot is the fully
 * qualified name; when it extends the node name, the rest is the domain;
 * otherwise the node name is split at its first dot.
 */
export function hostNames(
  nodename: string,
  dnsname: string | undefined,
): { readonly fqhost: string; readonly uqhost: string; readonly domain: string } {
  const node = nodename.toLowerCase();
  const dns = (dnsname ?? "").toLowerCase();
  const fqhost = dns.includes(".") ? dns : node;
  if (fqhost.startsWith(node) && fqhost[node.length] === ".")
    return { fqhost, uqhost: node, domain: fqhost.slice(node.length + 1) };
  const dot = node.indexOf(".");
  if (dot === -1) return { fqhost, uqhost: node, domain: "" };
  return { fqhost, uqhost: node.slice(0, dot), domain: node.slice(dot + 1) };
}

/**
 * What gethostbyname(3) gives for `name`, as far as the files source of
 * nsswitch.conf answers it: the first line of /etc/hosts (IPv4 or IPv6, as
 * glibc answers cf-agent) that lists `name`, in any case. Undefined when
 * nsswitch.conf's hosts line does not use files, or no line lists the name.
 * DNS is not asked (see HostResolver).
 */
export function lookupHostEntry(name: string, etc = "/etc"): HostEntry | undefined {
  return new HostResolver(etc, name, {}, false).lookup(name);
}

/** The longest a try of one DNS server may take, whatever resolv.conf says. */
const DNS_TRY_MS = 1000;
/** The longest all DNS lookups of a resolver may take together: start-up never hangs. */
const DNS_BUDGET_MS = 2000;
/** How much longer than its deadline the worker's answer is waited for. */
const DNS_GRACE_MS = 500;

/**
 * gethostbyname(3) as glibc gives it to cf-agent: nsswitch.conf's hosts
 * sources in order (resolver.ts says which it knows), each status followed
 * by its action. The files are read when a source needs them, once: on the
 * usual path (the name in /etc/hosts) DNS costs nothing. DNS is asked on a
 * worker thread while this one waits, all lookups together bounded by
 * DNS_BUDGET_MS (cf-agent waits glibc's 5 s × 2 attempts per name tried,
 * 40 s at its start when the server is silent): past it, DNS is
 * unavailable, which is what glibc makes of timeouts.
 */
export class HostResolver {
  private sources: NssSource[] | undefined;
  private hosts: string | null | undefined;
  private config: ResolverConfig | undefined;
  private deadline: number | undefined;
  private worker: DnsWorker | undefined;

  constructor(
    private readonly etc: string,
    private readonly nodename: string,
    private readonly env: Readonly<Record<string, string | undefined>>,
    private readonly dns = true,
  ) {}

  /** The entry the first answering source gives for `name`. */
  lookup(name: string): HostEntry | undefined {
    this.sources ??= parseNsswitchHosts(readTrimmed(`${this.etc}/nsswitch.conf`));
    for (const source of this.sources) {
      const { status, entry } = this.ask(source.name, name);
      if (status === "success") return entry;
      if (source.actions[status] === "return") return undefined;
    }
    return undefined;
  }

  /** Ends the DNS worker, if one was started. */
  close(): void {
    void this.worker?.worker.terminate().catch(() => undefined);
    this.worker = undefined;
  }

  private ask(source: string, name: string): DnsResult {
    if (source === "files") {
      if (this.hosts === undefined) this.hosts = readText(`${this.etc}/hosts`) ?? null;
      if (this.hosts === null) return { status: "unavail" };
      const entry = findHostEntry(this.hosts, name);
      return entry ? { status: "success", entry } : { status: "notfound" };
    }
    if (source === "myhostname" && nssModuleInstalled("myhostname")) {
      const wanted = name.toLowerCase().replace(/\.$/, "");
      if (wanted === this.nodename.toLowerCase() || /^(.*\.)?localhost(\.localdomain)?$/.test(wanted))
        return {
          status: "success",
          entry: { name: wanted === this.nodename.toLowerCase() ? this.nodename : wanted, aliases: [] },
        };
      return { status: "notfound" };
    }
    if (source === "dns" && this.dns) return this.askDns(name);
    return { status: "unavail" };
  }

  private askDns(name: string): DnsResult {
    this.config ??= parseResolvConf(readText(`${this.etc}/resolv.conf`), this.nodename, this.env);
    const config = { ...this.config, timeout: Math.min(this.config.timeout, DNS_TRY_MS / 1000) };
    this.deadline ??= Date.now() + DNS_BUDGET_MS;
    if (Date.now() >= this.deadline) return { status: "unavail" };
    this.worker ??= startDnsWorker();
    return this.worker.request(name, config, this.deadline);
  }
}

interface DnsWorker {
  readonly worker: Worker;
  request(name: string, config: ResolverConfig, deadline: number): DnsResult;
}

/** A worker thread running resolver.ts's queries while this thread waits (Atomics.wait). */
function startDnsWorker(): DnsWorker {
  const shared = new SharedArrayBuffer(4);
  const signal = new Int32Array(shared);
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(new URL("./dns-worker.js", import.meta.url), {
    workerData: { signal: shared, port: port2 },
    transferList: [port2],
  });
  worker.unref();
  port1.unref();
  let nextId = 0;
  return {
    worker,
    request(name, config, deadline) {
      const id = ++nextId;
      port1.postMessage({ id, name, config, deadline } satisfies DnsRequest);
      for (;;) {
        const seen = Atomics.load(signal, 0);
        for (let got = receiveMessageOnPort(port1); got; got = receiveMessageOnPort(port1)) {
          const reply = got.message as DnsReply;
          if (reply.id === id) return reply.result;
        }
        const left = deadline + DNS_GRACE_MS - Date.now();
        if (left <= 0) return { status: "unavail" };
        Atomics.wait(signal, 0, seen, left);
      }
    },
  };
}

const MULTIARCH: Record<string, string> = { x64: "x86_64", arm64: "aarch64", ia32: "i386", arm: "arm" };

/**
 * Whether glibc would find the NSS module `name` (libnss_NAME.so.2) in the
 * usual library directories: a source whose module is missing is
 * unavailable, and the next one is asked.
 */
function nssModuleInstalled(name: string): boolean {
  const triplet = `${MULTIARCH[os.arch()] ?? os.arch()}-linux-gnu${os.arch() === "arm" ? "eabihf" : ""}`;
  for (const dir of ["/lib", "/usr/lib", "/lib64", "/usr/lib64", `/lib/${triplet}`, `/usr/lib/${triplet}`])
    if (existsSync(`${dir}/libnss_${name}.so.2`)) return true;
  return false;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
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
