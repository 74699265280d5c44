/**
 * Automatic attributes: the host's facts under Ohai's names, from what
 * tend's agent already gathers (src/eval/host.ts: cheap calls, no
 * subprocesses). Covered: hostname, machinename, fqdn, domain, os,
 * os_version, platform, platform_version, platform_family, kernel (name,
 * release, version, machine, os), cpu.total, memory.total/free,
 * ipaddress, ip6address, macaddress, network.interfaces (addresses with
 * family) and default_gateway, uptime_seconds, current_user, root_group,
 * ohai_time. Ohai's other plugins (dmi, filesystem, packages...) are not.
 */
import * as os from "node:os";
import { getHostFacts, type HostFacts } from "../eval/host.js";
import type { AttributeTree, AttributeValue } from "./model.js";

/** Ohai's platform_family for each os-release ID it knows. */
const FAMILIES: Readonly<Record<string, string>> = {
  debian: "debian",
  ubuntu: "debian",
  linuxmint: "debian",
  raspbian: "debian",
  rhel: "rhel",
  redhat: "rhel",
  centos: "rhel",
  rocky: "rhel",
  almalinux: "rhel",
  ol: "rhel",
  amzn: "amazon",
  fedora: "fedora",
  sles: "suse",
  opensuse: "suse",
  "opensuse-leap": "suse",
  arch: "arch",
  alpine: "alpine",
  gentoo: "gentoo",
};

/** Ohai's platform name for an os-release ID where they differ. */
const PLATFORMS: Readonly<Record<string, string>> = {
  rhel: "redhat",
  ol: "oracle",
  "opensuse-leap": "opensuseleap",
  amzn: "amazon",
};

/** The facts of this host as automatic attributes. */
export function hostAutomaticAttributes(): AttributeTree {
  return automaticAttributes(getHostFacts());
}

/** The automatic attributes for `facts`. */
export function automaticAttributes(facts: HostFacts): AttributeTree {
  const id = facts.osRelease.ID ?? facts.os;
  const platformVersion =
    id === "debian" && facts.debianVersion ? facts.debianVersion : facts.osRelease.VERSION_ID;
  const v4 = facts.interfaces.filter((i) => i.family === "IPv4" && !i.address.startsWith("127."));
  const v6 = facts.interfaces.filter(
    (i) => i.family === "IPv6" && i.address !== "::1" && !i.address.startsWith("fe80"),
  );
  const out: { [key: string]: AttributeValue } = {
    hostname: facts.uqhost,
    machinename: facts.hostname,
    fqdn: facts.fqhost,
    domain: facts.domain,
    os: facts.os,
    os_version: facts.release,
    platform: PLATFORMS[id] ?? id,
    platform_version: platformVersion ?? "",
    platform_family: FAMILIES[id] ?? id,
    kernel: {
      name: kernelName(facts.os),
      release: facts.release,
      version: facts.version,
      machine: facts.arch,
      os: kernelOs(facts.os),
    },
    cpu: { total: facts.cpus },
    memory: { total: `${Math.floor(os.totalmem() / 1024)}kB`, free: `${Math.floor(os.freemem() / 1024)}kB` },
    network: { interfaces: interfaces(facts), default_gateway: facts.defaultGateway ?? null },
    root_group: "root",
    ohai_time: Date.now() / 1000,
  };
  if (v4[0]) out.ipaddress = v4[0].address;
  if (v4[0]?.mac) out.macaddress = v4[0].mac.toUpperCase();
  if (v6[0]) out.ip6address = v6[0].address;
  if (facts.uptimeSeconds !== undefined) out.uptime_seconds = Math.floor(facts.uptimeSeconds);
  if (facts.user) out.current_user = facts.user.name;
  return out;
}

function kernelName(osName: string): string {
  return osName === "linux"
    ? "Linux"
    : osName === "darwin"
      ? "Darwin"
      : osName === "freebsd"
        ? "FreeBSD"
        : osName;
}

function kernelOs(osName: string): string {
  return osName === "linux" ? "GNU/Linux" : kernelName(osName);
}

function interfaces(facts: HostFacts): AttributeValue {
  const out: Record<string, { addresses: Record<string, { family: string }> }> = {};
  for (const i of facts.interfaces) {
    out[i.name] ??= { addresses: {} };
    const entry = out[i.name] as { addresses: Record<string, { family: string }> };
    entry.addresses[i.address] = { family: i.family === "IPv4" ? "inet" : "inet6" };
    if (i.mac && i.mac !== "00:00:00:00:00:00") entry.addresses[i.mac.toUpperCase()] = { family: "lladdr" };
  }
  return out;
}
