/**
 * The `sys.*` and `const.*` variables 3.21 defines before reading policy,
 * limited to what loading and pre-evaluation need.
 */
import { posix } from "node:path";
import type { EvalContext } from "./context.js";
import type { HostFacts } from "./host.js";
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

function sysValues(facts: HostFacts, dirs: ResolvedDirectories, now: Date): [string, Value][] {
  const [major, minor, patch] = CF_VERSION.split(".");
  const flavor = flavorOf(facts);
  const fqhost = facts.domain ? `${facts.uqhost}.${facts.domain}` : facts.uqhost;
  const ipv4 = facts.interfaces.filter((i) => i.family === "IPv4");
  const external = ipv4.find((i) => !i.address.startsWith("127.")) ?? ipv4[0];
  const seconds = Math.floor(now.getTime() / 1000);
  // As cf-agent: under CFENGINE_TEST_OVERRIDE_WORKDIR the tools are in `<workdir>/bin`
  // (the acceptance suite puts them there); otherwise where the package installs them.
  const bindir = process.env.CFENGINE_TEST_OVERRIDE_WORKDIR ? posix.join(dirs.workdir, "bin") : "/usr/bin";
  const values: [string, Value][] = [
    ["arch", scalar(facts.arch)],
    ["class", scalar(facts.os)],
    ["os", scalar(facts.os)],
    ["ostype", scalar(`${facts.os}_${facts.arch}`)],
    ["flavor", scalar(flavor)],
    ["flavour", scalar(flavor)],
    ["os_version_major", scalar(flavor.split("_")[1] ?? "")],
    ["release", scalar(facts.release)],
    ["version", scalar(facts.version)],
    [
      "long_arch",
      scalar(`${facts.os}_${facts.arch}_${facts.release}_${facts.version}`.replace(/[^A-Za-z0-9_]/g, "_")),
    ],
    ["host", scalar(facts.uqhost)],
    ["uqhost", scalar(facts.uqhost)],
    ["fqhost", scalar(fqhost)],
    ["domain", scalar(facts.domain)],
    ["cpus", scalar(String(facts.cpus))],
    ["cf_version", scalar(CF_VERSION)],
    ["cf_version_major", scalar(major)],
    ["cf_version_minor", scalar(minor)],
    ["cf_version_patch", scalar(patch)],
    ["cf_version_release", scalar("1")],
    ["workdir", scalar(dirs.workdir)],
    ["inputdir", scalar(dirs.inputdir)],
    ["masterdir", scalar(dirs.masterdir)],
    ["statedir", scalar(dirs.statedir)],
    ["libdir", scalar(posix.join(dirs.inputdir, "lib"))],
    ["local_libdir", scalar("lib")],
    ["bindir", scalar(bindir)],
    ["logdir", scalar("/var/log/cfengine3")],
    ["piddir", scalar("/var/run/cfengine3")],
    ["default_policy_path", scalar(posix.join(dirs.inputdir, "promises.cf"))],
    ["failsafe_policy_path", scalar(posix.join(dirs.inputdir, "failsafe.cf"))],
    ["update_policy_path", scalar(posix.join(dirs.inputdir, "update.cf"))],
    ["cf_agent", scalar(`"${bindir}/cf-agent"`)],
    ["cf_promises", scalar(`"${bindir}/cf-promises"`)],
    ["crontab", scalar("/var/spool/cron/crontabs/root")],
    ["maildir", scalar("/var/spool/mail")],
    ["resolv", scalar("/etc/resolv.conf")],
    ["fstab", scalar("/etc/fstab")],
    ["exports", scalar("/etc/exports")],
    ["doc_root", scalar("/var/www")],
    ["ipv4", scalar(external?.address ?? "")],
    ["interfaces", list([...new Set(ipv4.filter((i) => !i.address.startsWith("127.")).map((i) => i.name))])],
    ["ip_addresses", list(facts.interfaces.map((i) => i.address))],
    ["os_release", data(facts.osRelease as Record<string, JsonValue>)],
    ["date", scalar(formatLocal("%a %b %e %H:%M:%S %Y", now))],
    ["cdate", scalar(formatLocal("%a_%b_%e_%H_%M_%S_%Y", now).replace(/ /g, "_"))],
    ["systime", scalar(String(seconds), "int")],
    ["sysday", scalar(String(Math.floor(seconds / 86400)), "int")],
  ];
  for (const i of ipv4) values.push([`ipv4[${i.name}]`, scalar(i.address)]);
  return values;
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

/** Puts `sys.*` and `const.*` into a context. */
export function installSystemVariables(
  ctx: EvalContext,
  facts: HostFacts,
  dirs: ResolvedDirectories,
  now: Date = new Date(),
): void {
  for (const [lval, value] of sysValues(facts, dirs, now)) {
    const bracket = lval.indexOf("[");
    const name = bracket === -1 ? lval : lval.slice(0, bracket);
    const indices = bracket === -1 ? [] : [lval.slice(bracket + 1, -1)];
    ctx.setVariable({ ns: null, scope: "sys", name, indices }, value);
  }
  for (const [name, value] of CONSTANTS)
    ctx.setVariable({ ns: null, scope: "const", name, indices: [] }, scalar(value));
}

/** `sys.policy_entry_*`, set once the entry file is known. */
export function installEntryVariables(ctx: EvalContext, absoluteEntry: string): void {
  const put = (name: string, value: string) =>
    ctx.setVariable({ ns: null, scope: "sys", name, indices: [] }, scalar(value));
  put("policy_entry_filename", absoluteEntry);
  put("policy_entry_dirname", posix.dirname(absoluteEntry));
  put("policy_entry_basename", posix.basename(absoluteEntry));
}

function formatLocal(format: string, now: Date): string {
  return strftime(format, Math.floor(now.getTime() / 1000), false) ?? "";
}
