/**
 * Facts about this host that hard classes and `sys.*` variables derive
 * from. Gathered once per process with cheap calls only (no subprocesses):
 * this sits on the startup path of `tend check`.
 */
import { readFileSync } from "node:fs";
import * as os from "node:os";

export interface HostFacts {
  readonly hostname: string;
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
  const dot = hostname.indexOf(".");
  return {
    hostname,
    uqhost: dot === -1 ? hostname : hostname.slice(0, dot),
    domain: dot === -1 ? "" : hostname.slice(dot + 1),
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
