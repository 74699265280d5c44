/**
 * Scratch CFEngine "hosts" on one machine, for tests that make real
 * cf-serverd / cf-agent / cf-net / cf-runagent 3.21 and tend talk to each
 * other over loopback.
 *
 * A host is a temporary work directory (`inputs/`, `ppkeys/` holding a key
 * pair, `state/`, `bin/` with links to the installed cf-* programs, `data/`
 * for files to serve), a loopback address 127.0.X.Y and a free high port.
 * Every program runs with `CFENGINE_TEST_OVERRIDE_WORKDIR` set to the host's
 * directory; the real programs also run in a private mount namespace with
 * that directory bound over their compiled-in /var/lib/cfengine3, so
 * nothing they do reaches the machine's own CFEngine. tend never looks at
 * /var/lib/tend while the override is set. The machine's own work
 * directories are never touched.
 *
 * A `Lab` owns the hosts and every daemon they start; `lab.close()` (given to
 * `t.after`, so it also runs when a test fails) kills the daemons and
 * removes the directories. Daemons run in the foreground (`-F`) so their
 * process id is known; a server is only handed back once its port accepts
 * connections, and a real cf-serverd whose policy cf-promises rejects is
 * never started (it would fall back to failsafe.cf and listen on 5308).
 */
import { type SpawnSyncReturns, spawn, spawnSync } from "node:child_process";
import { generateKeyPair, keyDigest, privateKeyPem, publicKeyPem } from "../../src/net/keys.js";
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

/** Why the reference tools cannot run here, or undefined when they can. */
export function whyNoReference(): string | undefined {
  if (process.getuid?.() !== 0) return "needs root (a private mount namespace per host)";
  for (const tool of ["cf-agent", "cf-serverd", "cf-net", "cf-runagent", "cf-promises"])
    if (!existsSync(join(CF_BIN, tool))) return `${tool} 3.21 is not installed (apt-get install cfengine3)`;
  if (spawnSync("unshare", ["--version"], { stdio: "ignore" }).status !== 0)
    return "unshare (util-linux) is absent";
  return undefined;
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

/** A free TCP port on `address` (bound, then released). */
export function freePort(address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, address, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function canConnect(address: string, port: number): Promise<boolean> {
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
    return [
      "unshare",
      "-m",
      "sh",
      "-c",
      `mount --bind "$0" ${COMPILED_WORKDIR} && exec "$@"`,
      this.dir,
      join(CF_BIN, tool),
      ...args,
    ];
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
