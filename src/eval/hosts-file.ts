/**
 * The host's names from /etc/hosts, the part of gethostbyname(3) that
 * every start needs (host.ts); the other sources of nsswitch.conf are
 * host-resolver.ts's, loaded only when they are asked.
 */

/** What gethostbyname(3) gives for a name: its canonical name and aliases. */
export interface HostEntry {
  readonly name: string;
  readonly aliases: readonly string[];
  /** Its first IPv4 address, if it has one (what gethostbyname's h_addr holds). */
  readonly address?: string;
}

/** `sys.fqhost`, `sys.uqhost`, `sys.domain`, and the fqhost's aliases (hard classes, as in 3.21). */
export interface HostNames {
  readonly fqhost: string;
  readonly uqhost: string;
  readonly domain: string;
  readonly fqhostAliases: readonly string[];
  /**
   * The fqhost's IPv4 address as the resolver gives it: 3.21's host
   * address (VIPADDRESS) when no interface but loopback has one.
   */
  readonly fqhostAddress?: string;
}

/** The longest all DNS lookups of a start may take together: start-up never hangs. */
export const DNS_BUDGET_MS = 2000;

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

/** The hosts line of nsswitch.conf (`text`), without its comment; undefined when there is none. */
export function hostsLine(text: string | undefined): string | undefined {
  const line =
    text === undefined ? undefined : /^[ \t]*hosts[ \t]*:(.*)$/m.exec(text)?.[1]?.replace(/#.*/, "").trim();
  return line === "" ? undefined : line;
}

/** Whether gethostbyname asks /etc/hosts first: the hosts line starts with files, or there is none (glibc: files dns). */
export function filesFirst(nsswitch: string | undefined): boolean {
  const line = hostsLine(nsswitch);
  return line === undefined || /^files(\s|\[|$)/i.test(line);
}

/** The first line of the hosts file `hosts` that lists `name`, in any case. */
export function findHostEntry(hosts: string, name: string): HostEntry | undefined {
  const wanted = name.toLowerCase();
  for (const raw of hosts.split("\n")) {
    const fields = raw.replace(/#.*/, "").trim().split(/\s+/);
    const address = fields[0] as string;
    if (
      fields.length < 2 ||
      !(/^\d{1,3}(\.\d{1,3}){3}$/.test(address) || /^[\da-f:.]*:[\da-f:.]*$/i.test(address))
    )
      continue;
    const names = fields.slice(1);
    if (names.some((n) => n.toLowerCase() === wanted))
      return {
        name: names[0] as string,
        aliases: names.slice(1),
        ...(address.includes(":") ? {} : { address }),
      };
  }
  return undefined;
}
