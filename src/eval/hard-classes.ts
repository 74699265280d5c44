/**
 * Hard classes: what 3.21 discovers about the host before reading policy,
 * each with the tags cf-agent gives it (`cf-promises --show-classes`,
 * `getclassmetatags()`). Only the essential families: version, OS and
 * distribution, architecture, host name, addresses and interfaces, CPU
 * count, time.
 *
 * The list is in 3.21's order of discovery: a class met twice keeps the
 * tags of its first definition, as in 3.21.
 */
import { canonify } from "./class-expression.js";
import type { HostFacts } from "./host.js";
import { DAY_NAMES, MONTH_NAMES } from "./calendar.js";
import { CF_VERSION, flavorOf } from "./sys-vars.js";

/** A hard class and its tags (without the `hardclass` tag the context adds). */
export type TaggedClass = readonly [name: string, tags: readonly string[]];

/** Which program discovers: `agent` for cf-agent, `common` for cf-promises. */
export type AgentType = "agent" | "common" | "server" | "monitor" | "executor";

const AGENT = ["source=agent"];
const INVENTORY = ["inventory", "attribute_name=none", "source=agent"];
const TIME = ["time_based", "cfengine_internal_time_based_autoremove", "source=agent"];

/** The time classes of a moment, local and GMT, with the tags 3.21 gives them. */
export function timeClassesAt(now: Date): { classes: string[]; tags: readonly string[] } {
  return { classes: [...timeClasses(now, false), ...timeClasses(now, true)], tags: TIME };
}
const derived = (base: readonly string[], ...from: string[]) => [
  ...base,
  ...from.map((f) => `derived-from=${f}`),
];

/** The features this build claims, as 3.21.0 with its usual libraries does. */
const FEATURE_CLASSES = [
  "feature",
  "feature_copyfrom",
  "feature_copyfrom_restrict",
  "feature_copyfrom_restrict_keys",
  "feature_def",
  "feature_def_json",
  "feature_def_json_preparse",
  "feature_host",
  "feature_host_specific",
  "feature_host_specific_data",
  "feature_host_specific_data_load",
  "feature_tls",
  "feature_tls_1",
  "feature_tls_1_0",
  "feature_tls_1_1",
  "feature_tls_1_2",
  "feature_tls_1_3",
  "feature_xml",
  "feature_yaml",
];

function tagged(names: readonly string[], tags: readonly string[]): TaggedClass[] {
  return names.map((name) => [name, tags]);
}

/** Host name classes: the fqhost and each of its dot suffixes, uqhost, domain, fqhost's aliases. */
function nameClasses(facts: HostFacts): TaggedClass[] {
  // 3.21 looks a class up by the name as given before defining it, and
  // keeps the first definition only when that finds it: a name already
  // canonical ("web1") keeps its first tags, one with dots or dashes
  // ("example.com") takes the later ones.
  const classes = new Map<string, TaggedClass>();
  const put = (raw: string, tags: TaggedClass[1]) => {
    const name = canonify(raw);
    if (name === "" || (classes.has(name) && raw === name)) return;
    classes.set(name, [name, tags]);
  };
  const parts = facts.fqhost.split(".");
  for (let i = 0; i < parts.length; i++) put(parts.slice(i).join("."), derived(INVENTORY, "sys.fqhost"));
  put(facts.uqhost, derived(AGENT, "sys.uqhost"));
  put(facts.domain, derived(AGENT, "sys.domain"));
  // Then the aliases of gethostbyname(fqhost).
  for (const alias of facts.fqhostAliases ?? []) put(alias, [...INVENTORY, "based-on=sys.fqhost"]);
  return [...classes.values()];
}

function platformClasses(facts: HostFacts): TaggedClass[] {
  const arch = canonify(facts.arch);
  const release = canonify(facts.release);
  const out: TaggedClass[] = [
    [facts.os, derived(INVENTORY, "sys.class")],
    [/64/.test(facts.arch) ? "64_bit" : "32_bit", AGENT],
    [`${facts.os}_${release}`, derived(INVENTORY, "sys.sysname", "sys.release")],
    [arch, derived(AGENT, "sys.machine")],
    [`${facts.os}_${arch}`, derived(AGENT, "sys.sysname", "sys.machine")],
    [`${facts.os}_${arch}_${release}`, derived(AGENT, "sys.sysname", "sys.machine", "sys.release")],
    [
      canonify(`${facts.os}_${facts.arch}_${facts.release}_${facts.version}`),
      derived(AGENT, "sys.long_arch"),
    ],
  ];
  if (facts.os === "linux") out.push(["compiled_on_linux_gnu", AGENT]);
  return out;
}

function networkClasses(facts: HostFacts): TaggedClass[] {
  const out: TaggedClass[] = [];
  for (const i of facts.interfaces) {
    out.push([`net_iface_${canonify(i.name)}`, AGENT]);
    // 3.21 leaves out the IPv6 loopback address.
    if (i.address === "::1") continue;
    out.push([canonify(i.address), INVENTORY]);
    if (i.family === "IPv4") {
      const octets = i.address.split(".");
      for (let n = 4; n >= 1; n--) out.push([`ipv4_${octets.slice(0, n).join("_")}`, INVENTORY]);
    } else {
      out.push([`ipv6_${canonify(i.address)}`, INVENTORY]);
    }
    if (i.mac && i.mac !== "00:00:00:00:00:00") out.push([canonify(`mac_${i.mac}`), INVENTORY]);
  }
  return out;
}

function builtinClasses(): TaggedClass[] {
  const [major, minor, patch] = CF_VERSION.split(".");
  return [
    ["any", AGENT],
    ...tagged(
      [`cfengine_${major}_${minor}_${patch}`, `cfengine_${major}_${minor}`, `cfengine_${major}`, "cfengine"],
      INVENTORY,
    ),
    ...tagged(FEATURE_CLASSES, AGENT),
    ["community_edition", INVENTORY],
  ];
}

const FAMILY: Record<string, string[]> = {
  rhel: ["redhat", "rhel"],
  centos: ["redhat", "centos"],
  rocky: ["redhat", "rocky"],
  almalinux: ["redhat", "almalinux"],
  fedora: ["redhat", "fedora"],
  ubuntu: ["debian", "ubuntu"],
  linuxmint: ["debian", "linuxmint"],
  raspbian: ["debian", "raspbian"],
  sles: ["suse", "sles"],
  "opensuse-leap": ["suse", "opensuse"],
  amzn: ["amazon_linux"],
};

/** Distribution classes: the flavour first, then those of /etc/os-release, then /etc/debian_version. */
function distributionClasses(facts: HostFacts): TaggedClass[] {
  const id = facts.osRelease.ID;
  if (!id) return [];
  const fromOsRelease = [...INVENTORY, "derived-from-file=/etc/os-release"];
  const out: TaggedClass[] = [[canonify(flavorOf(facts)), derived(INVENTORY, "sys.flavor")]];
  const names = FAMILY[id] ?? [canonify(id)];
  const own = names[names.length - 1];
  const versionId = (facts.osRelease.VERSION_ID ?? "").split(".").filter((p) => p !== "");
  for (let n = versionId.length; n >= 1; n--)
    out.push([canonify(`${own}_${versionId.slice(0, n).join("_")}`), fromOsRelease]);
  out.push(...tagged(names, fromOsRelease));
  if (id === "debian" && facts.debianVersion && /^\d/.test(facts.debianVersion)) {
    const fromFile = [...INVENTORY, "derived-from-file=/etc/debian_version"];
    out.push(["debian", fromFile]);
    const [major, minor] = facts.debianVersion.split(".");
    if (minor !== undefined && /^\d+$/.test(minor)) out.push([`debian_${major}_${minor}`, fromFile]);
  }
  return out;
}

/** Time classes for one clock (local, or GMT with the `GMT_` prefix). */
export function timeClasses(now: Date, gmt: boolean): string[] {
  const hours = gmt ? now.getUTCHours() : now.getHours();
  const minutes = gmt ? now.getUTCMinutes() : now.getMinutes();
  const quarter = Math.floor(minutes / 15) + 1;
  const five = Math.floor(minutes / 5) * 5;
  const period = hours < 6 ? "Night" : hours < 12 ? "Morning" : hours < 18 ? "Afternoon" : "Evening";
  const hh = String(hours).padStart(2, "0");
  const year = gmt ? now.getUTCFullYear() : now.getFullYear();
  const classes = [
    `Hr${hh}`,
    `Hr${hours}`,
    `Hr${hh}_Q${quarter}`,
    `Q${quarter}`,
    `Min${String(minutes).padStart(2, "0")}`,
    `Min${String(five).padStart(2, "0")}_${String((five + 5) % 60).padStart(2, "0")}`,
    `Day${gmt ? now.getUTCDate() : now.getDate()}`,
    DAY_NAMES[gmt ? now.getUTCDay() : now.getDay()],
    MONTH_NAMES[gmt ? now.getUTCMonth() : now.getMonth()],
    `Yr${year}`,
    `Lcycle_${year % 3}`,
    period,
  ];
  return gmt ? classes.map((c) => `GMT_${c}`) : classes;
}

/**
 * Every hard class for this host at `now`, with its tags, in discovery
 * order; a name may appear more than once (the first one counts).
 */
export function discoverHardClasses(
  facts: HostFacts,
  now: Date = new Date(),
  agentType: AgentType = "common",
): TaggedClass[] {
  return [
    ...tagged([...timeClasses(now, false), ...timeClasses(now, true)], TIME),
    [agentType, ["cfe_internal", "source=agent"]],
    ...nameClasses(facts),
    ...platformClasses(facts),
    ...networkClasses(facts),
    ...builtinClasses(),
    ...distributionClasses(facts),
    [`${facts.cpus}_cpus`, derived(AGENT, "sys.cpus")],
    ...(facts.defaultGateway
      ? [
          [
            canonify(`ipv4_gw_${facts.defaultGateway}`),
            ["inventory", "networking", "/proc", "source=agent", "attribute_name=none", "procfs"],
          ] as TaggedClass,
        ]
      : []),
  ];
}
