/**
 * The access lists of cf-serverd 3.21 (server_access.c, strlist.c,
 * libcfnet/addr_lib.c), re-implemented from their behaviour:
 *
 * - An entry (a path, a class regex, a handle...) holds admit and deny
 *   rules for IPs, hostnames, keys and (roles only) user names.
 * - A resource is admitted when an admit rule matches and no deny rule of
 *   the same entry does; nothing matching ⇒ denied.
 * - Paths: the entry equal to the request or to its longest parent
 *   directory (entries of directories end in "/") decides; a second lookup
 *   with the peer's IP, hostname and key replaced in the request by
 *   `$(connection.ip)`, `$(connection.hostname)`, `$(connection.key)` may
 *   also admit (its rules are then matched against those literal names).
 * - Exact lists (literal, variable, query): the entry of that name.
 * - Regex lists (context, bundle, roles): every entry whose regex matches
 *   the name; one admitting and none explicitly denying.
 */
import { isIPv4, isIPv6 } from "node:net";
import { compileCfRegex, matchesFully } from "../../eval/regex/match.js";
import { PcreError, type PcreRegExp } from "../../eval/regex/pcre.js";

/** One side (admit or deny) of an entry. */
export interface RuleSet {
  readonly ips: string[];
  readonly hostnames: string[];
  readonly keys: string[];
  readonly usernames: string[];
}

export interface AclEntry {
  readonly name: string;
  readonly admit: RuleSet;
  readonly deny: RuleSet;
}

/** Who asks, as the lists see it (an empty string is "not known": its rules are skipped). */
export interface Peer {
  readonly ip: string;
  readonly hostname: string;
  readonly key: string;
  readonly user?: string;
}

function emptyRules(): RuleSet {
  return { ips: [], hostnames: [], keys: [], usernames: [] };
}

/** Compiled patterns (the lists are fixed once loaded; requests ask the same ones again and again). */
const compiled = new Map<string, PcreRegExp | null>();
const MAX_COMPILED = 10_000;

/** StringMatchFull: a PCRE matching the whole subject; a bad pattern matches nothing. */
export function regexMatchesFully(pattern: string, subject: string): boolean {
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    const made = compileCfRegex(pattern, { anchored: true });
    regex = made instanceof PcreError ? null : made;
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(pattern, regex);
  }
  return regex !== null && matchesFully(regex, subject) === true;
}

/** A list of entries by name, in insertion order (the order matters to nobody: decisions are order-free). */
export class Acl {
  private readonly entries = new Map<string, AclEntry>();

  /** The entry of that name, created empty when new (acl_SortedInsert). */
  entry(name: string): AclEntry {
    let found = this.entries.get(name);
    if (!found) {
      found = { name, admit: emptyRules(), deny: emptyRules() };
      this.entries.set(name, found);
      this.sorted = undefined;
    }
    return found;
  }

  get(name: string): AclEntry | undefined {
    return this.entries.get(name);
  }

  get size(): number {
    return this.entries.size;
  }

  all(): IterableIterator<AclEntry> {
    return this.entries.values();
  }

  /** acl_CheckPath: `path` absolute and normalised, directories ending in "/". */
  checkPath(path: string, peer: Peer): boolean {
    let access = false;
    const first = this.longestPathEntry(path);
    if (first && checkResource(first, peer).admitted) access = true;
    const mangled = replaceSpecialVariables(path, peer);
    if (mangled !== undefined) {
      const second = this.longestPathEntry(mangled);
      if (
        second &&
        checkResource(second, {
          ip: "$(connection.ip)",
          hostname: "$(connection.hostname)",
          key: "$(connection.key)",
        }).admitted
      )
        access = true;
    }
    return access;
  }

  /** The names in strcmp order (acl_SortedInsert keeps them so), made when asked. */
  private sorted: Buffer[] | undefined;

  /**
   * The entry 3.21's search finds for `path`: the entry equal to it or to
   * its longest prefix ending in "/" — as StrList_SearchLongestPrefix finds
   * it, quirks included (see `searchLongestPrefix`).
   */
  longestPathEntry(path: string): AclEntry | undefined {
    if (this.entries.size === 0) return undefined;
    this.sorted ??= [...this.entries.keys()].map((k) => Buffer.from(k)).sort(Buffer.compare);
    const found = searchLongestPrefix(this.sorted, Buffer.from(path), 0x2f);
    return found === undefined ? undefined : this.entries.get(found.toString());
  }

  /** acl_CheckExact. */
  checkExact(name: string, peer: Peer): boolean {
    const entry = this.entries.get(name);
    return entry !== undefined && checkResource(entry, { ...peer, user: undefined }).admitted;
  }

  /** acl_CheckRegex: some matching entry admits, none explicitly denies. */
  checkRegex(name: string, peer: Peer): boolean {
    let admitted = false;
    for (const entry of this.entries.values()) {
      if (!regexMatchesFully(entry.name, name)) continue;
      const decision = checkResource(entry, peer, true);
      if (decision.found && !decision.admitted) return false;
      if (decision.admitted) admitted = true;
    }
    return admitted;
  }
}

/**
 * The longest of `s`'s prefixes that end right after a "/", or `s` itself,
 * for which `has` holds (StrList_SearchLongestPrefix forward on '/').
 */
export function longestPrefix(s: string, has: (candidate: string) => boolean): string | undefined {
  if (has(s)) return s;
  for (let end = s.lastIndexOf("/", s.length - 2); end >= 0; end = s.lastIndexOf("/", end - 1)) {
    const candidate = s.slice(0, end + 1);
    if (has(candidate)) return candidate;
    if (end === 0) break;
  }
  return undefined;
}

/**
 * StrList_SearchLongestPrefix (forward): over `list`, sorted in byte order,
 * the entry equal to the longest prefix of `s` that ends right after a
 * `sep` byte (or to `s` itself). Ported step by step, because its binary
 * search has a quirk that decides real requests: an entry that is a
 * strict prefix of the prefix searched (`/d/notyet` while searching
 * `/d/notyet2/`) is taken for a longer one, the search turns left and
 * misses `/d/notyet2/` further right. cf-serverd 3.21 then refuses what
 * `/d/notyet2/` admits; tend decides as it does.
 */
export function searchLongestPrefix(list: readonly Buffer[], s: Buffer, sep: number): Buffer | undefined {
  if (list.length === 0 || s.length === 0) return undefined;
  const bounds = { min: 0, max: list.length };
  let found = -1;
  let oldFound = -1;
  let prefixLen = 0;
  let longerPossible = true;
  while (longerPossible && prefixLen < s.length) {
    const at = s.indexOf(sep, prefixLen);
    prefixLen = at < 0 ? s.length : at + 1;
    if (found !== -1) oldFound = found;
    found = binarySearchExtended(list, s, prefixLen, bounds);
    longerPossible = bounds.min < bounds.max;
  }
  const index = found === -1 ? oldFound : found;
  return index === -1 ? undefined : list[index];
}

/** StrList_BinarySearchExtended, forward: narrows `bounds` for the longer searches to come. */
function binarySearchExtended(
  list: readonly Buffer[],
  s: Buffer,
  sLen: number,
  bounds: { min: number; max: number },
): number {
  let lo = bounds.min;
  let hi = bounds.max;
  while (lo < hi) {
    const pos = Math.floor((hi - lo) / 2) + lo;
    const entry = list[pos] as Buffer;
    const n = Math.min(sLen, entry.length);
    const match = s.compare(entry, 0, n, 0, n);
    if (match === 0) {
      if (entry.length === sLen) {
        bounds.min = pos + 1;
        return pos;
      }
      hi = pos;
    } else if (match < 0) {
      hi = pos;
      bounds.max = hi;
    } else {
      lo = pos + 1;
      bounds.min = lo;
    }
  }
  return -1;
}

/**
 * StrList_BinarySearch (strcmp) over a list in the order it was written:
 * `authorize` users are never sorted in 3.21, so a name the search steps
 * over is not found (`{ "root", "alice" }` finds "alice" but not "root").
 */
export function unsortedBinarySearch(list: readonly string[], name: string): boolean {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = lo + Math.floor((hi - lo) / 2);
    const cmp = Buffer.compare(Buffer.from(name), Buffer.from(list[mid] as string));
    if (cmp < 0) hi = mid;
    else if (cmp > 0) lo = mid + 1;
    else return true;
  }
  return false;
}

/** Whether a hostname rule list holds `hostname`: itself or a suffix starting at a "." (StrList_SearchLongestPrefix backward on '.'). */
function hostnameSuffixListed(rules: readonly string[], hostname: string): boolean {
  // The backward search of 3.21 is the forward one over reversed strings.
  let cached = reversedRules.get(rules);
  if (cached?.length !== rules.length) {
    cached = {
      length: rules.length,
      sorted: rules.map((r) => Buffer.from(r).reverse()).sort(Buffer.compare),
    };
    reversedRules.set(rules, cached);
  }
  return searchLongestPrefix(cached.sorted, Buffer.from(hostname).reverse(), 0x2e) !== undefined;
}

/** Each hostname list reversed and sorted once (lists only grow, while loading). */
const reversedRules = new WeakMap<
  readonly string[],
  { readonly length: number; readonly sorted: Buffer[] }
>();

/** A hostname rule matches: by domain suffix, else as a regex of the whole name. */
function hostnameMatches(rules: readonly string[], hostname: string): boolean {
  return hostnameSuffixListed(rules, hostname) || rules.some((r) => regexMatchesFully(r, hostname));
}

/** An IP rule matches: FuzzySetMatch, else as a regex (legacy). */
function ipMatches(rules: readonly string[], ip: string): boolean {
  return rules.some((r) => fuzzySetMatch(r, ip) || regexMatchesFully(r, ip));
}

export interface Decision {
  readonly admitted: boolean;
  /** A rule (admit or deny) matched. */
  readonly found: boolean;
}

/**
 * access_CheckResource: admission by IP, hostname, key, user name (the first
 * that matches), then denial by the same, deny winning. `wantFound` asks
 * whether a deny rule matches even when nothing admitted.
 */
export function checkResource(entry: AclEntry, peer: Peer, wantFound = false): Decision {
  const { admit, deny } = entry;
  let access = false;
  if (peer.ip !== "" && admit.ips.length > 0 && ipMatches(admit.ips, peer.ip)) access = true;
  if (
    !access &&
    peer.hostname !== "" &&
    admit.hostnames.length > 0 &&
    hostnameMatches(admit.hostnames, peer.hostname)
  )
    access = true;
  if (!access && peer.key !== "" && admit.keys.includes(peer.key)) access = true;
  if (!access && peer.user && unsortedBinarySearch(admit.usernames, peer.user)) access = true;
  if (!access && !wantFound) return { admitted: false, found: false };
  const denied =
    (peer.ip !== "" && deny.ips.length > 0 && ipMatches(deny.ips, peer.ip)) ||
    (peer.hostname !== "" && deny.hostnames.length > 0 && hostnameMatches(deny.hostnames, peer.hostname)) ||
    (peer.key !== "" && deny.keys.includes(peer.key)) ||
    (peer.user !== undefined && peer.user !== "" && unsortedBinarySearch(deny.usernames, peer.user));
  if (denied) return { admitted: false, found: true };
  return { admitted: access, found: access };
}

/**
 * ReplaceSpecialVariables as acl_CheckPath uses it: every occurrence of the
 * peer's IP, then hostname, then key in `path` replaced by the variable's
 * literal name; undefined when nothing was replaced.
 */
export function replaceSpecialVariables(path: string, peer: Peer): string | undefined {
  let out = path;
  let replaced = false;
  for (const [find, name] of [
    [peer.ip, "$(connection.ip)"],
    [peer.hostname, "$(connection.hostname)"],
    [peer.key, "$(connection.key)"],
  ] as const) {
    if (find === "" || !out.includes(find)) continue;
    out = out.split(find).join(name);
    replaced = true;
  }
  return replaced ? out : undefined;
}

/**
 * The other direction, as ShortcutsExpand does in a shortcut's target:
 * each variable replaced by the peer's value (a variable whose value is
 * not known stays as written).
 */
export function expandConnectionVariables(text: string, peer: Peer): string {
  let out = text;
  for (const [name, value] of [
    ["$(connection.ip)", peer.ip],
    ["$(connection.hostname)", peer.hostname],
    ["$(connection.key)", peer.key],
  ] as const) {
    if (value !== "") out = out.split(name).join(value);
  }
  return out;
}

/** C's `sscanf("%ld")`/`"%lx"` of the start of a string: the number, or undefined when there is none. */
function scanInt(text: string, radix: 10 | 16): number | undefined {
  const m = radix === 10 ? /^\s*([+-]?\d+)/.exec(text) : /^\s*([+-]?(?:0[xX])?[0-9a-fA-F]+)/.exec(text);
  if (!m) return undefined;
  const value = Number.parseInt(m[1] as string, radix);
  return Number.isNaN(value) ? undefined : value;
}

/** The IPv4 address as a 32-bit number, or undefined. */
function ipv4Number(text: string): number | undefined {
  if (!isIPv4(text)) return undefined;
  return text.split(".").reduce((n, part) => n * 256 + Number(part), 0);
}

/** The 16 bytes of an IPv6 address (all zero when it does not parse, as inet_pton leaves them). */
function ipv6Bytes(text: string): number[] {
  const bytes = new Array<number>(16).fill(0);
  if (!isIPv6(text)) return bytes;
  let groups: string[];
  let tail = text;
  let v4: number | undefined;
  const lastColon = tail.lastIndexOf(":");
  if (tail.slice(lastColon + 1).includes(".")) {
    v4 = ipv4Number(tail.slice(lastColon + 1));
    tail = `${tail.slice(0, lastColon + 1)}0:0`;
  }
  const [head, rest] = tail.split("::") as [string, string | undefined];
  if (rest === undefined) groups = head.split(":");
  else {
    const a = head === "" ? [] : head.split(":");
    const b = rest === "" ? [] : rest.split(":");
    groups = [...a, ...new Array<string>(8 - a.length - b.length).fill("0"), ...b];
  }
  groups.forEach((g, i) => {
    const v = Number.parseInt(g, 16);
    bytes[i * 2] = (v >> 8) & 0xff;
    bytes[i * 2 + 1] = v & 0xff;
  });
  if (v4 !== undefined) {
    bytes[12] = (v4 >>> 24) & 0xff;
    bytes[13] = (v4 >>> 16) & 0xff;
    bytes[14] = (v4 >>> 8) & 0xff;
    bytes[15] = v4 & 0xff;
  }
  return bytes;
}

/**
 * FuzzySetMatch(rule, address) == 0: equal; a prefix ending at an octet
 * ("10.1" holds "10.1.2.3", not "10.12.2.3"); IPv4 CIDR ("10.0.0.0/8");
 * IPv4 octet ranges ("10.0.0.1-20"); IPv6 CIDR in whole bytes; IPv6 group
 * ranges. Mixed IPv4 and IPv6 never match.
 */
export function fuzzySetMatch(rule: string, address: string): boolean {
  if (rule === address) return true;
  const isCidr = rule.includes("/");
  const isRange = rule.includes("-");
  const isV4 = rule.includes(".") || address.includes(".");
  const isV6 = rule.includes(":") || address.includes(":");
  if (isV4 && isV6) return false;
  if (isCidr && isRange) return false;
  if (!isV4 && !isV6) return false;
  if (!isRange && !isCidr) {
    if (address.length > rule.length && address[rule.length] !== ".") return false;
    return address.startsWith(rule);
  }
  if (isV4) return isCidr ? ipv4CidrMatch(rule, address) : ipv4RangeMatch(rule, address);
  return isCidr ? ipv6CidrMatch(rule, address) : ipv6RangeMatch(rule, address);
}

function ipv4CidrMatch(rule: string, address: string): boolean {
  const m = /^([^/]{1,16})\/\s*\+?(\d+)/.exec(rule);
  if (!m) return false;
  const mask = Number(m[2]);
  if (mask > 32) return false;
  if (mask === 0) return true;
  const a1 = ipv4Number(m[1] as string);
  const a2 = ipv4Number(address);
  if (a1 === undefined || a2 === undefined) return false;
  const shift = 32 - mask;
  return Math.floor(a1 / 2 ** shift) === Math.floor(a2 / 2 ** shift);
}

/** Reads `%63[^sep]` fields as the C loop does: an empty field leaves the previous one in place. */
function fieldReader(text: string, sep: string): () => string | undefined {
  let pos = 0;
  let last: string | undefined;
  return () => {
    const end = text.indexOf(sep, pos);
    const field = pos >= text.length ? "" : text.slice(pos, end < 0 ? text.length : end).slice(0, 63);
    if (field !== "") last = field;
    pos += (last ?? "").length + 1;
    return field === "" ? undefined : last;
  };
}

function ipv4RangeMatch(rule: string, address: string): boolean {
  const ruleFields = fieldReader(rule, ".");
  const addressFields = fieldReader(address, ".");
  let from = -1;
  let to = -1;
  let cmp = -1;
  let b2 = "";
  for (let i = 0; i < 4; i++) {
    const b1 = ruleFields();
    if (b1 === undefined) break;
    b2 = addressFields() ?? b2;
    if (b1.includes("-")) {
      const m = /^\s*([+-]?\d+)-([+-]?\d+)/.exec(b1);
      if (m) {
        from = Number(m[1]);
        to = Number(m[2]);
      } else {
        const f = scanInt(b1, 10);
        if (f !== undefined) from = f;
      }
      cmp = scanInt(b2, 10) ?? cmp;
      if (from < 0 || to < 0) return false;
      if (from > cmp || cmp > to) return false;
    } else {
      from = scanInt(b1, 10) ?? from;
      cmp = scanInt(b2, 10) ?? cmp;
      if (from !== cmp) return false;
    }
  }
  return true;
}

function ipv6CidrMatch(rule: string, address: string): boolean {
  const m = /^([^/]{1,40})\/\s*\+?(\d+)/.exec(rule);
  if (!m) return false;
  const mask = Number(m[2]);
  if (mask > 128 || mask % 8 !== 0) return false;
  const a1 = ipv6Bytes(m[1] as string);
  const a2 = ipv6Bytes(address);
  for (let i = 0; i < mask / 8; i++) if (a1[i] !== a2[i]) return false;
  return true;
}

function ipv6RangeMatch(rule: string, address: string): boolean {
  const ruleFields = fieldReader(rule, ":");
  const addressFields = fieldReader(address, ":");
  let from = -1;
  let to = -1;
  let cmp = -1;
  let b1 = "";
  let b2 = "";
  for (let i = 0; i < 8; i++) {
    b1 = ruleFields() ?? b1;
    b2 = addressFields() ?? b2;
    if (b1.includes("-")) {
      const m = /^\s*((?:0[xX])?[0-9a-fA-F]+)-((?:0[xX])?[0-9a-fA-F]+)/.exec(b1);
      if (m) {
        from = Number.parseInt(m[1] as string, 16);
        to = Number.parseInt(m[2] as string, 16);
      }
      cmp = scanInt(b2, 16) ?? cmp;
      if (from < 0 || to < 0) return false;
      if (from >= cmp || cmp > to) return false;
    } else {
      from = scanInt(b1, 10) ?? from;
      cmp = scanInt(b2, 10) ?? cmp;
      if (from !== cmp) return false;
    }
  }
  return true;
}

/**
 * IsRegex (libpromises/matching.c): whether a string looks meant as a
 * regular expression (a `*`, `+`, `[...]` or an alternation in parentheses).
 */
export function looksLikeRegex(text: string): boolean {
  let special: "norm" | "norepeat" | "literal" = "norepeat";
  let bracket = 0;
  let paren = 0;
  let ret = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (special === "literal") {
      special = "norm";
      continue;
    }
    if (c === "\\") {
      special = "literal";
      continue;
    }
    if (bracket && c !== "]") {
      if (c === "[") return false;
      continue;
    }
    switch (c) {
      case "^":
        special = i === 0 ? "norepeat" : "norm";
        break;
      case "*":
      case "+":
        if (special === "norepeat") return false;
        special = "norepeat";
        ret = true;
        break;
      case "[":
        special = "norm";
        bracket++;
        ret = true;
        break;
      case "]":
        if (bracket === 0) return false;
        bracket = 0;
        special = "norm";
        break;
      case "(":
        special = "norepeat";
        paren++;
        break;
      case ")":
        special = "norm";
        paren--;
        if (paren < 0) return false;
        break;
      case "|":
        special = "norepeat";
        if (paren > 0) ret = true;
        break;
      default:
        special = "norm";
    }
  }
  if (bracket !== 0 || paren !== 0 || special === "literal") return false;
  return ret;
}

/**
 * IsMatchItemIn, for the connection lists of body server control: an
 * unknown (empty) address is in every list; else an entry matches by
 * FuzzySetMatch, or as a regex when it looks like one.
 */
export function matchItemIn(list: readonly string[], address: string): boolean {
  if (address === "") return true;
  return list.some((e) => fuzzySetMatch(e, address) || (looksLikeRegex(e) && regexMatchesFully(e, address)));
}

/** What the legacy `admit`/`deny` list item is: a key, an IP or network, or a hostname (AdmitType). */
export function legacyItemKind(item: string): "key" | "ip" | "hostname" {
  if (item.startsWith("SHA=") || item.startsWith("MD5=")) return "key";
  if (/^[0-9a-f.:/[\-\]*()\\]*$/.test(item)) return "ip";
  return "hostname";
}

/**
 * The hostname rules a legacy `admit`/`deny` item becomes
 * (StrList_AppendRegexHostname): a plain name as itself; a regex of the
 * form `.*\.domain\.tld` as the domain `.domain.tld` (and `^`/`\.` hints
 * say whether the host form is wanted too); other regexes are dropped.
 */
export function legacyHostnameRules(host: string): string[] {
  if (!looksLikeRegex(host)) return [host];
  if (/[({[|+?\]})]/.test(host)) return [];
  let skipDomain = false;
  let skipHost = false;
  let name = host;
  if (name.startsWith("^")) {
    skipDomain = true;
    name = name.slice(1);
  }
  if (name.startsWith(".*")) {
    skipDomain = false;
    name = name.slice(2);
  }
  if (name.startsWith("\\.")) {
    skipHost = true;
    name = name.slice(2);
  }
  if (name.includes("*")) return [];
  if (name === host && !host.includes("\\")) return [host];
  let plain = "";
  for (let i = 0; i < name.length; i++) {
    let c = name[i] as string;
    if (c === "\\") {
      i++;
      c = name[i] ?? "";
      if (c !== ".") return [];
    }
    plain += c;
  }
  const out: string[] = [];
  if (!skipHost) out.push(plain);
  if (!skipDomain) out.push(`.${plain}`);
  return out;
}
