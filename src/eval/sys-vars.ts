/**
 * The `sys.*` and `const.*` variables 3.21 defines before reading policy,
 * limited to what loading and pre-evaluation need.
 */
import { inet6Data, inetData, interfacesData } from "./sys-net.js";
import { existsSync } from "node:fs";
import { posix } from "node:path";
import type { EvalContext } from "./context.js";
import type { HostFacts } from "./host.js";
import { compareNaturally } from "./natural-order.js";
import { strftime } from "./functions/strftime.js";
import { type JsonValue, type Value, data, list, scalar } from "./values.js";

export const CF_VERSION = "3.21.0";

/** Where the agent's directories are; defaults follow 3.21 on Linux. */
export interface AgentDirectories {
  /** `/var/lib/cfengine3` for root, `~/.cfagent` otherwise. */
  readonly workdir?: string;
  /** `$(workdir)/inputs` unless given. */
  readonly inputdir?: string;
}

export interface ResolvedDirectories {
  readonly workdir: string;
  readonly inputdir: string;
  readonly masterdir: string;
  readonly statedir: string;
}

export function resolveDirectories(facts: HostFacts, dirs: AgentDirectories = {}): ResolvedDirectories {
  const workdir =
    dirs.workdir ?? (facts.uid === 0 ? "/var/lib/cfengine3" : posix.join(facts.home, ".cfagent"));
  return {
    workdir,
    inputdir: dirs.inputdir ?? posix.join(workdir, "inputs"),
    masterdir: posix.join(workdir, "masterfiles"),
    statedir: posix.join(workdir, "state"),
  };
}

/** The distribution flavour: `debian_12`, `ubuntu_22`, `redhat_9`... */
export function flavorOf(facts: HostFacts): string {
  const id = facts.osRelease.ID ?? facts.os;
  const major = (facts.osRelease.VERSION_ID ?? "").split(".")[0];
  const family = id === "rhel" ? "redhat" : id;
  return major ? `${family}_${major}` : family;
}

/** A variable 3.21 defines before reading policy: lval, value, tags. */
type SysEntry = readonly [lval: string, value: Value, tags: readonly string[]];

const AGENT = ["source=agent"];
const INVENTORY = (attribute: string) => ["inventory", "source=agent", `attribute_name=${attribute}`];
const TIME = ["time_based", "source=agent"];

/** The CFEngine programs whose paths 3.21 puts in `sys.cf_*` when they exist in `bindir`. */
const COMPONENTS = [
  "cf-twin",
  "cf-agent",
  "cf-serverd",
  "cf-monitord",
  "cf-know",
  "cf-report",
  "cf-key",
  "cf-runagent",
  "cf-execd",
  "cf-hub",
  "cf-reactor",
  "cf-promises",
  "cf-upgrade",
  "cf-net",
  "cf-check",
  "cf-secret",
];

function sysValues(facts: HostFacts, dirs: ResolvedDirectories, now: Date): SysEntry[] {
  const [major, minor, patch] = CF_VERSION.split(".");
  const flavor = flavorOf(facts);
  const seconds = Math.floor(now.getTime() / 1000);
  // As cf-agent: under CFENGINE_TEST_OVERRIDE_WORKDIR the tools are in `<workdir>/bin`
  // (the acceptance suite puts them there), and logs and pids in the work directory.
  const override = process.env.CFENGINE_TEST_OVERRIDE_WORKDIR !== undefined;
  const bindir = override ? posix.join(dirs.workdir, "bin") : "/usr/bin";
  const str = (text: string) => scalar(text);
  const values: SysEntry[] = [
    ["host", str(facts.hostname.toLowerCase()), INVENTORY("none")],
    ["uqhost", str(facts.uqhost), INVENTORY("none")],
    ["fqhost", str(facts.fqhost), INVENTORY("Host name")],
    ["domain", str(facts.domain), AGENT],
    ["cpus", str(String(facts.cpus)), INVENTORY("CPU logical cores")],
    ["systime", scalar(String(seconds), "int"), TIME],
    ["sysday", scalar(String(Math.floor(seconds / 86400)), "int"), TIME],
  ];
  if (facts.uptimeSeconds !== undefined) {
    const minutes = String(Math.floor(facts.uptimeSeconds / 60));
    values.push([
      "uptime",
      scalar(minutes, "int"),
      ["inventory", "time_based", "source=agent", "attribute_name=Uptime minutes"],
    ]);
  }
  values.push(
    ["class", str(facts.os), INVENTORY("Kernel")],
    ["date", str(formatLocal("%a %b %e %H:%M:%S %Y", now)), TIME],
    ["cdate", str(formatLocal("%a_%b_%e_%H_%M_%S_%Y", now).replace(/ /g, "_")), TIME],
    ["os", str(facts.os), AGENT],
    ["release", str(facts.release), INVENTORY("Kernel Release")],
    ["version", str(facts.version), AGENT],
    ["arch", str(facts.arch), INVENTORY("Architecture")],
    ["workdir", str(dirs.workdir), AGENT],
    ["fstab", str("/etc/fstab"), AGENT],
    ["resolv", str("/etc/resolv.conf"), AGENT],
    ["maildir", str("/var/spool/mail"), AGENT],
    ["exports", str("/etc/exports"), AGENT],
    ["logdir", str(override ? dirs.workdir : "/var/log/cfengine3"), AGENT],
    ["piddir", str(override ? dirs.workdir : "/var/run/cfengine3"), AGENT],
    ["statedir", str(dirs.statedir), AGENT],
    ["masterdir", str(dirs.masterdir), AGENT],
    ["inputdir", str(dirs.inputdir), AGENT],
    ["bindir", str(bindir), AGENT],
    ["default_policy_path", str(posix.join(dirs.inputdir, "promises.cf")), AGENT],
    ["failsafe_policy_path", str(posix.join(dirs.inputdir, "failsafe.cf")), AGENT],
    ["update_policy_path", str(posix.join(dirs.inputdir, "update.cf")), AGENT],
    ["cf_version", str(CF_VERSION), INVENTORY("CFEngine version")],
    ["cf_version_major", str(major), AGENT],
    ["cf_version_minor", str(minor), AGENT],
    ["cf_version_patch", str(patch), AGENT],
    ["cf_version_release", str("1"), AGENT],
    ["local_libdir", str("lib"), AGENT],
    ["libdir", str(posix.join(dirs.workdir, "inputs", "lib")), AGENT],
    ...componentValues(bindir, override),
    ["long_arch", str(canonifyName(`${facts.os}_${facts.arch}_${facts.release}_${facts.version}`)), AGENT],
    ["ostype", str(`${facts.os}_${facts.arch}`), AGENT],
    ...networkValues(facts),
    ...procNetValues(),
    ["crontab", str("/var/spool/cron/crontabs/root"), AGENT],
    ["doc_root", str("/var/www"), AGENT],
  );
  if (Object.keys(facts.osRelease).length > 0)
    values.push([
      "os_release",
      data(facts.osRelease as Record<string, JsonValue>),
      ["inventory", "attribute_name=none", "source=agent", "derived-from-file=/etc/os-release"],
    ]);
  values.push(["flavour", str(flavor), AGENT], ["flavor", str(flavor), INVENTORY("none")]);
  if (facts.user) values.push(["user_data", data(userData(facts.user)), ["source=agent", "user_info"]]);
  values.push(osNameHuman(facts));
  const versionMajor = flavor.split("_")[1];
  if (versionMajor)
    values.push(["os_version_major", str(versionMajor), ["source=agent", "derived-from=flavor"]]);
  return values;
}

/**
 * `sys.cf_agent`, `sys.cf_serverd`...: the quoted path of each program
 * found in `bindir` (the MPF starts the daemons it finds there); `cf_twin`
 * falls back to cf-agent. Outside the test work directory tend also says
 * where cf-agent and cf-promises would be when they are not installed.
 */
function componentValues(bindir: string, checkExistence: boolean): SysEntry[] {
  const tags = ["cfe_internal", "source=agent"];
  const out: SysEntry[] = [];
  const exists = (name: string) => existsSync(posix.join(bindir, name));
  for (const name of COMPONENTS) {
    const always = !checkExistence && (name === "cf-agent" || name === "cf-promises");
    if (always || exists(name))
      out.push([name.replace("-", "_"), scalar(`"${posix.join(bindir, name)}"`), tags]);
  }
  if (!exists("cf-twin") && exists("cf-agent"))
    out.push(["cf_twin", scalar(`"${posix.join(bindir, "cf-agent")}"`), tags]);
  return out;
}

/** The current user's entry, as `sys.user_data` holds it (3.21 writes its keys sorted). */
function userData(user: NonNullable<HostFacts["user"]>): JsonValue {
  return {
    description: user.gecos,
    gid: user.gid,
    home_dir: user.home,
    shell: user.shell,
    uid: user.uid,
    username: user.name,
  };
}

const HUMAN_NAMES: readonly [string, string][] = [
  ["ubuntu", "Ubuntu"],
  ["debian", "Debian"],
  ["centos", "CentOS"],
  ["fedora", "Fedora"],
  ["rhel", "RHEL"],
  ["opensuse-leap", "OpenSUSE"],
  ["sles", "SUSE"],
];

function osNameHuman(facts: HostFacts): SysEntry {
  const id = facts.osRelease.ID ?? "";
  const found = HUMAN_NAMES.find(([key]) => key === id);
  if (!found) return ["os_name_human", scalar("Unknown"), AGENT];
  const derivedFrom =
    id === "rhel" ? "redhat" : id.startsWith("opensuse") ? "opensuse" : id === "sles" ? "suse" : id;
  return ["os_name_human", scalar(found[1]), ["source=agent", `derived-from=${derivedFrom}`]];
}

/**
 * Interface variables: `sys.interface` (the last IPv4 interface),
 * `interface_flags`, `ipv4`, `ip2iface`, `ipv4_1..3`, the lists
 * `interfaces`, `hardware_addresses`, `hardware_flags`, `ip_addresses`, and
 * `hardware_mac`.
 */
function networkValues(facts: HostFacts): SysEntry[] {
  const out: SysEntry[] = [];
  const ipv4 = facts.interfaces.filter((i) => i.family === "IPv4");
  const flags = (name: string) => facts.interfaceFlags?.[name];
  const last = ipv4.at(-1);
  if (last) out.push(["interface", scalar(last.name), AGENT]);
  // The first interface but loopback, as 3.21: with loopback alone, none.
  const external = ipv4.find((i) => !i.address.startsWith("127."));
  if (external) out.push(["ipv4", scalar(external.address), INVENTORY("none")]);
  const hardware: string[] = [];
  const flagList: string[] = [];
  for (const i of ipv4) {
    const name = canonifyName(i.name);
    const own = flags(i.name);
    if (own) {
      out.push([`interface_flags[${name}]`, scalar(own), AGENT]);
      flagList.push(own);
    }
    out.push([`ipv4[${name}]`, scalar(i.address), AGENT], [`ip2iface[${i.address}]`, scalar(name), AGENT]);
    const octets = i.address.split(".");
    for (let n = 3; n >= 1; n--)
      out.push([`ipv4_${n}[${name}]`, scalar(octets.slice(0, n).join(".")), AGENT]);
    if (i.mac && i.mac !== "00:00:00:00:00:00" && !hardware.includes(i.mac)) {
      hardware.push(i.mac);
      out.push([`hardware_mac[${name}]`, scalar(i.mac), AGENT]);
    }
  }
  for (const { name, mac } of facts.macAddresses ?? []) {
    if (hardware.includes(mac)) continue;
    hardware.push(mac);
    out.push([`hardware_mac[${canonifyName(name)}]`, scalar(mac), ["source=agent", "derived-from=ifconfig"]]);
  }
  const interfaces = [...new Set(ipv4.filter((i) => !i.address.startsWith("127.")).map((i) => i.name))];
  out.push(["interfaces", list(interfaces), INVENTORY("Interfaces")]);
  if (hardware.length > 0) out.push(["hardware_addresses", list(hardware), INVENTORY("MAC addresses")]);
  if (flagList.length > 0) out.push(["hardware_flags", list(flagList), AGENT]);
  out.push(["ip_addresses", list([...ipv4.map((i) => i.address), ...orderedIpv6(facts)]), AGENT]);
  return out;
}

/**
 * What /proc/net said lately: reading it costs ~5 ms, and an agent run
 * that checks its policy first sets these variables twice, milliseconds
 * apart. Read again once a second old (a long-lived process sees today's
 * routes and counters).
 */
let procNet: { readonly at: number; readonly found: [string, JsonValue | undefined][] } | undefined;
const PROC_NET_REUSE_MS = 1_000;

/** `sys.inet`, `sys.inet6`, `sys.interfaces_data` from /proc/net (Linux only). */
function procNetValues(): SysEntry[] {
  const out: SysEntry[] = [];
  const now = Date.now();
  if (procNet === undefined || now - procNet.at > PROC_NET_REUSE_MS || now < procNet.at) {
    procNet = {
      at: now,
      found: [
        ["inet", inetData()],
        ["inet6", inet6Data()],
        ["interfaces_data", interfacesData()],
      ],
    };
  }
  // Each context gets its own copy: nothing one evaluation does to a container can show in another.
  for (const [name, json] of procNet.found)
    if (json !== undefined) out.push([name, data(structuredClone(json)), AGENT]);
  return out;
}

/** IPv6 addresses (`::1` left out) as `ifconfig -a` lists them: by interface name, then kernel order. */
function orderedIpv6(facts: HostFacts): string[] {
  const order = facts.ipv6Order ?? [];
  const rank = (name: string, address: string) =>
    order.findIndex((o) => o.name === name && o.address === expandIpv6(address));
  return facts.interfaces
    .filter((i) => i.family === "IPv6" && i.address !== "::1")
    .sort((a, b) => compareNaturally(a.name, b.name) || rank(a.name, a.address) - rank(b.name, b.address))
    .map((i) => i.address);
}

/** An IPv6 address as 32 hex digits (the form of /proc/net/if_inet6). */
export function expandIpv6(address: string): string {
  const [head, tail] = address.split("%")[0].split("::");
  const left = head ? head.split(":") : [];
  const right = tail !== undefined && tail !== "" ? tail.split(":") : [];
  const missing = 8 - left.length - right.length;
  const groups = tail === undefined ? left : [...left, ...Array(missing).fill("0"), ...right];
  return groups
    .map((g) => g.padStart(4, "0"))
    .join("")
    .toLowerCase();
}

function canonifyName(text: string): string {
  return text.replace(/[^A-Za-z0-9_]/g, "_");
}

const CONSTANTS: [string, string][] = [
  ["dollar", "$"],
  ["at", "@"],
  ["n", "\n"],
  ["r", "\r"],
  ["t", "\t"],
  ["endl", "\n"],
  ["dirsep", "/"],
];

/** Puts `sys.*`, `const.*` and `def.jq` into a context, with 3.21's tags. */
export function installSystemVariables(
  ctx: EvalContext,
  facts: HostFacts,
  dirs: ResolvedDirectories,
  now: Date = new Date(),
): void {
  for (const [lval, value, tags] of sysValues(facts, dirs, now)) {
    const bracket = lval.indexOf("[");
    const name = bracket === -1 ? lval : lval.slice(0, bracket);
    const indices = bracket === -1 ? [] : [lval.slice(bracket + 1, -1)];
    ctx.setVariable({ ns: null, scope: "sys", name, indices }, value, { tags });
  }
  for (const [name, value] of CONSTANTS)
    ctx.setVariable({ ns: null, scope: "const", name, indices: [] }, scalar(value), { tags: AGENT });
  ctx.setVariable(
    { ns: null, scope: "def", name: "jq", indices: [] },
    scalar("jq --compact-output --monochrome-output --ascii-output --unbuffered --sort-keys"),
    { tags: ["invocation", "source=agent", "command_name=jq"] },
  );
}

/** `sys.policy_entry_*`, set once the entry file is known. */
export function installEntryVariables(ctx: EvalContext, absoluteEntry: string): void {
  const put = (name: string, value: string) =>
    ctx.setVariable({ ns: null, scope: "sys", name, indices: [] }, scalar(value), { tags: AGENT });
  put("policy_entry_filename", absoluteEntry);
  put("policy_entry_dirname", posix.dirname(absoluteEntry));
  put("policy_entry_basename", posix.basename(absoluteEntry));
}

function formatLocal(format: string, now: Date): string {
  return strftime(format, Math.floor(now.getTime() / 1000), false) ?? "";
}
