/**
 * Host name resolution as gethostbyname(3) does it for cf-agent 3.21 on
 * glibc: the sources of nsswitch.conf's `hosts:` line in order, each with
 * its status actions, and DNS as glibc's stub resolver asks it
 * (resolv.conf's nameservers, search list, ndots, timeout, attempts).
 *
 * The parts here are pure (parsing, the names a search tries, DNS
 * messages); dns-query.ts sends the queries (UDP, async), on a worker
 * thread (dns-worker.ts) that host.ts waits for, so the facts stay
 * synchronous and nothing here loads on the usual path.
 *
 * Sources (host-resolver.ts): `files` (/etc/hosts), `dns`, `myhostname` (the node name and
 * localhost answer themselves, as systemd's module does). The mDNS modules
 * (`mdns`, `mdns4_minimal`...) answer only names under `.local`, through the
 * Avahi daemon, which tend does not ask: they are unavailable, as they are
 * to glibc for other names. Any other source (ldap, nis, resolve...) is
 * unavailable too, so the next one is asked, as when its module is missing.
 */
import { type HostEntry, hostsLine } from "./hosts-file.js";

export type { HostEntry } from "./hosts-file.js";
/** What a source answered, in nsswitch.conf's words. */
export type NssStatus = "success" | "notfound" | "unavail" | "tryagain";

/** One source of the hosts line and what to do after each status. */
export interface NssSource {
  readonly name: string;
  readonly actions: Readonly<Record<NssStatus, "return" | "continue">>;
}

const STATUSES: readonly NssStatus[] = ["success", "notfound", "unavail", "tryagain"];
const DEFAULT_ACTIONS: Record<NssStatus, "return" | "continue"> = {
  success: "return",
  notfound: "continue",
  unavail: "continue",
  tryagain: "continue",
};

/**
 * The hosts sources of glibc 2.36 (Debian 12) when nsswitch.conf has no
 * hosts line, or is empty: files, then dns (measured with cf-agent 3.21).
 */
const DEFAULT_HOSTS_LINE = "files dns";

/**
 * The sources of nsswitch.conf's `hosts:` line (`text` the whole file, or
 * undefined when there is none), with their actions: `[NOTFOUND=return]`,
 * `[!UNAVAIL=return]`... (`merge` counts as `continue`).
 */
export function parseNsswitchHosts(text: string | undefined): NssSource[] {
  const line = hostsLine(text);
  const sources: { name: string; actions: Record<NssStatus, "return" | "continue"> }[] = [];
  const words = (line ?? DEFAULT_HOSTS_LINE).match(/\[[^\]]*\]?|[^\s[]+/g);
  for (const word of words ?? []) {
    if (!word.startsWith("[")) {
      sources.push({ name: word.toLowerCase(), actions: { ...DEFAULT_ACTIONS } });
      continue;
    }
    const last = sources.at(-1);
    if (!last) continue;
    for (const item of word
      .replace(/^\[|\]$/g, "")
      .trim()
      .split(/\s+/)) {
      const match = /^(!?)([a-z]+)=([a-z]+)$/i.exec(item);
      if (!match) continue;
      const status = match[2].toLowerCase() as NssStatus;
      const action = match[3].toLowerCase() === "return" ? "return" : "continue";
      if (!STATUSES.includes(status)) continue;
      if (match[1] === "") last.actions[status] = action;
      else for (const other of STATUSES) if (other !== status) last.actions[other] = action;
    }
  }
  return sources;
}

/** The stub resolver's settings, as glibc reads them from resolv.conf. */
export interface ResolverConfig {
  /** Nameservers in order (at most three); glibc's default is the local one. */
  readonly servers: readonly { readonly address: string; readonly port: number }[];
  /** The search list (`search`, or `domain`, whichever comes last, or the node name's domain). */
  readonly search: readonly string[];
  readonly ndots: number;
  /** Seconds per try. */
  readonly timeout: number;
  readonly attempts: number;
}

/**
 * resolv.conf as glibc reads it, with LOCALDOMAIN and RES_OPTIONS from
 * `env` over it. Without a search or domain line, the search list is the
 * node name's domain (what follows its first dot), if any.
 */
export function parseResolvConf(
  text: string | undefined,
  nodename: string,
  env: Readonly<Record<string, string | undefined>> = {},
): ResolverConfig {
  const servers: { address: string; port: number }[] = [];
  let search: string[] | undefined;
  const options: string[] = [];
  for (const raw of (text ?? "").split("\n")) {
    const words = raw
      .replace(/[#;].*/, "")
      .trim()
      .split(/\s+/);
    const [keyword, ...rest] = words;
    if (keyword === "nameserver" && rest[0] !== undefined && servers.length < 3) {
      const address = rest[0].replace(/%.*$/, "");
      if (/^\d{1,3}(\.\d{1,3}){3}$/.test(address) || address.includes(":"))
        servers.push({ address, port: 53 });
    } else if (keyword === "domain" && rest[0] !== undefined) search = [rest[0]];
    else if (keyword === "search" && rest.length > 0 && rest[0] !== "") search = rest;
    else if (keyword === "options") options.push(...rest);
  }
  const local = env.LOCALDOMAIN?.trim();
  if (local) search = local.split(/\s+/);
  options.push(...(env.RES_OPTIONS ?? "").trim().split(/\s+/));
  let ndots = 1;
  let timeout = 5;
  let attempts = 2;
  for (const option of options) {
    const match = /^(ndots|timeout|attempts):(\d+)$/.exec(option);
    if (!match) continue;
    const value = Number(match[2]);
    if (match[1] === "ndots") ndots = Math.min(value, 15);
    else if (match[1] === "timeout") timeout = Math.max(1, Math.min(value, 30));
    else attempts = Math.max(1, Math.min(value, 5));
  }
  if (search === undefined) {
    const dot = nodename.indexOf(".");
    search = dot === -1 || dot === nodename.length - 1 ? [] : [nodename.slice(dot + 1)];
  }
  return {
    servers: servers.length > 0 ? servers : [{ address: "127.0.0.1", port: 53 }],
    search: search.map((d) => d.replace(/\.$/, "")).filter((d) => d !== ""),
    ndots,
    timeout,
    attempts,
  };
}

/**
 * The names a search for `name` queries, in order, as glibc's res_search
 * does: as it is first when it has ndots dots or more, then with each
 * search domain (a trailing dot: as it is only), then as it is if not yet.
 * Each item says whether it came from the search list: a timeout there
 * ends the search list, as in glibc.
 */
export function searchNames(name: string, config: ResolverConfig): { name: string; searched: boolean }[] {
  if (name.endsWith(".")) return [{ name: name.slice(0, -1), searched: false }];
  const dots = name.split(".").length - 1;
  const out: { name: string; searched: boolean }[] = [];
  const asIsFirst = dots >= config.ndots;
  if (asIsFirst) out.push({ name, searched: false });
  for (const domain of config.search) out.push({ name: `${name}.${domain}`, searched: true });
  if (!asIsFirst) out.push({ name, searched: false });
  return out;
}

/** A DNS query for the A records of `name`, recursion desired. */
export function encodeQuery(id: number, name: string): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(0x0100, 2);
  header.writeUInt16BE(1, 4);
  const labels = name
    .split(".")
    .filter((l) => l !== "")
    .map((l) => {
      const bytes = Buffer.from(l, "latin1").subarray(0, 63);
      return Buffer.concat([Buffer.from([bytes.length]), bytes]);
    });
  return Buffer.concat([header, ...labels, Buffer.from([0, 0, 1, 0, 1])]);
}

/** Reads a (possibly compressed) name at `at`: the name and where the field ends. */
function readName(message: Buffer, at: number): [string, number] {
  const labels: string[] = [];
  let end = -1;
  let position = at;
  for (let jumps = 0; jumps < 64; ) {
    const length = message[position];
    if (length === undefined) throw new Error("truncated name");
    if (length === 0) {
      if (end === -1) end = position + 1;
      return [labels.join("."), end];
    }
    if ((length & 0xc0) === 0xc0) {
      if (end === -1) end = position + 2;
      position = ((length & 0x3f) << 8) | (message[position + 1] ?? 0);
      jumps++;
      continue;
    }
    labels.push(message.toString("latin1", position + 1, position + 1 + length));
    position += 1 + length;
  }
  throw new Error("name loops");
}

/** What one answer says: the rcode, and the entry when it holds A records for the name. */
export interface DnsAnswer {
  readonly rcode: number;
  readonly entry?: HostEntry;
}

/**
 * The answer to a query for `name` (undefined when it is not one: another
 * id, not a response, another question). The canonical name follows the
 * CNAME records from the name asked; each name on the way is an alias, as
 * glibc gives them; an entry only when A records end the chain.
 */
export function decodeAnswer(message: Buffer, id: number, name: string): DnsAnswer | undefined {
  try {
    if (message.length < 12 || message.readUInt16BE(0) !== id || !(message[2] & 0x80)) return undefined;
    const rcode = message[3] & 0x0f;
    const questions = message.readUInt16BE(4);
    const answers = message.readUInt16BE(6);
    let at = 12;
    for (let i = 0; i < questions; i++) {
      const [qname, end] = readName(message, at);
      if (i === 0 && qname.toLowerCase() !== name.toLowerCase()) return undefined;
      at = end + 4;
    }
    let expected = name.toLowerCase();
    let canonical = name;
    const aliases: string[] = [];
    let found = false;
    let address: string | undefined;
    for (let i = 0; i < answers; i++) {
      const [owner, end] = readName(message, at);
      const type = message.readUInt16BE(end);
      const klass = message.readUInt16BE(end + 2);
      const length = message.readUInt16BE(end + 8);
      const data = end + 10;
      at = data + length;
      if (klass !== 1 || owner.toLowerCase() !== expected) continue;
      if (type === 5) {
        const [target] = readName(message, data);
        aliases.push(owner);
        expected = target.toLowerCase();
        canonical = target;
      } else if (type === 1 && length === 4) {
        if (!found) {
          canonical = owner;
          address = `${message[data]}.${message[data + 1]}.${message[data + 2]}.${message[data + 3]}`;
        }
        found = true;
      }
    }
    return found ? { rcode, entry: { name: canonical, aliases, address } } : { rcode };
  } catch {
    return { rcode: 2 };
  }
}

/** What a source answered. */
export interface DnsResult {
  readonly status: NssStatus;
  readonly entry?: HostEntry;
}
