/**
 * `tend serverd` as a command: cf-serverd's options and exit codes, its
 * start-up lines, the pid file, signals, and the background start.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { fileURLToPath } from "node:url";
import { writeKeyPair } from "../../../src/net/keys.js";
import { testKeys } from "./harness.js";

const TEND = fileURLToPath(new URL("../../../../bin/tend.js", import.meta.url));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

interface Setup {
  readonly dir: string;
  readonly workdir: string;
  readonly policy: string;
  readonly port: number;
}

async function setup(t: TestContext, keys = true): Promise<Setup> {
  const dir = mkdtempSync(join(tmpdir(), "tend-serverd-cli-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const workdir = join(dir, "work");
  if (keys) writeKeyPair(join(workdir, "ppkeys"), testKeys(0));
  const port = await freePort();
  const policy = join(dir, "promises.cf");
  writeFileSync(
    policy,
    `body common control { bundlesequence => { "main" }; }
bundle agent main { }
body server control { port => "${port}"; bindtointerface => "127.0.0.1"; }
bundle server access { access: "${dir}/" admit_ips => { "127.0.0.1" }; }
`,
  );
  return { dir, workdir, policy, port };
}

function env(): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  delete out.CFENGINE_TEST_OVERRIDE_WORKDIR;
  return out;
}

function tend(args: readonly string[]) {
  return spawnSync(process.execPath, [TEND, "serverd", ...args], {
    encoding: "utf8",
    env: env(),
    timeout: 60_000,
  });
}

/** A foreground server; killed after the test whatever happens. */
function foreground(t: TestContext, args: readonly string[]): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [TEND, "serverd", ...args], {
    env: env(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  child.stdout?.on("data", (d: Buffer) => {
    text += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    text += d.toString();
  });
  t.after(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });
  return { child, output: () => text };
}

async function until(condition: () => boolean, what: string | (() => string)): Promise<void> {
  for (let i = 0; i < 3000 && !condition(); i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(condition(), typeof what === "string" ? what : what());
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });
}

test("--help, -V and bad options", () => {
  const help = tend(["--help"]);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /^Usage: tend serverd/);
  assert.match(tend(["-V"]).stdout, /^tend \d/);
  const bad = tend(["--frobnicate"]);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /unknown option '--frobnicate'/);
  assert.equal(tend(["-F", "a.cf", "b.cf"]).status, 1);
  assert.equal(tend(["-g", "loud"]).status, 1);
});

test("no key pair: an error and exit 1 (cf-serverd exits 0 there)", async (t) => {
  const s = await setup(t, false);
  const run = tend(["-F", "-w", s.workdir, "-f", s.policy]);
  assert.equal(run.status, 1);
  assert.match(run.stdout, /error: Public\/private key pair not loaded, please create one using cf-key/);
});

test("a policy that does not load: its errors and exit 1", async (t) => {
  const s = await setup(t);
  writeFileSync(s.policy, 'bundle agent main {\n  vars: "x" string => ;\n}\n');
  const run = tend(["-F", "-w", s.workdir, "-f", s.policy]);
  assert.equal(run.status, 1);
  assert.match(run.stdout, /error: Error reading CFEngine policy\. Exiting\.\.\./);
});

test("foreground: starts, writes its pid, stops on SIGTERM and removes it", async (t) => {
  const s = await setup(t);
  const server = foreground(t, ["-F", "-I", "-w", s.workdir, "-f", s.policy]);
  await until(() => server.output().includes("Server is starting..."), "the server never started");
  assert.equal(server.output(), "  notice: Server is starting...\n");
  const pidFile = join(s.workdir, "cf-serverd.pid");
  assert.equal(readFileSync(pidFile, "utf8"), `${server.child.pid}\n`);
  const taken = tend(["-F", "-w", s.workdir, "-f", s.policy]);
  assert.equal(taken.status, 1);
  assert.equal(
    taken.stdout,
    [
      "   error: Could not bind server address. (bind: Address already in use)",
      "   error: Failed to bind to all attempted addresses (bind specification: '127.0.0.1'",
      "   error: Unable to start server",
      "",
    ].join("\n"),
  );
  server.child.kill("SIGTERM");
  assert.equal(await exited(server.child), 0);
  assert.match(server.output(), /notice: Cleaning up and exiting\.\.\.\n$/);
  assert.equal(existsSync(pidFile), false);
});

test("SIGHUP reloads the policy", async (t) => {
  const s = await setup(t);
  const server = foreground(t, ["-v", "-w", s.workdir, "-f", s.policy]);
  await until(() => server.output().includes("Server is starting..."), "the server never started");
  server.child.kill("SIGHUP");
  await until(
    () => server.output().includes("Rereading policy file"),
    () => `no reload:\n${server.output().slice(-3000)}`,
  );
  server.child.kill("SIGTERM");
  assert.equal(await exited(server.child), 0);
});

test("without -F it runs in the background and the first process exits 0", async (t) => {
  const s = await setup(t);
  const run = tend(["-w", s.workdir, "-f", s.policy]);
  assert.equal(run.status, 0, run.stdout + run.stderr);
  const pidFile = join(s.workdir, "cf-serverd.pid");
  const pid = Number(readFileSync(pidFile, "utf8"));
  t.after(() => {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  });
  assert.notEqual(pid, run.pid);
  await new Promise<void>((resolve, reject) => {
    const socket = net.connect(s.port, "127.0.0.1", () => {
      socket.destroy();
      resolve();
    });
    socket.on("error", reject);
  });
  process.kill(pid, "SIGTERM");
  await until(() => !existsSync(pidFile), "the pid file stayed");
});
