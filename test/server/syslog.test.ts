/**
 * The daemons' system log beside cf-serverd 3.21: cf-serverd and tend
 * serverd each run in a private mount namespace whose /dev is a tmpfs
 * holding the usual devices and a /dev/log of the test's own (a Unix
 * datagram socket a small Python listener reads; Node cannot read Unix
 * datagrams), never the machine's. Each serves one client in the
 * foreground with -I and is stopped; the datagrams each sends must be the
 * same once the time and the process id are written as names (syslog
 * lines in the foreground too, info and above, `CFEngine(server)  …`,
 * user.notice by default, the policy's serverfacility).
 *
 * The same for a policy reloaded with another serverfacility (SIGHUP), and
 * for cf-monitord and tend monitord with monitorfacility.
 *
 * Skipped with the reason when cfengine3, python3 or namespaces are missing.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, type TestContext, test } from "node:test";
import { ServerConnection } from "../../src/net/client.js";
import { readKeyPair } from "../../src/net/keys.js";
import {
  type Host,
  type Impl,
  Lab,
  launcherNodeFlags,
  serverControl,
  TEND,
  whyNoReference,
} from "../net/hosts.js";

const python =
  ["/usr/bin/python3", "/usr/local/bin/python3"].find((p) => existsSync(p)) ??
  (spawnSync("python3", ["-c", ""]).status === 0 ? "python3" : undefined);
const reason =
  whyNoReference() ?? (python ? undefined : "python3 is not installed (the test's /dev/log listener)");
const lab = new Lab("tend-syslog-");
after(() => lab.close());

const LISTENER = `
import json, os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o666)
out = open(sys.argv[2], "a", buffering=1)
print("ready", flush=True)
while True:
    out.write(json.dumps(s.recv(65536).decode("latin-1")) + "\\n")
`;

/** Runs `argv` with /dev a private tmpfs whose /dev/log is `socket`; `workdir` bound over /var/lib/cfengine3 when given. */
const NAMESPACE = `set -e
mount --bind /dev "$1"
mount -t tmpfs -o mode=755 tmpfs /dev
for n in null zero full random urandom; do touch /dev/$n; mount --bind "$1/$n" /dev/$n; done
ln -s /proc/self/fd /dev/fd
ln -s "$2" /dev/log
if [ -n "$3" ]; then mount --bind "$3" /var/lib/cfengine3; fi
shift 3
exec "$@"`;

async function listener(t: TestContext, dir: string): Promise<{ socket: string; heard: () => string[] }> {
  mkdirSync(dir, { recursive: true });
  const script = join(dir, "listen.py");
  const socket = join(dir, "log.sock");
  const file = join(dir, "heard.jsonl");
  writeFileSync(script, LISTENER);
  writeFileSync(file, "");
  const child = spawn(python as string, [script, socket, file], { stdio: ["ignore", "pipe", "inherit"] });
  t.after(() => {
    child.kill("SIGKILL");
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`the listener exited (${code})`)));
  });
  return {
    socket,
    heard: () =>
      readFileSync(file, "utf8")
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as string),
  };
}

function serverPolicy(host: Host, facility?: string): string {
  const more = facility ? [`serverfacility => "${facility}";`] : [];
  const control = serverControl(host, { allowusers: ["root"], more });
  return `body common control { bundlesequence => { "main" }; }
bundle agent main { }
${control}
bundle server access_rules
{
  access:
      "${host.data}/" admit_ips => { "127.0.0.0/8" };
}
`;
}

async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  ms = 30_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface ServeOptions {
  /** `serverfacility` of the policy the server starts with. */
  readonly facility?: string;
  /** A facility remembered in the state file before the start (as a former policy left it). */
  readonly remembered?: string;
  /**
   * Rewrites the policy with this `serverfacility` ("" for none) once the
   * server listens, and reloads it (SIGHUP) before the client comes.
   */
  readonly reloadTo?: string;
}

/** Runs a server of `impl` to one client and its stop; what it sent to its /dev/log, normalised. */
/**
 * Starts `daemon` (cf-… or tend's) on `policy` in the foreground with -I,
 * in a namespace whose /dev/log is `socket`; its stdout and stderr
 * gathered, killed at the end of the test if still running.
 */
function startInSandbox(
  t: TestContext,
  host: Host,
  socket: string,
  impl: Impl,
  daemon: "serverd" | "monitord",
  policy: string,
): { child: ChildProcess; output: () => string; exited: Promise<void> } {
  const devCopy = join(host.dir, "olddev");
  mkdirSync(devCopy);
  const args = ["-F", "-I", "-f", policy];
  const program =
    impl === "cf"
      ? [`/usr/bin/cf-${daemon}`, ...args]
      : [process.execPath, ...launcherNodeFlags(daemon), TEND, daemon, ...args];
  const child: ChildProcess = spawn(
    "unshare",
    ["-m", "sh", "-c", NAMESPACE, "ns", devCopy, socket, impl === "cf" ? host.dir : "", ...program],
    { env: host.env(), stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout?.on("data", (c: Buffer) => {
    output += c.toString();
  });
  child.stderr?.on("data", (c: Buffer) => {
    output += c.toString();
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  return { child, output: () => output, exited };
}

async function serveOnce(
  t: TestContext,
  impl: Impl,
  options: ServeOptions = {},
): Promise<{ lines: string[]; remembered: string | undefined }> {
  const { facility } = options;
  const tag = `${impl}${facility ?? ""}${options.remembered ?? ""}${options.reloadTo === undefined ? "" : `-reload${options.reloadTo}`}`;
  const host = await lab.host(tag);
  const client = await lab.host(`${tag}-client`);
  host.trust(client);
  client.trust(host);
  const file = join(host.dir, "state", "cf-serverd_log_facility.dat");
  if (options.remembered) writeFileSync(file, `${options.remembered}\n`);
  const heard = await listener(t, join(host.dir, "syslog"));
  const policy = host.writePolicy("promises.cf", serverPolicy(host, facility));
  const { child, output: out, exited } = startInSandbox(t, host, heard.socket, impl, "serverd", policy);
  await waitFor(`${impl} to listen\n${out()}`, () => out().includes("Server is starting"));
  if (options.reloadTo !== undefined) {
    host.writePolicy("promises.cf", serverPolicy(host, options.reloadTo || undefined));
    child.kill("SIGHUP");
    await waitFor(`${impl} to reload\n${out()}`, () => out().includes("Rereading policy file"));
  }
  const keys = readKeyPair(client.ppkeys);
  assert.ok(keys);
  const conn = await ServerConnection.connect({
    host: host.address,
    port: host.port,
    keys,
    ppkeys: client.ppkeys,
    user: "root",
    trustServer: false,
    timeoutMs: 20_000,
  });
  assert.equal(await conn.version(), "3.21.0");
  conn.close();
  await waitFor("the server to see the client go", () => out().includes("Closing connection"), 5000).catch(
    () => {},
  );
  child.kill("SIGTERM");
  await exited;
  await waitFor(
    "the last datagram",
    () => heard.heard().some((l) => l.includes("Cleaning up and exiting")),
    5000,
  );
  const names: Record<string, string> = {
    [host.address]: "SRVADDR",
    [client.address]: "CLIADDR",
    [client.keys.digest]: "CLIKEY",
    [host.dir]: "SRVDIR",
  };
  return { lines: normalise(heard.heard(), names), remembered: remembered(file) };
}

/** Datagrams with the time, the process id and the given values written as names, the trailing newline gone. */
function normalise(datagrams: readonly string[], names: Record<string, string>): string[] {
  return datagrams.map((datagram) => {
    let line = datagram
      .replace(/^<(\d+)>[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d ([^[]+)\[\d+\]: /, "<$1> $2[PID]: ")
      .replace(/\n$/, "");
    for (const [value, name] of Object.entries(names)) line = line.split(value).join(name);
    return line;
  });
}

function remembered(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, "utf8") : undefined;
}

test("tend serverd's syslog beside cf-serverd's: one client, foreground, -I", {
  skip: reason,
  timeout: 120_000,
}, async (t) => {
  const theirs = (await serveOnce(t, "cf")).lines;
  const ours = (await serveOnce(t, "tend")).lines;
  t.diagnostic(theirs.join("\n"));
  assert.ok(
    theirs.includes("<13> cf-serverd[PID]: CFEngine(server)  Server is starting..."),
    theirs.join("\n"),
  );
  assert.deepEqual(ours, theirs);
});

test("serverfacility LOG_LOCAL3: local3 priorities, remembered for the next start", {
  skip: reason,
  timeout: 120_000,
}, async (t) => {
  const theirs = await serveOnce(t, "cf", { facility: "LOG_LOCAL3" });
  const ours = await serveOnce(t, "tend", { facility: "LOG_LOCAL3" });
  assert.ok(
    theirs.lines.includes("<157> cf-serverd[PID]: CFEngine(server)  Server is starting..."),
    theirs.lines.join("\n"),
  );
  assert.deepEqual(ours.lines, theirs.lines);
  assert.equal(theirs.remembered, "LOG_LOCAL3\n");
  assert.equal(ours.remembered, theirs.remembered);
});

test("serverfacility changed and the policy reloaded: the new facility from there on", {
  skip: reason,
  timeout: 120_000,
}, async (t) => {
  // Started without serverfacility: the one remembered (local3) stays, as in
  // 3.21; the reloaded policy's local5 applies once its control body is read.
  const theirs = await serveOnce(t, "cf", { remembered: "LOG_LOCAL3", reloadTo: "LOG_LOCAL5" });
  const ours = await serveOnce(t, "tend", { remembered: "LOG_LOCAL3", reloadTo: "LOG_LOCAL5" });
  t.diagnostic(theirs.lines.join("\n"));
  assert.ok(
    theirs.lines.includes("<157> cf-serverd[PID]: CFEngine(server)  Server is starting..."),
    theirs.lines.join("\n"),
  );
  assert.ok(
    theirs.lines.includes("<173> cf-serverd[PID]: CFEngine(server)  Cleaning up and exiting..."),
    theirs.lines.join("\n"),
  );
  assert.deepEqual(ours.lines, theirs.lines);
  assert.equal(theirs.remembered, "LOG_LOCAL5\n");
  assert.equal(ours.remembered, theirs.remembered);
});

test("a reloaded policy without serverfacility keeps the facility in use", {
  skip: reason,
  timeout: 120_000,
}, async (t) => {
  const theirs = await serveOnce(t, "cf", { facility: "LOG_LOCAL4", reloadTo: "" });
  const ours = await serveOnce(t, "tend", { facility: "LOG_LOCAL4", reloadTo: "" });
  assert.ok(
    theirs.lines.includes("<165> cf-serverd[PID]: CFEngine(server)  Cleaning up and exiting..."),
    theirs.lines.join("\n"),
  );
  assert.deepEqual(ours.lines, theirs.lines);
  assert.equal(ours.remembered, theirs.remembered);
});

/** Runs a monitor of `impl` for its first sample (-I) and stops it; its datagrams, normalised. */
async function monitorOnce(
  t: TestContext,
  impl: Impl,
  options: { facility?: string; remembered?: string },
): Promise<{ lines: string[]; remembered: string | undefined }> {
  const host = await lab.host(`mon-${impl}${options.facility ?? ""}${options.remembered ?? ""}`);
  const file = join(host.dir, "state", "cf-monitord_log_facility.dat");
  if (options.remembered) writeFileSync(file, `${options.remembered}\n`);
  const heard = await listener(t, join(host.dir, "syslog"));
  const control = options.facility
    ? `body monitor control\n{\n  monitorfacility => "${options.facility}";\n}\n`
    : "";
  const policy = host.writePolicy(
    "promises.cf",
    `body common control { bundlesequence => { "main" }; }\nbundle agent main { }\n${control}`,
  );
  const { child, output: out, exited } = startInSandbox(t, host, heard.socket, impl, "monitord", policy);
  await waitFor(`${impl} monitord's first sample\n${out()}`, () => out().includes("Updated averages"));
  await waitFor("its datagram", () => heard.heard().some((l) => l.includes("Updated averages")), 5000);
  // cf-monitord heeds a stop between samples only after its 2.5 min sleep
  // when the stop came while it was still sampling: killed after a while.
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
  await exited;
  clearTimeout(timer);
  return {
    lines: normalise(heard.heard(), {}).map((l) =>
      l.replace(/'[A-Z][a-z]{2}:Hr\d\d:Min\d\d_\d\d'/, "'SLOT'"),
    ),
    remembered: remembered(file),
  };
}

test("monitorfacility: cf-monitord's datagrams, remembered for the next start", {
  skip: reason,
  timeout: 120_000,
}, async (t) => {
  const theirs = await monitorOnce(t, "cf", { facility: "LOG_LOCAL2" });
  const ours = await monitorOnce(t, "tend", { facility: "LOG_LOCAL2" });
  t.diagnostic(theirs.lines.join("\n"));
  assert.deepEqual(theirs.lines, [
    "<150> cf-monitord[PID]: CFEngine(monitor) cf-monitord Updated averages at 'SLOT'",
  ]);
  assert.deepEqual(ours.lines, theirs.lines);
  assert.equal(theirs.remembered, "LOG_LOCAL2\n");
  assert.equal(ours.remembered, theirs.remembered);
  // No monitorfacility: the remembered one, and the file left as it is.
  const theirsAfter = await monitorOnce(t, "cf", { remembered: "LOG_DAEMON" });
  const oursAfter = await monitorOnce(t, "tend", { remembered: "LOG_DAEMON" });
  assert.deepEqual(theirsAfter.lines, [
    "<30> cf-monitord[PID]: CFEngine(monitor) cf-monitord Updated averages at 'SLOT'",
  ]);
  assert.deepEqual(oursAfter.lines, theirsAfter.lines);
  assert.equal(oursAfter.remembered, theirsAfter.remembered);
});
