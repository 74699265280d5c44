/**
 * gethostbyname(3) as glibc runs it for cf-agent, for the host's names
 * when /etc/hosts alone does not give them (host.ts): nsswitch.conf's
 * hosts sources in order (resolver.ts says which tend knows), each status
 * followed by its action; DNS through dns-query.ts. All DNS lookups of a
 * start together are bounded by DNS_BUDGET_MS (cf-agent waits glibc's
 * 5 s × 2 attempts per name tried: 40 s at its start when the server is
 * silent); past it, DNS is unavailable, which is what glibc makes of
 * timeouts.
 *
 * Its own file next to the bundle (scripts/bundle.js), loaded on demand:
 * the usual start never reads its text.
 */
import { existsSync, readFileSync } from "node:fs";
import { arch } from "node:os";
import { queryDns } from "./dns-query.js";
import { DNS_BUDGET_MS, findHostEntry, type HostEntry, type HostNames, hostNames } from "./hosts-file.js";
import {
  type DnsResult,
  type NssSource,
  parseNsswitchHosts,
  parseResolvConf,
  type ResolverConfig,
} from "./resolver.js";

/** The longest a try of one DNS server may take, whatever resolv.conf says. */
const DNS_TRY_MS = 1000;

/**
 * The host's names as 3.21 finds them: gethostbyname(node name)'s
 * canonical name, then gethostbyname(fqhost)'s aliases.
 */
export async function resolveHostNames(
  nodename: string,
  etc: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<HostNames> {
  const resolver = new HostResolver(etc, nodename, env);
  const names = hostNames(nodename, (await resolver.lookup(nodename))?.name);
  const fq = await resolver.lookup(names.fqhost);
  return { ...names, fqhostAliases: fq?.aliases ?? [], fqhostAddress: fq?.address };
}

/**
 * What gethostbyname(3) gives for `name` from the files source alone, with
 * nsswitch.conf's order and actions (DNS is not asked): the first line of
 * /etc/hosts (IPv4 or IPv6) that lists `name`, in any case.
 */
export function lookupHostEntry(name: string, etc = "/etc"): Promise<HostEntry | undefined> {
  return new HostResolver(etc, name, {}, false).lookup(name);
}

/** gethostbyname(3) for the names of one start: the files read once, when a source needs them. */
export class HostResolver {
  private sources: NssSource[] | undefined;
  private hosts: string | null | undefined;
  private config: ResolverConfig | undefined;
  private deadline: number | undefined;

  constructor(
    private readonly etc: string,
    private readonly nodename: string,
    private readonly env: Readonly<Record<string, string | undefined>>,
    private readonly dns = true,
  ) {}

  /** The entry the first answering source gives for `name`. */
  async lookup(name: string): Promise<HostEntry | undefined> {
    this.sources ??= parseNsswitchHosts(readText(`${this.etc}/nsswitch.conf`));
    for (const source of this.sources) {
      const { status, entry } = await this.ask(source.name, name);
      if (status === "success") return entry;
      if (source.actions[status] === "return") return undefined;
    }
    return undefined;
  }

  private async ask(source: string, name: string): Promise<DnsResult> {
    if (source === "files") {
      if (this.hosts === undefined) this.hosts = readText(`${this.etc}/hosts`) ?? null;
      if (this.hosts === null) return { status: "unavail" };
      const entry = findHostEntry(this.hosts, name);
      return entry ? { status: "success", entry } : { status: "notfound" };
    }
    if (source === "myhostname" && nssModuleInstalled("myhostname")) {
      // systemd's module: the host's own name (as the kernel has it) and localhost.
      const wanted = name.toLowerCase().replace(/\.$/, "");
      const own = wanted === this.nodename.toLowerCase();
      if (own || /^(.*\.)?localhost(\.localdomain)?$/.test(wanted))
        return { status: "success", entry: { name: own ? this.nodename : wanted, aliases: [] } };
      return { status: "notfound" };
    }
    if (source === "dns" && this.dns) {
      this.config ??= parseResolvConf(readText(`${this.etc}/resolv.conf`), this.nodename, this.env);
      this.deadline ??= Date.now() + DNS_BUDGET_MS;
      if (Date.now() >= this.deadline) return { status: "unavail" };
      const config = { ...this.config, timeout: Math.min(this.config.timeout, DNS_TRY_MS / 1000) };
      return queryDns(name, config, this.deadline);
    }
    return { status: "unavail" };
  }
}

const MULTIARCH: Record<string, string> = { x64: "x86_64", arm64: "aarch64", ia32: "i386", arm: "arm" };

/**
 * Whether glibc would find the NSS module `name` (libnss_NAME.so.2) in the
 * usual library directories: a source whose module is missing is
 * unavailable, and the next one is asked.
 */
function nssModuleInstalled(name: string): boolean {
  const triplet = `${MULTIARCH[arch()] ?? arch()}-linux-gnu${arch() === "arm" ? "eabihf" : ""}`;
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
