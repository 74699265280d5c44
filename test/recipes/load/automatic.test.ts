/**
 * Automatic attributes: the host facts tend's agent gathers, under Ohai's
 * names (fixed facts here: no test reads the machine).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { HostFacts } from "../../../src/eval/host.js";
import { automaticAttributes } from "../../../src/recipes/automatic.js";

const FACTS: HostFacts = {
  hostname: "web1.example.com",
  fqhost: "web1.example.com",
  uqhost: "web1",
  domain: "example.com",
  arch: "x86_64",
  os: "linux",
  release: "6.1.0-18-amd64",
  version: "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1",
  cpus: 4,
  osRelease: { ID: "debian", VERSION_ID: "12" },
  debianVersion: "12.5",
  interfaces: [
    { name: "lo", address: "127.0.0.1", family: "IPv4", mac: "00:00:00:00:00:00" },
    { name: "eth0", address: "192.0.2.10", family: "IPv4", mac: "52:54:00:ab:cd:ef" },
    { name: "eth0", address: "2001:db8::10", family: "IPv6", mac: "52:54:00:ab:cd:ef" },
  ],
  defaultGateway: "192.0.2.1",
  uid: 0,
  home: "/root",
  uptimeSeconds: 1234.5,
  user: { name: "root", gecos: "root", home: "/root", shell: "/bin/bash", uid: 0, gid: 0 },
};

test("host facts under Ohai's names", () => {
  const a = automaticAttributes(FACTS) as Record<string, unknown>;
  assert.deepEqual(
    {
      hostname: a.hostname,
      machinename: a.machinename,
      fqdn: a.fqdn,
      domain: a.domain,
      os: a.os,
      os_version: a.os_version,
      platform: a.platform,
      platform_version: a.platform_version,
      platform_family: a.platform_family,
      kernel: a.kernel,
      cpu: a.cpu,
      ipaddress: a.ipaddress,
      ip6address: a.ip6address,
      macaddress: a.macaddress,
      uptime_seconds: a.uptime_seconds,
      current_user: a.current_user,
      root_group: a.root_group,
    },
    {
      hostname: "web1",
      machinename: "web1.example.com",
      fqdn: "web1.example.com",
      domain: "example.com",
      os: "linux",
      os_version: "6.1.0-18-amd64",
      platform: "debian",
      platform_version: "12.5",
      platform_family: "debian",
      kernel: {
        name: "Linux",
        release: "6.1.0-18-amd64",
        version: "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1",
        machine: "x86_64",
        os: "GNU/Linux",
      },
      cpu: { total: 4 },
      ipaddress: "192.0.2.10",
      ip6address: "2001:db8::10",
      macaddress: "52:54:00:AB:CD:EF",
      uptime_seconds: 1234,
      current_user: "root",
      root_group: "root",
    },
  );
  assert.deepEqual((a.network as { interfaces: unknown }).interfaces, {
    lo: { addresses: { "127.0.0.1": { family: "inet" } } },
    eth0: {
      addresses: {
        "192.0.2.10": { family: "inet" },
        "52:54:00:AB:CD:EF": { family: "lladdr" },
        "2001:db8::10": { family: "inet6" },
      },
    },
  });
  assert.match(String((a.memory as { total: string }).total), /^\d+kB$/);
});

test("platform names and families Ohai gives other distributions", () => {
  const of = (ID: string, VERSION_ID = "9"): Record<string, unknown> =>
    automaticAttributes({ ...FACTS, osRelease: { ID, VERSION_ID }, debianVersion: undefined }) as Record<
      string,
      unknown
    >;
  assert.deepEqual([of("ubuntu").platform, of("ubuntu").platform_family], ["ubuntu", "debian"]);
  assert.deepEqual([of("rhel").platform, of("rhel").platform_family], ["redhat", "rhel"]);
  assert.deepEqual([of("rocky").platform, of("rocky").platform_family], ["rocky", "rhel"]);
  assert.deepEqual([of("fedora").platform_family, of("amzn").platform], ["fedora", "amazon"]);
  assert.equal(of("rhel", "9.3").platform_version, "9.3");
});
