/**
 * Scratch CFEngine "hosts" on one machine, for tests that make real
 * cf-serverd / cf-agent / cf-net / cf-runagent / cf-execd 3.21 and tend
 * talk to each other over loopback: the one helper of the server, copy,
 * CLI, execd and interop tests (keep it general).
 *
 * A host is a temporary work directory (`inputs/`, `ppkeys/` holding a key
 * pair, `state/`, `bin/`...), a loopback address and a free high port.
 * The real programs run in a private mount namespace with that directory
 * bound over their compiled-in /var/lib/cfengine3 (`hostArgv`), so nothing
 * they do reaches the machine's own CFEngine; tend is pointed at it with
 * `CFENGINE_TEST_OVERRIDE_WORKDIR` (and never looks at /var/lib/tend while
 * the override is set). The machine's own work directories are never
 * touched.
 *
 * Two ways to make one, on the same primitives (`cfengineTool`,
 * `skipReason`, `freePort`, `hostArgv`, `canConnect`):
 *
 * - A `Lab` owns its `Host`s (127.S.N.1, `bin/` linking the installed cf-*
 *   programs, `data/` for files to serve) and every daemon they start;
 *   `lab.close()` (given to `t.after`, so it also runs when a test fails)
 *   kills the daemons and removes the directories. Daemons run in the
 *   foreground (`-F`) so their process id is known; a server is only handed
 *   back once its port accepts connections, and a real cf-serverd whose
 *   policy cf-promises rejects is never started (it would fall back to
 *   failsafe.cf and listen on 5308).
 * - `scratchHost()` is a bare host (a random 127.x.y.z from
 *   `loopbackAddress()`, tend's KeyPair), its directory removed when the
 *   test process ends; `runInHost`/`spawnInHost` run programs as it and
 *   `startCfServerd` starts a real cf-serverd on a `serverPolicy`.
 */
import { type ChildProcess, type SpawnSyncReturns, spawn, spawnSync } from "node:child_process";
import type { TestContext } from "node:test";
import {
  generateKeyPair,
  type KeyPair,
  keyDigest,
  privateKeyPem,
  publicKeyPem,
  trustKey,
  writeKeyPair,
} from "../../src/net/keys.js";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { scratchDirectory } from "../scratch.js";

export const REPO = fileURLToPath(new URL("../../../", import.meta.url));
export const TEND = join(REPO, "bin", "tend.js");
/** Where Debian's cfengine3 installs the programs. */
export const CF_BIN = "/usr/bin";
const COMPILED_WORKDIR = "/var/lib/cfengine3";

/** The reference programs a host can run. */
export type CfTool = "cf-agent" | "cf-serverd" | "cf-net" | "cf-runagent" | "cf-key" | "cf-promises";
/** tend subcommands standing for them. */
export type TendTool = "agent" | "serverd" | "net" | "runagent" | "key" | "check";

/** Which implementation plays a role: the reference 3.21 program, or tend. */
export type Impl = "cf" | "tend";

/** The output of one finished program: a failure to start is a result too (status 127). */
export interface RunResult {
  readonly command: string;
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The path of a CFEngine 3.21 tool, or undefined when it is not installed. */
export function cfengineTool(name: string): string | undefined {
  for (const dir of [CF_BIN, "/usr/sbin", "/var/lib/cfengine3/bin", "/usr/local/bin"]) {
    const path = join(dir, name);
    if (existsSync(path)) return path;
  }
  return undefined;
}

let namespacesChecked: string | undefined | null = null;

/**
 * Why scratch hosts cannot run here (not root, no unshare, mount namespaces
 * refused, nothing to bind a work directory over), or undefined when they can.
 */
export function namespaceProblem(): string | undefined {
  if (namespacesChecked !== null) return namespacesChecked;
  if (process.getuid?.() !== 0) namespacesChecked = "scratch hosts need root (a private mount namespace)";
  else if (!existsSync("/usr/bin/unshare") && !existsSync("/bin/unshare"))
    namespacesChecked = "unshare (util-linux) is not installed";
  else if (!existsSync(COMPILED_WORKDIR))
    namespacesChecked = `${COMPILED_WORKDIR} is missing (nothing to bind a scratch work directory over)`;
  else {
    const probe = spawnSync("unshare", ["-m", "true"], { stdio: "ignore" });
    namespacesChecked = probe.status === 0 ? undefined : "unshare -m fails here (no mount namespaces)";
  }
  return namespacesChecked;
}

/** Why a test needing `tools` (cf-serverd...) and namespaces must skip, or undefined. */
export function skipReason(...tools: string[]): string | undefined {
  for (const tool of tools)
    if (!cfengineTool(tool)) return `${tool} (CFEngine 3.21) is not installed (apt-get install cfengine3)`;
  return namespaceProblem();
}

/** The programs a `Lab`'s hosts run from CF_BIN. */
const LAB_TOOLS = ["cf-agent", "cf-serverd", "cf-net", "cf-runagent", "cf-promises"];

/** Why a `Lab` cannot run the reference tools here, or undefined when it can. */
export function whyNoReference(): string | undefined {
  for (const tool of LAB_TOOLS)
    if (!existsSync(join(CF_BIN, tool))) return `${tool} 3.21 is not installed (apt-get install cfengine3)`;
  return namespaceProblem();
}

/** The argv running `argv` in a private mount namespace with `dir` bound over /var/lib/cfengine3. */
export function hostArgv(dir: string, argv: readonly string[]): string[] {
  return ["unshare", "-m", "sh", "-c", `mount --bind "$0" ${COMPILED_WORKDIR} && exec "$@"`, dir, ...argv];
}

const tendCommands = new Map<string, boolean>();

/**
 * Whether tend on this tree has subcommand `name` (its `--help` succeeds):
 * tests of pieces not yet landed are marked todo instead of failing.
 */
export function tendHas(name: TendTool): boolean {
  let known = tendCommands.get(name);
  if (known === undefined) {
    const r = spawnSync(process.execPath, [TEND, name, "--help"], { stdio: "ignore", timeout: 30_000 });
    known = r.status === 0;
    tendCommands.set(name, known);
  }
  return known;
}

/** Whether tend's agent can copy from a server: the synchronous client it uses is built. */
export function tendHasRemoteCopy(): boolean {
  return existsSync(join(REPO, "dist", "src", "net", "sync-client.js"));
}

/** Whether `tend agent` takes `-B`/`--bootstrap`. */
export function tendHasBootstrap(): boolean {
  const r = spawnSync(process.execPath, [TEND, "agent", "--help"], { encoding: "utf8", timeout: 30_000 });
  return r.status === 0 && /--bootstrap/.test(r.stdout);
}

/** A key pair in cf-key's formats, and the identity 3.21 derives from it. */
export interface HostKeys {
  readonly privatePem: string;
  readonly publicPem: string;
  readonly digest: string;
}

function makeKeys(): HostKeys {
  const pair = generateKeyPair();
  return {
    privatePem: privateKeyPem(pair),
    publicPem: publicKeyPem(pair.publicKey),
    digest: keyDigest(pair.publicKey),
  };
}

/** A TCP port free on `address` now (bound, then released; high, never 5308). */
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

/** A random loopback address 127.x.y.z (x ≥ 2, clear of the usual 127.0.0.1/127.0.1.1). */
export function loopbackAddress(): string {
  const byte = (lo: number, hi: number): number => lo + Math.floor(Math.random() * (hi - lo + 1));
  return `127.${byte(2, 250)}.${byte(1, 250)}.${byte(2, 250)}`;
}

/** Whether something accepts TCP connections on address:port now. */
export function canConnect(address: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: address, port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The Node options bin/tend (the installed `tend` command) starts
 * subcommand `tool` with, read from its `case` line, so that the tests run
 * a daemon as it is run for real.
 */
export function launcherNodeFlags(tool: string): string[] {
  let script: string;
  try {
    script = readFileSync(join(REPO, "bin", "tend"), "utf8");
  } catch {
    return [];
  }
  const line = script.split("\n").find((l) => l.trim().startsWith(`${tool})`));
  const match = line ? /exec node (.*?) "\$\{self/.exec(line) : null;
  return match?.[1] ? match[1].split(" ").filter((f) => f.startsWith("--")) : [];
}

/** A server started by a host: stopped by `stop()` or, at the latest, by `lab.close()`. */
export class Daemon {
  private exited = false;
  exitCode: number | null = null;
  private output = "";

  constructor(
    readonly impl: Impl,
    readonly host: Host,
    private readonly child: ReturnType<typeof spawn>,
  ) {
    child.stdout?.on("data", (chunk: Buffer) => {
      this.output += chunk.toString();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      this.output += chunk.toString();
    });
    child.on("exit", (code, signal) => {
      this.exited = true;
      this.exitCode = code ?? (signal ? 128 : null);
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return !this.exited;
  }

  /** Everything the daemon printed so far (its log: cf-serverd logs to stdout). */
  get log(): string {
    return this.output;
  }

  /** Waits until the daemon's port accepts connections; throws with its log when it died or never listened. */
  async waitListening(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.exited) throw new Error(`${this.describe()} exited (${this.exitCode}):\n${this.output}`);
      if (await canConnect(this.host.address, this.host.port)) return;
      await sleep(100);
    }
    throw new Error(`${this.describe()} did not listen within ${timeoutMs} ms:\n${this.output}`);
  }

  describe(): string {
    return `${this.impl === "cf" ? "cf-serverd" : "tend serverd"} of ${this.host.name} (${this.host.address}:${this.host.port})`;
  }

  /** Ends the daemon (TERM, then KILL) and waits for it to be gone. */
  async stop(): Promise<void> {
    if (this.exited || this.child.pid === undefined) return;
    const gone = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 5000);
    await gone;
    clearTimeout(timer);
  }
}

export interface RunOptions {
  /** Extra environment. */
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
  readonly cwd?: string;
}

export interface HostOptions {
  /** Link every installed cf-* program into `bin/` (the default); false leaves `bin/` empty. */
  readonly bin?: boolean;
}

/** One scratch host: its directory, address, port and keys. */
export class Host {
  readonly ppkeys: string;
  readonly inputs: string;
  readonly data: string;
  readonly bin: string;
  readonly keys: HostKeys;

  constructor(
    readonly lab: Lab,
    readonly name: string,
    readonly dir: string,
    readonly address: string,
    readonly port: number,
    options: HostOptions = {},
  ) {
    this.ppkeys = join(dir, "ppkeys");
    this.inputs = join(dir, "inputs");
    this.data = join(dir, "data");
    this.bin = join(dir, "bin");
    for (const sub of ["inputs", "state", "data", "bin", "outputs", "modules", "plugins"])
      mkdirSync(join(dir, sub), { recursive: true });
    mkdirSync(this.ppkeys, { mode: 0o700 });
    chmodSync(this.ppkeys, 0o700);
    this.keys = makeKeys();
    writeFileSync(join(this.ppkeys, "localhost.priv"), this.keys.privatePem, { mode: 0o600 });
    writeFileSync(join(this.ppkeys, "localhost.pub"), this.keys.publicPem, { mode: 0o600 });
    // cf-agent and cf-serverd validate policy with <workdir>/bin/cf-promises under the override.
    if (options.bin !== false && existsSync(CF_BIN))
      for (const tool of readdirSync(CF_BIN).filter((p) => p.startsWith("cf-")))
        symlinkSync(join(CF_BIN, tool), join(this.bin, tool));
  }

  /** The trusted-key file 3.21 would write for `other` (`root-MD5=….pub`). */
  trustedKeyFile(other: Host, user = "root"): string {
    return join(this.ppkeys, `${user}-${other.keys.digest}.pub`);
  }

  /** Makes this host trust `other`'s key, as a first-use exchange or `cf-key -t` leaves it. */
  trust(other: Host, user = "root"): void {
    writeFileSync(this.trustedKeyFile(other, user), other.keys.publicPem, { mode: 0o600 });
  }

  /** Whether this host has stored `other`'s key. */
  trusts(other: Host, user = "root"): boolean {
    return existsSync(this.trustedKeyFile(other, user));
  }

  /** Writes a policy file (mode 0600: cf-agent refuses files others can write) and returns its path. */
  writePolicy(name: string, text: string): string {
    const path = join(this.dir, name.includes("/") ? name : join("inputs", name));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text, { mode: 0o600 });
    return path;
  }

  /** Writes a file under `data/` (directories made) and returns its path. */
  writeData(rel: string, text: string | Buffer): string {
    const path = join(this.data, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    return path;
  }

  env(extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
    return { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: this.dir, NO_COLOR: "1", ...extra };
  }

  /** The argv that runs reference `tool` as this host (inside its mount namespace). */
  cfArgv(tool: CfTool, args: readonly string[]): string[] {
    return hostArgv(this.dir, [join(CF_BIN, tool), ...args]);
  }

  /**
   * The argv that runs tend subcommand `tool` as this host; TEND_NODE_ARGS
   * (space-separated) adds Node options, to profile a run
   * (`--cpu-prof --cpu-prof-dir=DIR`) or to watch its memory.
   */
  tendArgv(tool: TendTool, args: readonly string[]): string[] {
    const nodeArgs = (process.env.TEND_NODE_ARGS ?? "").split(" ").filter((a) => a !== "");
    return [process.execPath, ...launcherNodeFlags(tool), ...nodeArgs, TEND, tool, ...args];
  }

  /** Runs reference `tool` (a finished process). */
  runCf(tool: CfTool, args: readonly string[], options: RunOptions = {}): RunResult {
    return runArgv(this.cfArgv(tool, args), this.env(options.env), options);
  }

  /** Runs tend `tool` (a finished process). */
  runTend(tool: TendTool, args: readonly string[], options: RunOptions = {}): RunResult {
    return runArgv(this.tendArgv(tool, args), this.env(options.env), options);
  }

  /** Runs an agent of either kind on a policy file, with `-K` (no locks) and `-I`. */
  runAgent(impl: Impl, policy: string, extra: readonly string[] = [], options: RunOptions = {}): RunResult {
    const args = ["-K", "-I", "-f", policy, ...extra];
    return impl === "cf" ? this.runCf("cf-agent", args, options) : this.runTend("agent", args, options);
  }

  /**
   * Starts a server of either kind on `policy` in the foreground and waits
   * until it listens on this host's address and port (the policy must say
   * so: see `serverControl`). A policy the reference rejects is an error
   * before anything starts.
   */
  async startServer(
    impl: Impl,
    policy: string,
    extra: readonly string[] = [],
    options: { readonly env?: NodeJS.ProcessEnv } = {},
  ): Promise<Daemon> {
    if (impl === "cf") {
      const check = this.runCf("cf-promises", ["-c", "-f", policy]);
      if (check.status !== 0)
        throw new Error(`cf-promises rejects ${policy}:\n${check.stdout}${check.stderr}`);
    }
    const args = ["-F", "-K", "-I", "-f", policy, ...extra];
    const argv = impl === "cf" ? this.cfArgv("cf-serverd", args) : this.tendArgv("serverd", args);
    const child = spawn(argv[0]!, argv.slice(1), {
      env: this.env(options.env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const daemon = new Daemon(impl, this, child);
    this.lab.daemons.push(daemon);
    await daemon.waitListening();
    return daemon;
  }
}

/** Runs an argv to its end; a process that cannot start is status 127 with the reason. */
export function runArgv(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  options: RunOptions = {},
): RunResult {
  const r: SpawnSyncReturns<string> = spawnSync(argv[0]!, argv.slice(1), {
    env,
    encoding: "utf8",
    timeout: options.timeoutMs ?? 120_000,
    maxBuffer: 64 * 1024 * 1024,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
  const command = argv.join(" ");
  if (r.error)
    return { command, status: 127, stdout: r.stdout ?? "", stderr: `${r.stderr ?? ""}${r.error.message}` };
  return { command, status: r.status ?? 128, stdout: r.stdout, stderr: r.stderr };
}

/** Hosts that live together: one temporary directory, one set of daemons. */
export class Lab {
  readonly root: string;
  readonly daemons: Daemon[] = [];
  private readonly hosts: Host[] = [];
  private readonly subnet: number;

  constructor(prefix = "tend-net-") {
    this.root = mkdtempSync(join(tmpdir(), prefix));
    // 127.S.H.1: S from the process id, so labs of tests run side by side differ.
    this.subnet = 10 + (process.pid % 240);
  }

  /** A new host with its own address (127.S.N.1) and a free port there. */
  async host(name: string, options: HostOptions = {}): Promise<Host> {
    const address = `127.${this.subnet}.${this.hosts.length + 1}.1`;
    const port = await freePort(address);
    const host = new Host(this, name, join(this.root, name), address, port, options);
    this.hosts.push(host);
    return host;
  }

  /** Stops every daemon and removes the directories (safe to call twice). */
  async close(): Promise<void> {
    await Promise.all(this.daemons.map((d) => d.stop()));
    this.daemons.length = 0;
    if (process.env.TEND_NET_KEEP !== "1") rmSync(this.root, { recursive: true, force: true });
  }
}

/**
 * `body server control` for `host`: its port and address, connections and
 * key trust from `trusted` (default: loopback), several connections per peer.
 */
export function serverControl(
  host: Host,
  options: {
    trustkeysfrom?: readonly string[];
    allowusers?: readonly string[];
    cfruncommand?: string;
    /** More attributes, each a whole line (`serverfacility => "LOG_LOCAL3";`). */
    more?: readonly string[];
  } = {},
): string {
  const list = (items: readonly string[]) => `{ ${items.map((i) => `"${i}"`).join(", ")} }`;
  const lines = [
    `port => "${host.port}";`,
    `bindtointerface => "${host.address}";`,
    `allowconnects => { "127.0.0.0/8" };`,
    `allowallconnects => { "127.0.0.0/8" };`,
    `trustkeysfrom => ${list(options.trustkeysfrom ?? ["127.0.0.0/8"])};`,
  ];
  if (options.allowusers) lines.push(`allowusers => ${list(options.allowusers)};`);
  if (options.cfruncommand) lines.push(`cfruncommand => "${options.cfruncommand}";`);
  lines.push(...(options.more ?? []));
  return `body server control\n{\n  ${lines.join("\n  ")}\n}\n`;
}

/** A tree of relative paths to file contents, read from disk (directories end in "/"). */
export function readTree(dir: string, base = dir): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const rel = path.slice(base.length + 1);
    if (entry.isDirectory()) {
      out[`${rel}/`] = "";
      Object.assign(out, readTree(path, base));
    } else out[rel] = readFileSync(path, "utf8");
  }
  return out;
}

/**
 * A client policy copying `promiser` (a file, or a tree when its name ends
 * in "tree") from `server` into the client's directory, with `body` added to
 * the copy_from body, and a report of the outcome classes the copy set.
 */
export function copyPolicy(client: Host, server: Host, promiser: string, body: string): string {
  return `body common control { bundlesequence => { "main" }; }
bundle agent main
{
  files:
      "${client.dir}/${promiser}"
        copy_from => remote,
        ${promiser.endsWith("tree") ? "depth_search => all, " : ""}classes => outcome("copy");
  reports:
      "outcome: $(with)" with => join(",", sort(classesmatching("copy_.*"), "lex"));
}
body copy_from remote
{
  servers => { "${server.address}" };
  portnumber => "${server.port}";
  copy_backup => "false";
  ${body}
}
body depth_search all { depth => "inf"; }
body classes outcome(p)
{
  promise_kept => { "$(p)_kept" };
  promise_repaired => { "$(p)_repaired" };
  repair_failed => { "$(p)_failed" };
  repair_denied => { "$(p)_denied" };
  repair_timeout => { "$(p)_timeout" };
}
`;
}

// ---------------------------------------------------------------------------
// Bare hosts: one work directory each, no Lab.

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

/** Runs `argv` as the host in `dir` (its mount namespace), synchronously. */
export function runInHost(dir: string, argv: readonly string[], input?: string) {
  const [command, ...args] = hostArgv(dir, argv);
  return spawnSync(command as string, args, { encoding: "utf8", input, timeout: 120_000 });
}

/**
 * What a child writes on stdout and stderr together, once it has closed:
 * without blocking the event loop, for tests whose listeners answer from
 * this process.
 */
export function combinedOutput(child: ChildProcess): Promise<string> {
  let output = "";
  const add = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on("data", add);
  child.stderr?.on("data", add);
  return new Promise((resolve) => child.on("close", () => resolve(output)));
}

/** Starts `argv` as the host in `dir` (its mount namespace); killed (SIGKILL) when the test ends. */
export function spawnInHost(t: TestContext, dir: string, argv: readonly string[]): ChildProcess {
  const [command, ...args] = hostArgv(dir, argv);
  const child = spawn(command as string, args, { stdio: ["ignore", "pipe", "pipe"] });
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

function quotedList(items: readonly string[]): string {
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
  allowusers => ${quotedList(options.allowUsers ?? ["root"])};
  maxconnections => "200";
  trustkeysfrom => ${quotedList(options.trustKeysFrom ?? [])};
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
    if (await canConnect(address, port)) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on ${address}:${port} after ${timeoutMs} ms`);
    await sleep(100);
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
    `${COMPILED_WORKDIR}/inputs/promises.cf`,
  ]);
  if (check.status !== 0)
    throw new Error(`cf-promises rejects the server policy:\n${check.stdout}${check.stderr}`);
  const child = spawnInHost(t, host.dir, [
    cfengineTool("cf-serverd") ?? "cf-serverd",
    "-F",
    "-K",
    "-f",
    `${COMPILED_WORKDIR}/inputs/promises.cf`,
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
