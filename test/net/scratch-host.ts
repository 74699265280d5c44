/**
 * Scratch CFEngine "hosts" for network tests: a work directory with keys,
 * a real cf-serverd 3.21 (or any command) run in a private mount namespace
 * with that directory bound over the compiled-in /var/lib/cfengine3, on a
 * loopback address and a free high port, killed when the test ends.
 *
 * Reused by the server, copy, CLI and interop tests: keep it general.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer, Socket } from "node:net";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { generateKeyPair, type KeyPair, keyDigest, trustKey, writeKeyPair } from "../../src/net/keys.js";
import { scratchDirectory } from "../scratch.js";

/** The path of a CFEngine 3.21 tool, or undefined when it is not installed. */
export function cfengineTool(name: string): string | undefined {
  for (const dir of ["/usr/bin", "/usr/sbin", "/var/lib/cfengine3/bin", "/usr/local/bin"]) {
    const path = join(dir, name);
    if (existsSync(path)) return path;
  }
  return undefined;
}

let namespacesChecked: string | undefined | null = null;

/**
 * Why scratch hosts cannot run here (not root, no unshare, mount namespaces
 * refused), or undefined when they can.
 */
export function namespaceProblem(): string | undefined {
  if (namespacesChecked !== null) return namespacesChecked;
  if (process.getuid?.() !== 0) namespacesChecked = "scratch hosts need root (a private mount namespace)";
  else if (!existsSync("/usr/bin/unshare") && !existsSync("/bin/unshare"))
    namespacesChecked = "unshare is not installed";
  else if (!existsSync("/var/lib/cfengine3"))
    namespacesChecked = "/var/lib/cfengine3 is missing (nothing to bind a scratch work directory over)";
  else {
    const probe = spawnSync("unshare", ["-m", "true"], { stdio: "ignore" });
    namespacesChecked = probe.status === 0 ? undefined : "unshare -m fails here (no mount namespaces)";
  }
  return namespacesChecked;
}

/** Why a test needing `tools` and namespaces must skip, or undefined. */
export function skipReason(...tools: string[]): string | undefined {
  for (const tool of tools) if (!cfengineTool(tool)) return `${tool} (CFEngine 3.21) is not installed`;
  return namespaceProblem();
}

/** A random loopback address 127.x.y.z (x ≥ 2, clear of the usual 127.0.0.1/127.0.1.1). */
export function loopbackAddress(): string {
  const byte = (lo: number, hi: number): number => lo + Math.floor(Math.random() * (hi - lo + 1));
  return `127.${byte(2, 250)}.${byte(1, 250)}.${byte(2, 250)}`;
}

/** A TCP port free on `address` now (high, never 5308). */
export function freePort(address = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen({ host: address, port: 0 }, () => {
      const info = server.address();
      const port = typeof info === "object" && info ? info.port : 0;
      server.close(() =>
        port > 1024 && port !== 5308 ? resolve(port) : freePort(address).then(resolve, reject),
      );
    });
  });
}

export interface ScratchHost {
  /** The work directory (bound over /var/lib/cfengine3 for real tools). */
  readonly dir: string;
  readonly ppkeys: string;
  readonly inputs: string;
  readonly keys: KeyPair;
  readonly digest: string;
  /** Trusts another host's key for `user` (root by default) in this host's ppkeys. */
  trust(other: { keys: KeyPair }, user?: string): string;
}

/**
 * A new work directory (0700) with inputs/, ppkeys/ and a key pair written
 * by tend (or given), removed when the test process ends.
 */
export function scratchHost(prefix = "tend-net-host-", keys: KeyPair = generateKeyPair()): ScratchHost {
  const dir = scratchDirectory(prefix);
  const ppkeys = join(dir, "ppkeys");
  const inputs = join(dir, "inputs");
  for (const sub of ["inputs", "outputs", "state", "modules", "bin"])
    mkdirSync(join(dir, sub), { mode: 0o700 });
  writeKeyPair(ppkeys, keys);
  return {
    dir,
    ppkeys,
    inputs,
    keys,
    digest: keyDigest(keys.publicKey),
    trust: (other, user = "root") => trustKey(ppkeys, user, other.keys.publicKey),
  };
}

/** Runs `argv` in a private mount namespace with `dir` bound over /var/lib/cfengine3 (synchronously). */
export function runInHost(dir: string, argv: readonly string[], input?: string) {
  return spawnSync(
    "unshare",
    ["-m", "sh", "-c", 'mount --bind "$0" /var/lib/cfengine3 && exec "$@"', dir, ...argv],
    { encoding: "utf8", input, timeout: 120_000 },
  );
}

/** Starts `argv` in a host's namespace; killed (SIGKILL) when the test ends. */
export function spawnInHost(t: TestContext, dir: string, argv: readonly string[]): ChildProcess {
  const child = spawn(
    "unshare",
    ["-m", "sh", "-c", 'mount --bind "$0" /var/lib/cfengine3 && exec "$@"', dir, ...argv],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  return child;
}

export interface ServerPolicyOptions {
  readonly address: string;
  readonly port: number;
  /** Paths admitted to 127.0.0.0/8 (directories end in "/" or not, as written). */
  readonly admit?: readonly string[];
  /** Paths denied (deny_ips 127.0.0.0/8). */
  readonly deny?: readonly string[];
  /** trustkeysfrom (default: none: keys must be in ppkeys). */
  readonly trustKeysFrom?: readonly string[];
  /** allowusers (default: root). */
  readonly allowUsers?: readonly string[];
  /** Extra lines for body server control. */
  readonly control?: readonly string[];
  /** Extra text appended to the policy (more bundles, access promises in a `bundle server` …). */
  readonly extra?: string;
}

function list(items: readonly string[]): string {
  return `{ ${items.map((s) => JSON.stringify(s)).join(", ")} }`;
}

/** A cf-serverd 3.21 policy that passes cf-promises (it has a main bundle). */
export function serverPolicy(options: ServerPolicyOptions): string {
  const access = [
    ...(options.admit ?? []).map((p) => `    ${JSON.stringify(p)} admit_ips => { "127.0.0.0/8" };`),
    ...(options.deny ?? []).map((p) => `    ${JSON.stringify(p)} deny_ips => { "127.0.0.0/8" };`),
  ];
  return `body common control
{
  bundlesequence => { "main" };
}

bundle agent main
{
}

body server control
{
  port => "${options.port}";
  bindtointerface => "${options.address}";
  allowconnects => { "127.0.0.0/8" };
  allowallconnects => { "127.0.0.0/8" };
  allowusers => ${list(options.allowUsers ?? ["root"])};
  maxconnections => "200";
  trustkeysfrom => ${list(options.trustKeysFrom ?? [])};
${(options.control ?? []).map((line) => `  ${line}`).join("\n")}
}

bundle server access_rules
{
  access:
${access.join("\n")}
}
${options.extra ?? ""}
`;
}

export interface RunningServer {
  readonly host: ScratchHost;
  readonly address: string;
  readonly port: number;
  readonly process: ChildProcess;
  /** Everything the server printed so far. */
  output(): string;
}

/** Waits until something accepts TCP connections on address:port (or the child exits). */
export async function waitForPort(
  address: string,
  port: number,
  child?: ChildProcess,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child && (child.exitCode !== null || child.signalCode !== null))
      throw new Error(`the server exited (${child.exitCode ?? child.signalCode}) before listening`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = new Socket();
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
      socket.connect(port, address);
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on ${address}:${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Starts a real cf-serverd 3.21 on `host` with `policy` (written to
 * inputs/promises.cf; it must pass cf-promises or cf-serverd falls back to
 * failsafe.cf on port 5308), in the foreground, killed when the test ends.
 * Resolves once it listens.
 */
export async function startCfServerd(
  t: TestContext,
  host: ScratchHost,
  options: { address: string; port: number; policy: string; args?: readonly string[] },
): Promise<RunningServer> {
  const file = join(host.inputs, "promises.cf");
  writeFileSync(file, options.policy, { mode: 0o600 });
  const check = runInHost(host.dir, [
    cfengineTool("cf-promises") ?? "cf-promises",
    "-c",
    "-f",
    "/var/lib/cfengine3/inputs/promises.cf",
  ]);
  if (check.status !== 0)
    throw new Error(`cf-promises rejects the server policy:\n${check.stdout}${check.stderr}`);
  const child = spawnInHost(t, host.dir, [
    cfengineTool("cf-serverd") ?? "cf-serverd",
    "-F",
    "-K",
    "-f",
    "/var/lib/cfengine3/inputs/promises.cf",
    ...(options.args ?? []),
  ]);
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  try {
    await waitForPort(options.address, options.port, child);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${output}`);
  }
  return { host, address: options.address, port: options.port, process: child, output: () => output };
}
