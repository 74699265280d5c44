/**
 * `sys.host`, `sys.fqhost`, `sys.uqhost`, `sys.domain` and their classes
 * when the node name resolves through DNS, tend agent against cf-agent
 * 3.21: both ask gethostbyname's sources as nsswitch.conf orders them, and
 * DNS as resolv.conf says (search list, ndots, timeout, attempts).
 *
 * Each agent runs in a private network, UTS and mount namespace: loopback
 * up, a DNS server (dns-server.ts, node:dgram) on 127.0.0.1:53 answering
 * A and CNAME records of a test zone and logging the names asked, the host
 * named, and /etc/hosts, /etc/nsswitch.conf and /etc/resolv.conf bound
 * over the machine's (which are never touched). Skipped with the reason
 * when cf-agent, namespaces or `ip` are missing.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { CF_BIN, combinedOutput, REPO, scratchHost, skipReason, TEND } from "../net/hosts.js";
import { scratchDirectory } from "../scratch.js";
import type { Zone } from "./dns-server.js";

const DNS_SERVER = fileURLToPath(new URL("./dns-server.js", import.meta.url));

function whyNot(): string | undefined {
  const reason = skipReason("cf-agent");
  if (reason) return reason;
  if (!existsSync("/etc/resolv.conf")) return "/etc/resolv.conf is missing (nothing to bind over)";
  const probe = spawnSync("unshare", ["-n", "-m", "-u", "ip", "link", "set", "lo", "up"], {
    stdio: "ignore",
  });
  return probe.status === 0
    ? undefined
    : "unshare -n with `ip link set lo up` fails here (no network namespaces or no ip)";
}

const reason = whyNot();

/**
 * In the new namespaces: loopback up, the DNS server started on the zone
 * of $1 (logging to $1/queries.log), $1's files bound over /etc's, $3
 * (when given) over cf-agent's work directory, the host named $2; then
 * the rest runs, and the server is stopped.
 */
const NAMESPACE = `set -e
d="$1"; nodename="$2"; workdir="$3"; server="$4"; shift 4
ip link set lo up
: > "$d/ready"
"$server" "${DNS_SERVER}" "$d/zone.json" "$d/queries.log" 127.0.0.1 > "$d/ready" &
pid=$!
i=0
while [ ! -s "$d/ready" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
mount --bind "$d/hosts" /etc/hosts
mount --bind "$d/nsswitch.conf" /etc/nsswitch.conf
mount --bind "$d/resolv.conf" /etc/resolv.conf
if [ -n "$workdir" ]; then mount --bind "$workdir" /var/lib/cfengine3; fi
hostname "$nodename"
set +e
"$@"
status=$?
kill $pid
exit $status`;

// Loopback alone: no sys.ipv4, and select_class seeded with the fqhost's resolved address.
const POLICY = `bundle agent main
{
  classes:
      "pick" select_class => { "p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9", "p10", "p11", "p12", "p13", "p14", "p15" };
  vars:
      "classes" slist => sort(classesmatching(".*", "derived-from=sys.fqhost"), "lex");
      "more" slist => sort(classesmatching(".*", "(derived|based)-from=sys.(uqhost|domain)|based-on=.*"), "lex");
      "picked" slist => classesmatching("p[0-9]+");
  reports:
      "ipv4=$(sys.ipv4) picked=$(with)" with => join(",", picked);
      "host=$(sys.host) fqhost=$(sys.fqhost) uqhost=$(sys.uqhost) domain=$(sys.domain)";
      "classes=$(with)" with => join(",", classes);
      "more=$(with)" with => join(",", more);
}
`;

const HOSTS = [
  "127.0.0.1 localhost",
  "127.0.1.1 both.files.test both",
  "127.0.1.2 filehost.files.test filehost",
  "",
].join("\n");

const ZONE: Zone = {
  records: {
    "web1.example.test": { cname: "real.example.test" },
    "real.example.test": { a: ["127.0.2.1"] },
    "alias.other.test": { cname: "web1.example.test" },
    "deep.example.test": { cname: "alias.other.test" },
    "web2.sub.example.test": { a: ["127.0.2.2"] },
    "both.example.test": { a: ["127.0.2.3"] },
    "noaddress.example.test": {},
  },
};

const workdirs = new Map<string, string>();

/** getHostFacts without prepareHostFacts (its worker thread), printed as the policy prints the names. */
const FACTS = `const { getHostFacts } = await import(${JSON.stringify(pathToFileURL(join(REPO, "dist/src/eval/host.js")).href)});
const f = getHostFacts();
console.log(\`R: host=\${f.hostname.toLowerCase()} fqhost=\${f.fqhost} uqhost=\${f.uqhost} domain=\${f.domain}\`);`;

/** One agent's report in a namespace set up from `dir`, and the names it asked of DNS. */
async function run(
  dir: string,
  nodename: string,
  agent: "cf" | "tend" | "facts",
): Promise<{ report: string; queries: string }> {
  const workdir = workdirs.get(agent) ?? scratchHost(`tend-host-dns-${agent}-`).dir;
  workdirs.set(agent, workdir);
  const policy = join(dir, "names.cf");
  const args = ["-K", "-f", policy];
  const argv =
    agent === "cf"
      ? [join(CF_BIN, "cf-agent"), ...args]
      : agent === "tend"
        ? [process.execPath, TEND, "agent", ...args]
        : [process.execPath, "--input-type=module", "-e", FACTS];
  writeFileSync(join(dir, "queries.log"), "");
  const child = spawn(
    "unshare",
    [
      "-n",
      "-m",
      "-u",
      "sh",
      "-c",
      NAMESPACE,
      "ns",
      dir,
      nodename,
      agent === "cf" ? workdir : "",
      process.execPath,
      ...argv,
    ],
    {
      timeout: 120_000,
      env: agent === "cf" ? process.env : { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: workdir },
    },
  );
  const output = await combinedOutput(child);
  // Reports in a fixed order: cf-agent prints the deferred `with` reports in another.
  const report = output.trim().split("\n").sort().join("\n");
  return { report, queries: readFileSync(join(dir, "queries.log"), "utf8") };
}

/** A directory of files for the namespaces. */
function setup(nsswitch: string, resolv: string, zone: Zone = ZONE): string {
  const dir = scratchDirectory("tend-host-dns-");
  writeFileSync(join(dir, "hosts"), HOSTS);
  writeFileSync(join(dir, "nsswitch.conf"), nsswitch);
  writeFileSync(join(dir, "resolv.conf"), resolv);
  writeFileSync(join(dir, "zone.json"), JSON.stringify(zone));
  writeFileSync(join(dir, "names.cf"), POLICY);
  return dir;
}

/**
 * Both agents, for each node name: the same report, and the same names
 * asked of DNS (cf-agent's start runs cf-promises, which asks them too).
 */
async function compare(
  dir: string,
  nodenames: readonly string[],
  what = "",
  sameQueries = true,
): Promise<Map<string, string>> {
  const reports = new Map<string, string>();
  for (const nodename of nodenames) {
    const theirs = await run(dir, nodename, "cf");
    const ours = await run(dir, nodename, "tend");
    assert.match(theirs.report, /R: host=/, theirs.report);
    assert.equal(ours.report, theirs.report, `node name ${nodename} ${what}`);
    if (sameQueries)
      assert.ok(
        theirs.queries === ours.queries || theirs.queries === ours.queries.repeat(2),
        `node name ${nodename}: cf-agent asked\n${theirs.queries}tend asked\n${ours.queries}`,
      );
    reports.set(nodename, theirs.report);
  }
  return reports;
}

const SEARCH = "search example.test\nnameserver 127.0.0.1\n";

test("names through DNS (search list, CNAMEs): tend agent as cf-agent", { skip: reason }, async () => {
  const dir = setup("hosts: files dns\n", SEARCH);
  const reports = await compare(dir, [
    "web1",
    "Web1",
    "alias.other.test",
    "deep",
    "web1.example.test",
    "web2.sub",
    "noaddress",
    "nothere",
    "both",
  ]);
  // The same names when getHostFacts finds them alone (a worker thread asks DNS).
  for (const nodename of ["web1", "alias.other.test", "web2.sub"]) {
    const host = reports
      .get(nodename)
      ?.split("\n")
      .find((line) => line.startsWith("R: host="));
    assert.equal((await run(dir, nodename, "facts")).report, host, `node name ${nodename}`);
  }
  // What 3.21 does, so that a change in the reference shows.
  assert.match(reports.get("web1") ?? "", /fqhost=real\.example\.test uqhost=web1 domain=\n/);
  assert.match(
    reports.get("web2.sub") ?? "",
    /fqhost=web2\.sub\.example\.test uqhost=web2\.sub domain=example\.test/,
  );
});

test("the sources in nsswitch.conf's order, with their actions", { skip: reason }, async () => {
  for (const nsswitch of [
    "hosts: dns files\n",
    "hosts: files myhostname mdns4_minimal [NOTFOUND=return] dns\n",
    // No hosts line: glibc 2.36 asks files, then dns.
    "passwd: files\n",
    "hosts: files\n",
  ]) {
    const dir = setup(nsswitch, SEARCH);
    await compare(dir, ["both", "web1", "filehost", "nothere"], nsswitch);
  }
});

test("resolv.conf's domain, ndots, and the node name's domain as search list", { skip: reason }, async () => {
  await compare(setup("hosts: files dns\n", "domain example.test\noptions ndots:2\nnameserver 127.0.0.1\n"), [
    "web2.sub",
    "web1",
    "alias.other.test",
  ]);
  await compare(setup("hosts: files dns\n", "nameserver 127.0.0.1\n"), [
    "web1.example.test",
    "web2.sub.example.test",
    "web1",
  ]);
});

test("a DNS server that refuses or stays silent: unavailable, the next source asked", {
  skip: reason,
}, async () => {
  // Nothing listens on 127.0.0.2: the source is unavailable.
  for (const nsswitch of ["hosts: dns files\n", "hosts: dns [UNAVAIL=return] files\n"]) {
    const refused = await compare(setup(nsswitch, "search example.test\nnameserver 127.0.0.2\n"), ["both"]);
    assert.match(
      refused.get("both") ?? "",
      nsswitch.includes("[") ? /fqhost=both uqhost/ : /fqhost=both\.files\.test/,
    );
  }
  // A silent server: unavailable too. cf-agent waits each try out (1 s
  // here, 4 s at each start); tend stops at its own bound, having asked fewer names.
  const silent = setup(
    "hosts: dns [UNAVAIL=return] files\n",
    "search example.test\nnameserver 127.0.0.1\noptions timeout:1 attempts:1\n",
    { records: {}, silent: true },
  );
  const quiet = await compare(silent, ["both"], "", false);
  assert.match(quiet.get("both") ?? "", /fqhost=both uqhost=both domain=\n/);
});
