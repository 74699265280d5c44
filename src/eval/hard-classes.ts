/**
 * Hard classes: what 3.21 discovers about the host before reading policy.
 * Only the essential families: version, OS and distribution, architecture,
 * host name, addresses and interfaces, CPU count, time.
 */
import { canonify } from "./class-expression.js";
import type { HostFacts } from "./host.js";
import { DAY_NAMES, MONTH_NAMES } from "./calendar.js";
import { CF_VERSION, flavorOf } from "./sys-vars.js";

/** Classes derived from the host facts (canonified, without time classes). */
export function hostClasses(facts: HostFacts): string[] {
  return [
    ...versionClasses(),
    ...platformClasses(facts),
    ...distributionClasses(facts),
    ...networkClasses(facts),
    ...FEATURE_CLASSES,
    canonify(facts.uqhost),
    ...(facts.domain ? [canonify(`${facts.uqhost}.${facts.domain}`), canonify(facts.domain)] : []),
    `${facts.cpus}_cpus`,
  ];
}

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

function versionClasses(): string[] {
  const [major, minor, patch] = CF_VERSION.split(".");
  return [
    "any",
    "cfengine",
    `cfengine_${major}`,
    `cfengine_${major}_${minor}`,
    `cfengine_${major}_${minor}_${patch}`,
    "community_edition",
    "common",
  ];
}

function platformClasses(facts: HostFacts): string[] {
  const release = canonify(facts.release);
  const out = [
    facts.os,
    canonify(facts.arch),
    `${facts.os}_${canonify(facts.arch)}`,
    `${facts.os}_${release}`,
    `${facts.os}_${canonify(facts.arch)}_${release}`,
    canonify(`${facts.os}_${facts.arch}_${facts.release}_${facts.version}`),
  ];
  if (facts.os === "linux") out.push("compiled_on_linux_gnu");
  if (/64/.test(facts.arch)) out.push("64_bit");
  else out.push("32_bit");
  return out;
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

function distributionClasses(facts: HostFacts): string[] {
  const id = facts.osRelease.ID;
  if (!id) return [];
  const names = FAMILY[id] ?? [canonify(id)];
  const own = names[names.length - 1];
  const version =
    id === "debian" && facts.debianVersion && /^\d/.test(facts.debianVersion)
      ? facts.debianVersion
      : (facts.osRelease.VERSION_ID ?? "");
  const out = [...names];
  const parts = version.split(".").filter((p) => p !== "");
  for (let n = 1; n <= parts.length; n++) out.push(canonify(`${own}_${parts.slice(0, n).join("_")}`));
  if (id === "debian" || id === "ubuntu") out.push(canonify(flavorOf(facts)));
  return [...new Set(out)];
}

function networkClasses(facts: HostFacts): string[] {
  const out: string[] = [];
  if (facts.defaultGateway) out.push(canonify(`ipv4_gw_${facts.defaultGateway}`));
  for (const i of facts.interfaces) {
    out.push(`net_iface_${canonify(i.name)}`);
    // 3.21 leaves out the IPv6 loopback address.
    if (i.address === "::1") continue;
    out.push(canonify(i.address));
    if (i.family === "IPv4") {
      const octets = i.address.split(".");
      for (let n = 1; n <= 4; n++) out.push(`ipv4_${octets.slice(0, n).join("_")}`);
    } else {
      out.push(`ipv6_${canonify(i.address)}`);
    }
    if (i.mac && i.mac !== "00:00:00:00:00:00") out.push(canonify(`mac_${i.mac}`));
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

/** Every hard class for this host at `now`. */
export function discoverHardClasses(facts: HostFacts, now: Date = new Date()): string[] {
  return [...new Set([...hostClasses(facts), ...timeClasses(now, false), ...timeClasses(now, true)])];
}
