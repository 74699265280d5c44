/**
 * `tend net` against a real cf-serverd 3.21 in a scratch namespace,
 * compared line by line with real cf-net 3.21 run on the same server with
 * the same arguments (each with its own work directory and key pair).
 * Skips with the reason when CFEngine or namespaces are missing.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { scratchDirectory } from "../scratch.js";
import { type Run, runTendIn } from "./run.js";
import {
  cfengineTool,
  freePort,
  loopbackAddress,
  runInHost,
  type ScratchHost,
  scratchHost,
  serverPolicy,
  skipReason,
  startCfServerd,
} from "../net/hosts.js";

const reason = skipReason("cf-serverd", "cf-promises", "cf-net");

/** Real cf-net in its host's namespace. */
function runCfNet(host: ScratchHost, args: readonly string[]): Run {
  const result = runInHost(host.dir, [cfengineTool("cf-net") ?? "cf-net", ...args]);
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** cf-net's output with its own name where tend names itself. */
function asTend(text: string): string {
  return text
    .replaceAll("cf-net help", "tend net help")
    .replaceAll("cf-net --help", "tend net --help")
    .replace(/is not a valid cf-net command/g, "is not a valid tend net command");
}

function tree(): string {
  const root = scratchDirectory("tend-netcli-tree-");
  chmodSync(root, 0o755);
  mkdirSync(join(root, "pub", "sub"), { recursive: true });
  writeFileSync(join(root, "pub", "hello.txt"), "hello world\n");
  writeFileSync(join(root, "pub", "quiet.txt"), "never read\n");
  writeFileSync(join(root, "pub", "sub", "a"), "a\n");
  writeFileSync(join(root, "pub", "denied.txt"), "no\n");
  return root;
}

async function setUp(t: TestContext) {
  const data = tree();
  const server = scratchHost("tend-netcli-srv-");
  const cf = scratchHost("tend-netcli-cf-");
  const tend = scratchHost("tend-netcli-tend-");
  const address = loopbackAddress();
  const port = await freePort(address);
  server.trust(cf);
  server.trust(tend);
  await startCfServerd(t, server, {
    address,
    port,
    policy: serverPolicy({ address, port, admit: [`${data}/pub`], deny: [`${data}/pub/denied.txt`] }),
  });
  const cwd = scratchDirectory("tend-netcli-cwd-");
  return { data, cf, tend, host: `${address}:${port}`, address, port, cwd };
}

test("tend net prints what cf-net prints against the same cf-serverd", { skip: reason }, async (t) => {
  const s = await setUp(t);
  const p = (name: string) => `${s.data}/pub/${name}`;
  const cases: string[][] = [
    ["connect"],
    ["connect"],
    ["stat", p("hello.txt")],
    ["stat", `${s.data}/pub`],
    ["stat", p("missing")],
    ["stat", p("denied.txt")],
    ["-I", "stat", p("quiet.txt")],
    ["opendir", `${s.data}/pub/sub`],
    ["opendir", `${s.data}/nowhere`],
    ["get", p("missing"), "-o", join(s.cwd, "x")],
    ["opendir"],
    ["get"],
    ["bogus"],
    ["connect", "extra"],
    ["help", "nothing"],
    [],
  ];
  for (const args of cases) {
    const full = args.length === 0 ? ["-H", s.host] : ["-H", s.host, ...args];
    const want = runCfNet(s.cf, full);
    const got = await runTendIn(s.tend.dir, ["net", ...full], s.cwd);
    assert.equal(got.stdout, asTend(want.stdout), `stdout of net ${args.join(" ")}`);
    assert.equal(got.code, want.code, `exit code of net ${args.join(" ")}`);
  }
});

test("tend net get fetches the file cf-net fetches, -j included", { skip: reason }, async (t) => {
  const s = await setUp(t);
  const out = (who: string, name: string) => join(s.cwd, `${who}-${name}`);
  const want = runCfNet(s.cf, ["-H", s.host, "get", `${s.data}/pub/hello.txt`, "-o", out("cf", "hello")]);
  const got = await runTendIn(
    s.tend.dir,
    ["net", "-H", s.host, "get", `${s.data}/pub/hello.txt`, "-o", out("tend", "hello")],
    s.cwd,
  );
  assert.equal(got.stdout, want.stdout);
  assert.equal(got.code, want.code);
  assert.equal(readFileSync(out("tend", "hello"), "utf8"), "hello world\n");
  assert.equal(readFileSync(out("cf", "hello"), "utf8"), "hello world\n");
  const jobs = await runTendIn(
    s.tend.dir,
    ["net", "-H", s.host, "get", "-j", "3", `${s.data}/pub/sub/a`, "-o", out("tend", "a-%d")],
    s.cwd,
  );
  assert.equal(jobs.code, 0, jobs.stdout);
  for (const i of [0, 1, 2]) assert.equal(readFileSync(out("tend", `a-${i}`), "utf8"), "a\n");
  const stdout = await runTendIn(
    s.tend.dir,
    ["net", "-H", s.host, "get", `${s.data}/pub/hello.txt`, "-o", "-"],
    s.cwd,
  );
  assert.equal(stdout.stdout, "hello world\n");
});

test("tend net reads the policy server from policy_server.dat, as cf-net", { skip: reason }, async (t) => {
  const s = await setUp(t);
  const none = await runTendIn(s.tend.dir, ["net", "connect"], s.cwd);
  const cfNone = runCfNet(s.cf, ["connect"]);
  assert.equal(none.stdout, cfNone.stdout);
  assert.equal(none.code, 1);
  assert.equal(cfNone.code, 1);
  writeFileSync(join(s.tend.dir, "policy_server.dat"), `${s.host}\n`);
  const got = await runTendIn(s.tend.dir, ["net", "connect"], s.cwd);
  assert.match(
    got.stdout,
    new RegExp(`Connected & authenticated successfully to '${s.host.replaceAll(".", "\\.")}'`),
  );
});

test("tend net: a host that does not answer, among several", { skip: reason }, async (t) => {
  const s = await setUp(t);
  const closed = await freePort(s.address);
  const hosts = `${s.host},${s.address}:${closed}`;
  const want = runCfNet(s.cf, ["-H", hosts, "connect"]);
  const got = await runTendIn(s.tend.dir, ["net", "-H", hosts, "connect"], s.cwd);
  assert.equal(got.stdout, want.stdout);
  assert.equal(got.code, want.code);
});

test("tend net does better where cf-net hangs or misreads", { skip: reason }, async (t) => {
  const s = await setUp(t);
  // cf-net sends GET for a directory and waits 30 s for data.
  const dir = await runTendIn(
    s.tend.dir,
    ["net", "-H", s.host, "get", `${s.data}/pub/sub`, "-o", join(s.cwd, "d")],
    s.cwd,
  );
  assert.match(dir.stdout, /is a directory, not a file/);
  assert.match(dir.stdout, /Could not stat: '/);
  // cf-net asks the server for "(null)".
  const stat = await runTendIn(s.tend.dir, ["net", "-H", s.host, "stat"], s.cwd);
  assert.equal(stat.stdout, "   error: Invalid, see: 'tend net help stat' for more info\n");
  // cf-net loops for ever on a port nobody listens on.
  const closed = await freePort(s.address);
  const multi = await runTendIn(s.tend.dir, ["net", "-H", `${s.address}:${closed}`, "multi"], s.cwd);
  assert.match(multi.stdout, /Server unavailable after 1 attempts\n/);
  assert.equal(multi.code, 0);
});
