/**
 * The pieces of gethostbyname(3) as glibc runs it for cf-agent: the hosts
 * line of nsswitch.conf, resolv.conf, the names a search tries, DNS
 * messages, and the dns source against a DNS server on loopback.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { queryDns } from "../../src/eval/dns-query.js";
import {
  decodeAnswer,
  encodeQuery,
  parseNsswitchHosts,
  parseResolvConf,
  type ResolverConfig,
  searchNames,
} from "../../src/eval/resolver.js";
import { answer, startDnsServer, type Zone } from "./dns-server.js";

test("nsswitch.conf's hosts line: sources in order, with their actions", () => {
  const line = parseNsswitchHosts(
    "passwd: files\n# hosts: nis\nhosts:  files mdns4_minimal [NOTFOUND=return] dns [!UNAVAIL=return]  myhostname # x\n",
  );
  assert.deepEqual(
    line.map((s) => s.name),
    ["files", "mdns4_minimal", "dns", "myhostname"],
  );
  assert.deepEqual(line[0]?.actions, {
    success: "return",
    notfound: "continue",
    unavail: "continue",
    tryagain: "continue",
  });
  assert.equal(line[1]?.actions.notfound, "return");
  assert.equal(line[1]?.actions.unavail, "continue");
  assert.deepEqual(line[2]?.actions, {
    success: "return",
    notfound: "return",
    unavail: "continue",
    tryagain: "return",
  });
  // glibc 2.36's default without a hosts line (or in an empty file).
  for (const text of [undefined, "passwd: files\n"])
    assert.deepEqual(
      parseNsswitchHosts(text).map((s) => [s.name, s.actions.notfound, s.actions.unavail]),
      [
        ["files", "continue", "continue"],
        ["dns", "continue", "continue"],
      ],
    );
});

test("resolv.conf as glibc reads it", () => {
  const config = parseResolvConf(
    "domain first.test\nsearch a.test b.test.\nnameserver 10.0.0.1\nnameserver fe80::1%eth0\n" +
      "nameserver 10.0.0.3\nnameserver 10.0.0.4\noptions ndots:2 timeout:3 attempts:9 rotate\n",
    "web1",
  );
  assert.deepEqual(config, {
    servers: [
      { address: "10.0.0.1", port: 53 },
      { address: "fe80::1", port: 53 },
      { address: "10.0.0.3", port: 53 },
    ],
    search: ["a.test", "b.test"],
    ndots: 2,
    timeout: 3,
    attempts: 5,
  });
  // The last of search and domain wins; no nameserver is the local one.
  const local = parseResolvConf("search a.test\ndomain last.test\n", "web1");
  assert.deepEqual(local.search, ["last.test"]);
  assert.deepEqual(local.servers, [{ address: "127.0.0.1", port: 53 }]);
  // No search list: the node name's domain, if it has one.
  assert.deepEqual(parseResolvConf(undefined, "web1.example.test").search, ["example.test"]);
  assert.deepEqual(parseResolvConf(undefined, "web1").search, []);
  // The environment over the file.
  const env = parseResolvConf("search a.test\n", "web1", {
    LOCALDOMAIN: "x.test y.test",
    RES_OPTIONS: "ndots:3",
  });
  assert.deepEqual([env.search, env.ndots], [["x.test", "y.test"], 3]);
});

test("the names a search tries, in glibc's order", () => {
  const config: ResolverConfig = {
    servers: [],
    search: ["a.test", "b.test"],
    ndots: 1,
    timeout: 5,
    attempts: 2,
  };
  const names = (name: string, ndots = 1) => searchNames(name, { ...config, ndots }).map((c) => c.name);
  assert.deepEqual(names("web1"), ["web1.a.test", "web1.b.test", "web1"]);
  assert.deepEqual(names("web1.sub"), ["web1.sub", "web1.sub.a.test", "web1.sub.b.test"]);
  assert.deepEqual(names("web1.sub", 2), ["web1.sub.a.test", "web1.sub.b.test", "web1.sub"]);
  assert.deepEqual(names("web1.example.test."), ["web1.example.test"]);
});

const ZONE: Zone = {
  records: {
    "web1.a.test": { cname: "mid.b.test" },
    "mid.b.test": { cname: "Real.B.test" },
    "real.b.test": { a: ["10.0.0.7", "10.0.0.8"] },
    "plain.b.test": { a: ["10.0.0.9"] },
    "noaddress.a.test": {},
  },
};

test("DNS messages: a query, and the answer's canonical name and aliases", () => {
  const query = encodeQuery(0x1234, "Web1.a.test");
  assert.equal(query.readUInt16BE(0), 0x1234);
  const reply = answer(query, ZONE);
  assert.deepEqual(decodeAnswer(reply, 0x1234, "Web1.a.test"), {
    rcode: 0,
    entry: { name: "Real.B.test", aliases: ["Web1.a.test", "mid.b.test"], address: "10.0.0.7" },
  });
  // Not this query's answer.
  assert.equal(decodeAnswer(reply, 0x1235, "Web1.a.test"), undefined);
  assert.equal(decodeAnswer(reply, 0x1234, "other.a.test"), undefined);
  assert.deepEqual(decodeAnswer(answer(encodeQuery(1, "gone.a.test"), ZONE), 1, "gone.a.test"), { rcode: 3 });
  assert.deepEqual(decodeAnswer(answer(encodeQuery(1, "noaddress.a.test"), ZONE), 1, "noaddress.a.test"), {
    rcode: 0,
  });
  // Compressed names: the answer's owner points at the question.
  const header = Buffer.from([0, 7, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0]);
  const question = encodeQuery(7, "plain.b.test").subarray(12);
  const record = Buffer.from([0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 10, 0, 0, 9]);
  const compressed = Buffer.concat([header, question, record]);
  assert.deepEqual(decodeAnswer(compressed, 7, "plain.b.test"), {
    rcode: 0,
    entry: { name: "plain.b.test", aliases: [], address: "10.0.0.9" },
  });
});

test("the dns source asks each name of the search until one answers", async (t) => {
  const server = await startDnsServer(ZONE, "127.0.0.1");
  t.after(() => server.close());
  const config: ResolverConfig = {
    servers: [{ address: "127.0.0.1", port: server.port }],
    search: ["a.test", "b.test"],
    ndots: 1,
    timeout: 1,
    attempts: 1,
  };
  const deadline = Date.now() + 5000;
  assert.deepEqual(await queryDns("web1", config, deadline), {
    status: "success",
    entry: { name: "Real.B.test", aliases: ["web1.a.test", "mid.b.test"], address: "10.0.0.7" },
  });
  assert.deepEqual(await queryDns("plain", config, deadline), {
    status: "success",
    entry: { name: "plain.b.test", aliases: [], address: "10.0.0.9" },
  });
  assert.deepEqual(await queryDns("nowhere", config, deadline), { status: "notfound" });
  assert.deepEqual(await queryDns("noaddress", config, deadline), { status: "notfound" });
});

test("the dns source gives up at its deadline, unavailable, as when no server listens", async (t) => {
  const silent = await startDnsServer({ records: {}, silent: true }, "127.0.0.1");
  t.after(() => silent.close());
  const config: ResolverConfig = {
    servers: [{ address: "127.0.0.1", port: silent.port }],
    search: ["a.test"],
    ndots: 1,
    timeout: 5,
    attempts: 2,
  };
  const started = Date.now();
  // Not the 20 s glibc would take (two names, two attempts of 5 s): the deadline ends it.
  assert.deepEqual(await queryDns("web1", config, started + 200), { status: "unavail" });
  // A closed port answers with ICMP: unavailable too.
  const closed = await startDnsServer({ records: {} }, "127.0.0.1");
  closed.close();
  const refused = { ...config, servers: [{ address: "127.0.0.1", port: closed.port }] };
  assert.deepEqual(await queryDns("web1", refused, Date.now() + 3000), { status: "unavail" });
});
