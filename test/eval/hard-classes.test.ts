import assert from "node:assert/strict";
import { test } from "node:test";
import { discoverHardClasses, timeClasses } from "../../src/eval/hard-classes.js";
import type { HostFacts } from "../../src/eval/host.js";
import { parseOsRelease } from "../../src/eval/host.js";
import { createEvalContext } from "../../src/eval/setup.js";
import { parseVarRef } from "../../src/eval/var-ref.js";

const facts: HostFacts = {
  hostname: "web1.example.com",
  fqhost: "web1.example.com",
  uqhost: "web1",
  domain: "example.com",
  arch: "x86_64",
  os: "linux",
  release: "6.1.0-18-amd64",
  version: "#1 SMP",
  cpus: 4,
  osRelease: parseOsRelease('ID=debian\nVERSION_ID="12"\nNAME="Debian GNU/Linux"\n'),
  debianVersion: "12.5",
  interfaces: [
    { name: "lo", address: "127.0.0.1", family: "IPv4", mac: "00:00:00:00:00:00" },
    { name: "eth0", address: "10.1.2.3", family: "IPv4", mac: "52:54:00:12:34:56" },
    { name: "lo", address: "::1", family: "IPv6", mac: "00:00:00:00:00:00" },
  ],
  defaultGateway: "10.1.2.1",
  uid: 0,
  home: "/root",
};

test("hard classes of a Debian 12 host", () => {
  const classes = new Set(
    discoverHardClasses(facts, new Date(Date.UTC(2024, 0, 1, 5, 17))).map(([name]) => name),
  );
  for (const name of [
    "any",
    "cfengine_3_21_0",
    "community_edition",
    "linux",
    "x86_64",
    "64_bit",
    "linux_x86_64",
    "debian",
    "debian_12",
    "debian_12_5",
    "web1",
    "web1_example_com",
    "example_com",
    "4_cpus",
    "ipv4_10_1_2",
    "10_1_2_3",
    "net_iface_eth0",
    "mac_52_54_00_12_34_56",
    "ipv4_gw_10_1_2_1",
    "GMT_Hr05",
    "GMT_Min15_20",
    "GMT_Q2",
    "GMT_Monday",
    "GMT_January",
    "GMT_Yr2024",
  ]) {
    assert.ok(classes.has(name), name);
  }
  assert.ok(!classes.has("__1"));
  assert.ok(!classes.has("redhat"));
});

test("time classes name the hour, quarter, five-minute slot and period", () => {
  assert.deepEqual(timeClasses(new Date(Date.UTC(2026, 10, 21, 23, 59)), true), [
    "GMT_Hr23",
    "GMT_Hr23",
    "GMT_Hr23_Q4",
    "GMT_Q4",
    "GMT_Min59",
    "GMT_Min55_00",
    "GMT_Day21",
    "GMT_Saturday",
    "GMT_November",
    "GMT_Yr2026",
    "GMT_Lcycle_1",
    "GMT_Evening",
  ]);
});

test("sys variables and directories", () => {
  const ctx = createEvalContext({ facts, workdir: "/w", entry: "/p/promises.cf", defines: ["extra"] });
  const sys = (name: string) => ctx.getVariable(parseVarRef(`sys.${name}`))?.value;
  assert.equal(sys("workdir"), "/w");
  assert.equal(sys("inputdir"), "/w/inputs");
  assert.equal(sys("masterdir"), "/w/masterfiles");
  assert.equal(sys("libdir"), "/w/inputs/lib");
  assert.equal(sys("local_libdir"), "lib");
  assert.equal(sys("fqhost"), "web1.example.com");
  assert.equal(sys("flavor"), "debian_12");
  assert.equal(sys("cf_version"), "3.21.0");
  assert.equal(sys("policy_entry_dirname"), "/p");
  assert.equal(sys("ipv4[eth0]"), "10.1.2.3");
  assert.equal(ctx.isClassDefined("extra"), true);
});
