/**
 * A whole hub (issue 14, must-show 2): the Masterfiles Policy Framework as
 * Debian's cfengine3 installs it (/usr/share/cfengine3/masterfiles, or
 * TEND_MPF_MASTERFILES) served by a hub, clients bootstrapped to it, each
 * fetching the policy through update.cf and running promises.cf.
 *
 * (a) The reference: a real hub (cf-agent -B to itself; the MPF's failsafe
 *     starts cf-serverd, which then serves the MPF on 5308) and a client
 *     bootstrapped with real cf-agent -B — what "works" looks like: the files
 *     that land in inputs/, the bootstrap's reports, the exit codes. Then a
 *     client bootstrapped with `tend agent -B` against the same real hub.
 * (b) tend serverd as the hub's server (`sys.cf_serverd` is a wrapper around
 *     `tend serverd`, which the MPF's failsafe starts as it starts
 *     cf-serverd), the hub bootstrapped to itself with `tend agent -B` (with
 *     cf-agent -B while tend has no -B), then a real cf-agent -B client and a
 *     tend agent -B client, each compared with the reference client.
 * Then a change made in the hub's masterfiles reaches every client through
 * its update.cf.
 *
 * Containment (world.ts): everything runs in a world of its own — new mount,
 * PID and network namespaces, overlays over /etc /usr /var /root /home /opt
 * /srv whose writes land in a tmpfs, a tmpfs over /run (no systemd: the MPF
 * manages no units), only lo for a network (apt, run by the MPF's package
 * inventory, reaches nothing) — and each host in its own mount namespace with
 * its work directory over /var/lib/cfengine3. The MPF's processes promises
 * see only the world's processes. cf-execd is a stand-in that only sleeps
 * (bootstrap checks that a process named cf-execd runs; the real one would
 * start scheduled agent runs in the middle of the comparison); clients have
 * no cf-serverd or cf-monitord in their bin/, so the MPF starts none there.
 * The hub's address is 127.0.0.1 (bootstrapping to it makes a host the hub:
 * the class 127_0_0_1 is defined); clients bootstrap to 127.0.0.2, the same
 * server, which is no interface address (no such class), so they are clients.
 * What was written under the overlays is reported as a diagnostic.
 *
 * Slow (minutes): the hosts are shared between the cases, which run in order.
 * Skipped with the reason without root, namespaces, cfengine3 or the MPF; the
 * cases needing a tend piece not on this tree are todo.
 */
import assert from "node:assert/strict";
import { cpSync, existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { after, test } from "node:test";
import {
  CF_BIN,
  type Host,
  Lab,
  type RunResult,
  TEND,
  tendHas,
  tendHasBootstrap,
  whyNoReference,
} from "./hosts.js";
import { World, whyNoWorld } from "./world.js";

const MASTERFILES = process.env.TEND_MPF_MASTERFILES ?? "/usr/share/cfengine3/masterfiles";
const HUB_ADDRESS = "127.0.0.1";
const CLIENT_TARGET = "127.0.0.2";
const PORT = 5308;
const LONG = 900_000;

type Impl = "cf" | "tend";

function whyNotRunnable(): string | undefined {
  const reference = whyNoReference();
  if (reference) return reference;
  const world = whyNoWorld();
  if (world) return world;
  if (!existsSync(join(MASTERFILES, "promises.cf")) || !existsSync(join(MASTERFILES, "update.cf")))
    return `no MPF at ${MASTERFILES} (apt-get install cfengine3, or set TEND_MPF_MASTERFILES)`;
  return undefined;
}

const runnable = whyNotRunnable();
const lab = new Lab("tend-hub-");
const worlds: World[] = [];
after(async () => {
  for (const world of worlds) await world.close();
  await lab.close();
});

/** A tend wrapper that keeps the tool's name as its argv[0], as the conformance runner's do. */
function tendWrapper(sub: string): string {
  return `#!/bin/bash\nexec -a "$0" '${process.execPath}' '${TEND}' ${sub} "$@"\n`;
}

/** Stands in for cf-execd: forks away and sleeps under its name (bootstrap looks for that process). */
const FAKE_EXECD = `#!/bin/bash\n(exec -a "$0" sleep infinity) </dev/null >/dev/null 2>&1 &\n`;

/**
 * Fills `bin/`: the agent side (cf-agent, cf-promises, cf-key, cf-net,
 * cf-runagent) from `agent`, cf-serverd (hubs only) from `server`, cf-execd the stand-in.
 */
function fillBin(host: Host, agent: Impl, server: Impl | undefined): void {
  const tend: Record<string, string> = {
    "cf-agent": "agent",
    "cf-promises": "check",
    "cf-key": "key",
    "cf-net": "net",
    "cf-runagent": "runagent",
    "cf-serverd": "serverd",
  };
  const put = (tool: string, impl: Impl) => {
    if (impl === "cf") symlinkSync(join(CF_BIN, tool), join(host.bin, tool));
    else writeFileSync(join(host.bin, tool), tendWrapper(tend[tool]!), { mode: 0o755 });
  };
  for (const tool of ["cf-agent", "cf-promises", "cf-key", "cf-net", "cf-runagent"]) put(tool, agent);
  if (server) put("cf-serverd", server);
  writeFileSync(join(host.bin, "cf-execd"), FAKE_EXECD, { mode: 0o755 });
}

function agentArgv(impl: Impl, args: readonly string[]): string[] {
  return impl === "cf" ? [join(CF_BIN, "cf-agent"), ...args] : [process.execPath, TEND, "agent", ...args];
}

/** Relative paths of the files under `dir` (directories end in "/"). */
function listFiles(dir: string, base = dir): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const rel = relative(base, path);
    out.push(entry.isDirectory() ? `${rel}/` : rel);
    if (entry.isDirectory()) out.push(...listFiles(path, base));
  }
  return out.sort();
}

function reportLines(run: RunResult): string[] {
  return run.stdout
    .split("\n")
    .filter((l) => /^R: /.test(l.trim()))
    .map((l) => l.trim().replace(/'\/[^']*\/inputs\/failsafe\.cf'/, "'INPUTS/failsafe.cf'"));
}

function errorLines(run: RunResult, hosts: readonly Host[]): string[] {
  let text = `${run.stdout}\n${run.stderr}`;
  for (const h of hosts)
    text = text.split(h.dir).join(`<${h.name}>`).split(h.keys.digest).join(`<${h.name} key>`);
  return [
    ...new Set(
      text
        .split("\n")
        .filter((l) => /^\s*error: /.test(l))
        .map((l) => l.trim()),
    ),
  ].sort();
}

function outcomeLine(run: RunResult): string {
  return `${run.command.split(" ").slice(-3).join(" ")} exited ${run.status}`;
}

/** The clients bootstrapped so far, by name. */
const clients = new Map<string, { host: Host; impl: Impl }>();

/** What a bootstrapped client ends with. */
interface ClientOutcome {
  readonly bootstrap: { status: number; reports: string[] };
  readonly policyServer: string | undefined;
  readonly trustsHub: boolean;
  readonly hubTrustsClient: boolean;
  readonly inputs: string[];
  readonly update: { status: number; errors: string[] };
  readonly promises: { status: number; errors: string[] };
}

function readMaybe(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return undefined;
  }
}

/** Files of inputs/ the comparison leaves out: each agent's own bookkeeping. */
function comparableInputs(list: readonly string[]): string[] {
  return list.filter((p) => !/^cf_promises_release_id(\.cfsaved)?$/.test(p));
}

async function bootstrapClient(
  world: World,
  hub: Host,
  impl: Impl,
  name: string,
  t: { diagnostic(message: string): void },
): Promise<{ host: Host; outcome: ClientOutcome }> {
  const host = await lab.host(name, { bin: false });
  fillBin(host, impl, undefined);
  clients.set(name, { host, impl });
  const bootstrap = world.run(host, agentArgv(impl, ["-B", CLIENT_TARGET]));
  t.diagnostic(`${name}: ${outcomeLine(bootstrap)}`);
  for (const line of reportLines(bootstrap)) t.diagnostic(`${name}: ${line}`);
  const update = world.run(host, agentArgv(impl, ["-K", "-I", "-f", "update.cf"]));
  t.diagnostic(`${name}: ${outcomeLine(update)}`);
  const promises = world.run(host, agentArgv(impl, ["-K", "-I"]));
  t.diagnostic(`${name}: ${outcomeLine(promises)}`);
  const hosts = [hub, host];
  const outcome: ClientOutcome = {
    bootstrap: { status: bootstrap.status, reports: reportLines(bootstrap) },
    policyServer: readMaybe(join(host.dir, "policy_server.dat")),
    trustsHub: host.trusts(hub),
    hubTrustsClient: hub.trusts(host),
    inputs: comparableInputs(listFiles(host.inputs)),
    update: { status: update.status, errors: errorLines(update, hosts) },
    promises: { status: promises.status, errors: errorLines(promises, hosts) },
  };
  for (const e of outcome.update.errors) t.diagnostic(`${name} update.cf: ${e}`);
  for (const e of outcome.promises.errors) t.diagnostic(`${name} promises.cf: ${e}`);
  return { host, outcome };
}

/** A hub: the MPF in masterfiles/, bootstrapped to itself, its server listening; the bootstrap run. */
async function makeHub(
  world: World,
  agent: Impl,
  server: Impl,
  name: string,
  t: { diagnostic(message: string): void },
): Promise<{ hub: Host; bootstrap: RunResult }> {
  const hub = await lab.host(name, { bin: false });
  fillBin(hub, agent, server);
  cpSync(MASTERFILES, join(hub.dir, "masterfiles"), { recursive: true });
  const bootstrap = world.run(hub, agentArgv(agent, ["-B", HUB_ADDRESS]));
  t.diagnostic(`${name}: ${outcomeLine(bootstrap)}`);
  for (const line of reportLines(bootstrap)) t.diagnostic(`${name}: ${line}`);
  for (const e of errorLines(bootstrap, [hub])) t.diagnostic(`${name}: ${e}`);
  await world.waitListening(PORT);
  return { hub, bootstrap };
}

// ------------------------------------------------------------------ (a) a real hub

interface RealHub {
  readonly world: World;
  readonly hub: Host;
  readonly bootstrap: RunResult;
}

let realHub: Promise<RealHub> | undefined;
function getRealHub(t: { diagnostic(message: string): void }): Promise<RealHub> {
  realHub ??= (async () => {
    const world = await World.create(lab.root);
    worlds.push(world);
    const { hub, bootstrap } = await makeHub(world, "cf", "cf", "hub-cf", t);
    return { world, hub, bootstrap };
  })();
  return realHub;
}

let reference: Promise<{ host: Host; outcome: ClientOutcome }> | undefined;
function getReference(t: { diagnostic(message: string): void }) {
  reference ??= (async () => {
    const { world, hub } = await getRealHub(t);
    return bootstrapClient(world, hub, "cf", "client-cf-of-cf", t);
  })();
  return reference;
}

test("(a) a real hub: cf-agent -B to itself, the MPF's failsafe starts cf-serverd", {
  timeout: LONG,
}, async (t) => {
  if (runnable) return t.skip(runnable);
  const { world, hub, bootstrap } = await getRealHub(t);
  assert.equal(bootstrap.status, 0, bootstrap.stdout);
  assert.match(bootstrap.stdout, /This host assumes the role of policy server/);
  assert.equal(readMaybe(join(hub.dir, "policy_server.dat")), HUB_ADDRESS);
  assert.ok(existsSync(join(hub.dir, "state", "am_policy_hub")), "state/am_policy_hub");
  assert.ok(world.listening(PORT), "the hub's server listens on 5308");
  for (const p of world.processes()) t.diagnostic(`process: ${p}`);
});

test("(a) reference: a client bootstrapped with cf-agent -B to the real hub", {
  timeout: LONG,
}, async (t) => {
  if (runnable) return t.skip(runnable);
  const { hub } = await getRealHub(t);
  const { outcome } = await getReference(t);
  assert.equal(outcome.bootstrap.status, 0);
  assert.ok(
    outcome.bootstrap.reports.includes("R: This autonomous node assumes the role of voluntary client"),
  );
  assert.equal(outcome.policyServer, CLIENT_TARGET);
  assert.ok(outcome.trustsHub && outcome.hubTrustsClient, "keys exchanged both ways");
  const masterfiles = listFiles(join(hub.dir, "masterfiles")).filter((p) => p.endsWith(".cf"));
  for (const cf of masterfiles) assert.ok(outcome.inputs.includes(cf), `inputs/${cf} fetched`);
  t.diagnostic(
    `inputs: ${outcome.inputs.length} entries; update.cf exit ${outcome.update.status}, promises.cf exit ${outcome.promises.status}`,
  );
});

/** A client's outcome against the reference client's: what must be the same. */
function assertLikeReference(got: ClientOutcome, ref: ClientOutcome, client: Impl = "cf"): void {
  assert.equal(got.bootstrap.status, ref.bootstrap.status, "bootstrap exit code");
  // tend's built-in failsafe words its first two reports itself (3.21's text is not copied):
  // those must still say a bootstrap from the hub and the client role.
  const own = (r: string) => /^R: Bootstrapping from host |role|client of the policy server/.test(r);
  if (client === "tend") {
    assert.ok(
      got.bootstrap.reports.some((r) => /client/.test(r)),
      "the bootstrap reports the client role",
    );
    assert.deepEqual(
      got.bootstrap.reports.filter((r) => !own(r)),
      ref.bootstrap.reports.filter((r) => !own(r)),
      "bootstrap reports",
    );
  } else assert.deepEqual(got.bootstrap.reports, ref.bootstrap.reports, "bootstrap reports");
  assert.equal(got.policyServer, ref.policyServer, "policy_server.dat");
  assert.equal(got.trustsHub, ref.trustsHub, "the client trusts the hub's key");
  assert.equal(got.hubTrustsClient, ref.hubTrustsClient, "the hub trusts the client's key");
  assert.deepEqual(got.inputs, ref.inputs, "the files in inputs/");
  assert.equal(got.update.status, ref.update.status, "update.cf exit code");
  assert.equal(got.promises.status, ref.promises.status, "promises.cf exit code");
}

test("(a) tend agent -B against the real hub: update.cf and promises.cf", { timeout: LONG }, async (t) => {
  if (runnable) return t.skip(runnable);
  if (!tendHasBootstrap()) return t.todo("tend agent -B is not on this tree yet");
  const { world, hub } = await getRealHub(t);
  const ref = await getReference(t);
  const { outcome } = await bootstrapClient(world, hub, "tend", "client-tend-of-cf", t);
  assertLikeReference(outcome, ref.outcome, "tend");
});

// ------------------------------------------------------------------ (b) tend serverd as the hub's server

interface TendHub extends RealHub {
  readonly agent: Impl;
}

let tendHub: Promise<TendHub> | undefined;
function getTendHub(t: { diagnostic(message: string): void }): Promise<TendHub> {
  tendHub ??= (async () => {
    const world = await World.create(lab.root);
    worlds.push(world);
    const agent: Impl = tendHasBootstrap() ? "tend" : "cf";
    t.diagnostic(
      `the tend hub is bootstrapped with ${agent === "tend" ? "tend agent -B" : "cf-agent -B (tend has no -B yet)"}`,
    );
    const { hub, bootstrap } = await makeHub(world, agent, "tend", "hub-tend", t);
    return { world, hub, bootstrap, agent };
  })();
  return tendHub;
}

test("(b) a hub whose server is tend serverd, started by the MPF's failsafe", {
  timeout: LONG,
}, async (t) => {
  if (runnable) return t.skip(runnable);
  if (!tendHas("serverd")) return t.todo("tend serverd is not on this tree yet");
  const { world, hub, bootstrap } = await getTendHub(t);
  for (const p of world.processes()) t.diagnostic(`process: ${p}`);
  assert.equal(bootstrap.status, 0, bootstrap.stdout);
  assert.equal(readMaybe(join(hub.dir, "policy_server.dat")), HUB_ADDRESS);
  assert.ok(world.listening(PORT), "tend serverd listens on 5308");
  assert.ok(serverSeenByMpf(world, hub), SEEN_BY_MPF);
});

/**
 * Whether the hub's server shows in the process table as
 * `<bindir>/cf-serverd`, which the MPF's processes promises look for (else
 * each run starts another, and clients' failsafe reports that it failed to
 * start the server, which they find nowhere).
 */
function serverSeenByMpf(world: World, hub: Host): boolean {
  return world.processes().some((p) => p.startsWith(`${hub.bin}/cf-serverd`));
}

const SEEN_BY_MPF =
  "tend serverd's detached process keeps the name <bindir>/cf-serverd the MPF's wrapper started it under, " +
  "so the MPF's processes promises see the server";

test("(b) a client bootstrapped with cf-agent -B to the tend serverd hub", { timeout: LONG }, async (t) => {
  if (runnable) return t.skip(runnable);
  if (!tendHas("serverd")) return t.todo("tend serverd is not on this tree yet");
  const { world, hub } = await getTendHub(t);
  const ref = await getReference(t);
  const { outcome } = await bootstrapClient(world, hub, "cf", "client-cf-of-tend", t);
  assertLikeReference(outcome, ref.outcome);
  assert.deepEqual(outcome.update.errors, ref.outcome.update.errors, "cf-agent's update.cf errors");
});

test("(b) a client bootstrapped with tend agent -B to the tend serverd hub", { timeout: LONG }, async (t) => {
  if (runnable) return t.skip(runnable);
  if (!tendHas("serverd")) return t.todo("tend serverd is not on this tree yet");
  if (!tendHasBootstrap()) return t.todo("tend agent -B is not on this tree yet");
  const { world, hub } = await getTendHub(t);
  const ref = await getReference(t);
  const { outcome } = await bootstrapClient(world, hub, "tend", "client-tend-of-tend", t);
  assertLikeReference(outcome, ref.outcome, "tend");
});

/** Paths written under the overlays, grouped by their first four components, with counts. */
function summarizeWrites(paths: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const p of paths) {
    const key = p.split("/").slice(0, 5).join("/");
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${k} (${n})`);
}

// ------------------------------------------------------------------ a change on the hub reaches the clients

const PROBE = "services/tend_probe.cf";

test("a change in the hub's masterfiles reaches each client through update.cf", {
  timeout: LONG,
}, async (t) => {
  if (runnable) return t.skip(runnable);
  const hubs: { label: string; hub: Promise<RealHub>; agent: Impl; clients: string[] }[] = [
    { label: "real hub", hub: getRealHub(t), agent: "cf", clients: ["client-cf-of-cf", "client-tend-of-cf"] },
  ];
  if (tendHas("serverd")) {
    const th = getTendHub(t);
    hubs.push({
      label: "tend hub",
      hub: th,
      agent: (await th).agent,
      clients: ["client-cf-of-tend", "client-tend-of-tend"],
    });
  }
  for (const entry of hubs) {
    const { world, hub } = await entry.hub;
    writeFileSync(join(hub.dir, "masterfiles", PROBE), `# changed on the ${entry.label} by the test\n`);
    // As a hub's administrator does after a change: validate masterfiles and tag the release
    // (cf_promises_validated, which clients' update.cf fetch first).
    const tag = world.run(hub, [join(hub.bin, "cf-promises"), "-T", join(hub.dir, "masterfiles")]);
    t.diagnostic(`${entry.label}: ${outcomeLine(tag)}`);
    assert.equal(tag.status, 0, `${entry.label}: cf-promises -T masterfiles\n${tag.stdout}${tag.stderr}`);
    const hubUpdate = world.run(hub, agentArgv(entry.agent, ["-K", "-I", "-f", "update.cf"]));
    t.diagnostic(`${entry.label}: ${outcomeLine(hubUpdate)}`);
    for (const name of entry.clients) {
      const client = clients.get(name);
      if (client === undefined) continue;
      const run = world.run(client.host, agentArgv(client.impl, ["-K", "-I", "-f", "update.cf"]));
      t.diagnostic(`${name}: ${outcomeLine(run)}`);
      assert.ok(
        existsSync(join(client.host.inputs, PROBE)),
        `${name} fetched ${PROBE} from the ${entry.label}`,
      );
    }
  }
  for (const world of worlds)
    for (const w of summarizeWrites(world.writes())) t.diagnostic(`written under the overlays: ${w}`);
});
