/**
 * The access lists of cf-serverd 3.21, rule by rule (server_access.c,
 * strlist.c, addr_lib.c's FuzzySetMatch, server_transform.c's legacy
 * `admit` sorting).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  Acl,
  type AclEntry,
  checkResource,
  fuzzySetMatch,
  legacyHostnameRules,
  legacyItemKind,
  longestPrefix,
  looksLikeRegex,
  matchItemIn,
  replaceSpecialVariables,
  searchLongestPrefix,
  unsortedBinarySearch,
} from "../../../src/server/policy/acl.js";

const KEY = "MD5=0123456789abcdef0123456789abcdef";
const peer = { ip: "10.1.2.3", hostname: "www.example.com", key: KEY };

test("FuzzySetMatch: equal, octet prefix, CIDR, ranges, IPv6", () => {
  const cases: [string, string, boolean][] = [
    ["10.1.2.3", "10.1.2.3", true],
    ["10.1.2", "10.1.2.3", true], // prefix ending at an octet
    ["10.1", "10.12.2.3", false], // not inside an octet
    ["10.1.2.", "10.1.2.3", false], // 3.21 wants the next character to be "."
    ["10.1.2.30", "10.1.2.3", false],
    ["10.1.2.3", "10.1.2.30", false],
    ["10.0.0.0/8", "10.1.2.3", true],
    ["10.0.0.0/8", "11.1.2.3", false],
    ["10.1.2.0/24", "10.1.2.254", true],
    ["10.1.2.0/25", "10.1.2.200", false],
    ["0.0.0.0/0", "192.168.1.1", true],
    ["10.0.0.0/33", "10.1.2.3", false],
    ["10.1.2.1-10", "10.1.2.3", true],
    ["10.1.2.1-10", "10.1.2.11", false],
    ["10.1-3.2.3", "10.2.2.3", true],
    ["10.0.0.0/8-9", "10.1.2.3", false], // CIDR and range mixed
    ["::1", "::1", true],
    ["127.0.0.1", "::1", false], // IPv4 rule, IPv6 peer
    ["fe80::/16", "fe80::1", true],
    ["fe80::/16", "fe81::1", false],
    ["fe80::/12", "fe80::1", false], // not a multiple of 8
    ["abc", "abc", true],
    ["abc", "abcd", false],
  ];
  for (const [rule, address, expected] of cases)
    assert.equal(fuzzySetMatch(rule, address), expected, `${rule} ~ ${address}`);
});

test("the intended rule: the longest prefix ending in '/' or the whole path", () => {
  const entries = new Set(["/", "/a/", "/a/b/", "/a/b/c", "/x"]);
  const has = (s: string) => entries.has(s);
  assert.equal(longestPrefix("/a/b/c", has), "/a/b/c");
  assert.equal(longestPrefix("/a/b/c/d", has), "/a/b/");
  assert.equal(longestPrefix("/a/b/", has), "/a/b/");
  assert.equal(longestPrefix("/a/b", has), "/a/"); // a directory asked without its slash
  assert.equal(longestPrefix("/a/bc", has), "/a/");
  assert.equal(longestPrefix("/x/y", has), "/"); // "/x" is a file entry, no parent of /x/y
  assert.equal(longestPrefix("/q", new Set(["/a/"]).has.bind(new Set(["/a/"]))), undefined);
});

test("3.21's prefix search, quirk included: a shorter entry sends it the wrong way", () => {
  const search = (list: string[], s: string) =>
    searchLongestPrefix(
      list.map((e) => Buffer.from(e)).sort(Buffer.compare),
      Buffer.from(s),
      0x2f,
    )?.toString();
  assert.equal(search(["/", "/a/", "/a/b/", "/a/b/c"], "/a/b/c"), "/a/b/c");
  assert.equal(search(["/", "/a/", "/a/b/", "/a/b/c"], "/a/b/c/d"), "/a/b/");
  assert.equal(search(["/d/notyet", "/d/notyet2/"], "/d/notyet2/t.txt"), "/d/notyet2/");
  // Measured with cf-serverd 3.21 (reference.test.ts): "/d/notyet2/" admits nothing here.
  assert.equal(search(["/d/a/", "/d/notyet", "/d/notyet2/"], "/d/notyet2/t.txt"), undefined);
  const acl = new Acl();
  for (const name of ["/d/a/", "/d/notyet", "/d/notyet2/"]) acl.entry(name).admit.ips.push("10.1.2.3");
  assert.equal(acl.checkPath("/d/notyet2/t.txt", peer), false);
  assert.equal(acl.checkPath("/d/a/x", peer), true);
});

test("roles users are searched unsorted, as 3.21 does", () => {
  assert.equal(unsortedBinarySearch(["alice"], "alice"), true);
  assert.equal(unsortedBinarySearch(["root", "alice"], "alice"), true);
  assert.equal(unsortedBinarySearch(["root", "alice"], "root"), false);
  assert.equal(unsortedBinarySearch(["alice", "root"], "root"), true);
});

function entry(
  name: string,
  admit: Partial<AclEntry["admit"]>,
  deny: Partial<AclEntry["deny"]> = {},
): AclEntry {
  const rules = (r: Partial<AclEntry["admit"]>) => ({
    ips: r.ips ?? [],
    hostnames: r.hostnames ?? [],
    keys: r.keys ?? [],
    usernames: r.usernames ?? [],
  });
  return { name, admit: rules(admit), deny: rules(deny) };
}

test("an entry admits by IP, hostname or key; deny wins; nothing matching denies", () => {
  const table: [string, AclEntry, boolean][] = [
    ["admit ip", entry("e", { ips: ["10.1.2.3"] }), true],
    ["admit ip by CIDR", entry("e", { ips: ["10.0.0.0/8"] }), true],
    ["admit ip by regex", entry("e", { ips: ["10\\.1\\..*"] }), true],
    ["admit other ip", entry("e", { ips: ["10.1.2.4"] }), false],
    ["admit key", entry("e", { keys: [KEY] }), true],
    ["admit other key", entry("e", { keys: ["MD5=ff"] }), false],
    ["admit hostname", entry("e", { hostnames: ["www.example.com"] }), true],
    ["admit domain", entry("e", { hostnames: [".example.com"] }), true],
    ["admit other domain", entry("e", { hostnames: [".example.org"] }), false],
    ["domain without the dot is the host", entry("e", { hostnames: ["example.com"] }), false],
    ["admit hostname regex", entry("e", { hostnames: ["www\\..*"] }), true],
    ["empty entry", entry("e", {}), false],
    ["deny only", entry("e", {}, { ips: ["10.1.2.3"] }), false],
    ["admit ip, deny key", entry("e", { ips: ["10.1.2.3"] }, { keys: [KEY] }), false],
    ["admit key, deny domain", entry("e", { keys: [KEY] }, { hostnames: [".example.com"] }), false],
    ["admit domain, deny other ip", entry("e", { hostnames: [".com"] }, { ips: ["10.9.9.9"] }), true],
  ];
  for (const [name, e, expected] of table) assert.equal(checkResource(e, peer).admitted, expected, name);
  // Without a hostname (no reverse lookup), hostname rules are not consulted.
  assert.equal(
    checkResource(entry("e", { hostnames: [".example.com"] }), { ...peer, hostname: "" }).admitted,
    false,
  );
  // An explicit deny is found even when nothing admits (what the regex lists need).
  assert.deepEqual(checkResource(entry("e", {}, { ips: ["10.1.2.3"] }), peer, true), {
    admitted: false,
    found: true,
  });
});

function pathAcl(entries: [string, Partial<AclEntry["admit"]>, Partial<AclEntry["deny"]>?][]): Acl {
  const acl = new Acl();
  for (const [name, admit, deny] of entries) {
    const e = acl.entry(name);
    e.admit.ips.push(...(admit.ips ?? []));
    e.admit.keys.push(...(admit.keys ?? []));
    e.deny.ips.push(...(deny?.ips ?? []));
    e.deny.keys.push(...(deny?.keys ?? []));
  }
  return acl;
}

test("paths: the closest entry decides, its deny beats its admit, no entry denies", () => {
  const acl = pathAcl([
    ["/srv/", { ips: ["10.0.0.0/8"] }],
    ["/srv/private/", {}, { ips: ["10.1.2.3"] }],
    ["/srv/mixed/", { ips: ["10.0.0.0/8"] }, { keys: [KEY] }],
    ["/srv/open/file", { ips: ["10.1.2.3"] }],
    ["/srv/closed/", {}],
  ]);
  const table: [string, boolean][] = [
    ["/srv/", true],
    ["/srv/a/b/c", true],
    ["/srv/private/x", false], // the closer entry denies, the parent's admit does not count
    ["/srv/mixed/x", false],
    ["/srv/open/file", true],
    ["/srv/open/file2", true], // falls back to /srv/
    ["/srv/closed/x", false], // an entry without rules admits nobody
    ["/srv", false], // "/srv/" is the directory; the bare name only matches "/"
    ["/etc/passwd", false],
  ];
  for (const [path, expected] of table) assert.equal(acl.checkPath(path, peer), expected, path);
});

test("paths: entries merge across promises; a file entry is exact", () => {
  const acl = new Acl();
  acl.entry("/d/").admit.ips.push("10.1.2.3");
  acl.entry("/d/").deny.keys.push("MD5=other");
  acl.entry("/d/f").admit.keys.push("MD5=nobody");
  assert.equal(acl.checkPath("/d/g", peer), true);
  assert.equal(acl.checkPath("/d/f", peer), false);
  assert.equal(acl.checkPath("/d/f/", peer), true); // "/d/f/" is not the entry "/d/f"
});

test("paths: the second lookup with $(connection.ip/hostname/key) in the request", () => {
  const acl = new Acl();
  acl.entry("/srv/$(connection.ip).txt").admit.ips.push("$(connection.ip)");
  acl.entry("/srv/$(connection.ip)_DIR/").admit.ips.push("$(connection.ip)");
  acl.entry("/srv/$(connection.ip)_DIR/DENY").deny.ips.push("$(connection.ip)");
  acl.entry("/keys/$(connection.key)/").admit.keys.push("$(connection.key)");
  acl.entry("/hosts/$(connection.hostname)").admit.hostnames.push("$(connection.hostname)");
  acl.entry("/wrong/$(connection.ip)").admit.ips.push("10.1.2.3"); // matched against the literal name
  const table: [string, boolean][] = [
    ["/srv/10.1.2.3.txt", true],
    ["/srv/10.1.2.4.txt", false],
    ["/srv/10.1.2.3_DIR/file", true],
    ["/srv/10.1.2.3_DIR/DENY", false],
    [`/keys/${KEY}/x`, true],
    ["/hosts/www.example.com", true],
    ["/wrong/10.1.2.3", false],
  ];
  for (const [path, expected] of table) assert.equal(acl.checkPath(path, peer), expected, path);
  assert.equal(replaceSpecialVariables("/a/10.1.2.3/10.1.2.3", peer), "/a/$(connection.ip)/$(connection.ip)");
  assert.equal(replaceSpecialVariables("/a/b", peer), undefined);
});

test("exact and regex lists", () => {
  const exact = new Acl();
  exact.entry("handle1").admit.ips.push("10.1.2.3");
  assert.equal(exact.checkExact("handle1", peer), true);
  assert.equal(exact.checkExact("handle", peer), false);
  assert.equal(exact.checkExact("handle1x", peer), false);

  const regex = new Acl();
  regex.entry("linux_.*").admit.ips.push("10.0.0.0/8");
  regex.entry("linux_secret").deny.ips.push("10.1.2.3");
  regex.entry("other").admit.ips.push("10.1.2.3");
  assert.equal(regex.checkRegex("linux_x86_64", peer), true);
  assert.equal(regex.checkRegex("linux_secret", peer), false); // an explicit deny of a matching entry wins
  assert.equal(regex.checkRegex("windows", peer), false);
  assert.equal(regex.checkRegex("other", peer), true);

  const roles = new Acl();
  roles.entry(".*").admit.usernames.push("alice");
  roles.entry("dangerous").deny.usernames.push("alice");
  const alice = { ip: "", hostname: "", key: "", user: "alice" };
  assert.equal(roles.checkRegex("anything", alice), true);
  assert.equal(roles.checkRegex("anything", { ...alice, user: "bob" }), false);
});

test("legacy admit/deny items: keys, IPs, hostnames and hostname regexes", () => {
  assert.equal(legacyItemKind(KEY), "key");
  assert.equal(legacyItemKind("SHA=abc"), "key");
  assert.equal(legacyItemKind("127.0.0.1"), "ip");
  assert.equal(legacyItemKind("::1"), "ip");
  assert.equal(legacyItemKind("10.0.0.0/8"), "ip");
  assert.equal(legacyItemKind("192.168.1.1-10"), "ip");
  assert.equal(legacyItemKind("host.example.com"), "hostname");
  assert.equal(legacyItemKind("$(connection.ip)"), "hostname");
  assert.deepEqual(legacyHostnameRules("host.example.com"), ["host.example.com"]);
  assert.deepEqual(legacyHostnameRules(".*\\.example\\.com"), [".example.com"]);
  assert.deepEqual(legacyHostnameRules(".*example.com").sort(), [".example.com", "example.com"]);
  // Not a regex by IsRegex (no repetition): kept as a name, which the regex fallback still matches.
  assert.deepEqual(legacyHostnameRules("^host\\.example\\.com"), ["^host\\.example\\.com"]);
  assert.deepEqual(legacyHostnameRules("^.*\\.example\\.com"), [".example.com"]);
  assert.deepEqual(legacyHostnameRules("(a|b)\\.com"), []);
  // Not a regex either: a hostname rule "$(connection.ip)", which no hostname ever matches.
  assert.deepEqual(legacyHostnameRules("$(connection.ip)"), ["$(connection.ip)"]);
  assert.deepEqual(legacyHostnameRules("a.*b"), []);
});

test("IsRegex and the connection lists (IsMatchItemIn)", () => {
  assert.equal(looksLikeRegex("10.1.2.3"), false);
  assert.equal(looksLikeRegex("10\\.1\\..*"), true);
  assert.equal(looksLikeRegex("[0-9]+"), true);
  assert.equal(looksLikeRegex("(a|b)"), true);
  assert.equal(looksLikeRegex("*abc"), false);
  assert.equal(matchItemIn(["127.0.0.1", "::1"], "127.0.0.1"), true);
  assert.equal(matchItemIn(["127.0.0.0/8"], "127.5.6.7"), true);
  assert.equal(matchItemIn(["10.1"], "10.1.2.3"), true);
  assert.equal(matchItemIn(["192\\.168\\..*"], "192.168.7.7"), true);
  assert.equal(matchItemIn(["127.0.0.1"], "10.0.0.1"), false);
  assert.equal(matchItemIn([], "10.0.0.1"), false);
});
