/**
 * A real cf-serverd 3.21 as a scratch host for the remote copy tests: its
 * own work directory bound over /var/lib/cfengine3 in a private mount
 * namespace, keys made by cf-key, listening on 127.0.0.1 at a free high
 * port; and a client work directory (keys by cf-key) that both tend agent
 * and cf-agent use. The daemon is killed by `stop` (tests call it in
 * t.after). tend serverd runs the same policy in the same work directory.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { scratchDirectory } from "../../scratch.js";

const NS = `mount --bind "$0" /var/lib/cfengine3 && exec "$@"`;

/** Why the tests cannot run here, or undefined. */
export function missingTools(): string | undefined {
  if (process.getuid?.() !== 0) return "needs root (mount namespaces)";
  for (const tool of ["cf-serverd", "cf-key", "cf-agent", "unshare"]) {
    if (spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0) return `${tool} is not installed`;
  }
  return undefined;
}

/** Runs a cfengine tool with `workdir` as its /var/lib/cfengine3. */
export function inNamespace(workdir: string, args: readonly string[], timeout = 60_000) {
  return spawnSync("unshare", ["-m", "sh", "-c", NS, workdir, ...args], { encoding: "utf8", timeout });
}

export function makeWorkdir(path: string): string {
  mkdirSync(join(path, "ppkeys"), { recursive: true });
  chmodSync(join(path, "ppkeys"), 0o700);
  for (const sub of ["inputs", "outputs", "state", "modules"])
    mkdirSync(join(path, sub), { recursive: true });
  const made = inNamespace(path, ["cf-key"]);
  if (!existsSync(join(path, "ppkeys", "localhost.pub"))) throw new Error(`cf-key failed: ${made.stderr}`);
  return path;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface Host {
  readonly root: string;
  readonly data: string;
  readonly port: number;
  readonly serverDir: string;
  readonly clientDir: string;
  /** The server key's digest as cf-key prints it. */
  readonly serverDigest: string;
  stop(): void;
}

const TEND = fileURLToPath(new URL("../../../../bin/tend.js", import.meta.url));

export type ServerKind = "cf-serverd" | "tend serverd";

/**
 * Starts cf-serverd (or tend serverd, with the same work directory and
 * policy) serving `<root>/data/` (admitted) but `<root>/data/secret*` (denied).
 */
export async function startHost(kind: ServerKind = "cf-serverd"): Promise<Host> {
  const root = realpathSync(scratchDirectory("tend-remote-"));
  const data = join(root, "data");
  mkdirSync(data);
  const serverDir = makeWorkdir(join(root, "srv"));
  const clientDir = makeWorkdir(join(root, "cli"));
  const port = await freePort();
  const policy = join(serverDir, "server.cf");
  writeFileSync(
    policy,
    `body common control { bundlesequence => { "main" }; }
bundle agent main { }
body server control {
  port => "${port}";
  bindtointerface => "127.0.0.1";
  allowconnects => { "127.0.0.1" };
  allowallconnects => { "127.0.0.1" };
  trustkeysfrom => { "127.0.0.1" };
  allowusers => { "root" };
}
bundle server access {
  access:
    "${data}/" admit_ips => { "127.0.0.1" };
    "${data}/secret" deny_ips => { "127.0.0.1" };
}
`,
  );
  const child: ChildProcess =
    kind === "cf-serverd"
      ? spawn("unshare", ["-m", "sh", "-c", NS, serverDir, "cf-serverd", "-F", "-K", "-f", policy], {
          stdio: ["ignore", "pipe", "pipe"],
        })
      : spawn(process.execPath, [TEND, "serverd", "-F", "-K", "-w", serverDir, "-f", policy], {
          stdio: ["ignore", "pipe", "pipe"],
        });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${kind} did not start: ${output}`)), 30_000);
    const check = setInterval(() => {
      if (output.includes("Server is starting")) {
        clearInterval(check);
        clearTimeout(timer);
        resolve();
      }
    }, 50);
    child.on("exit", () => {
      clearInterval(check);
      clearTimeout(timer);
      reject(new Error(`${kind} exited: ${output}`));
    });
  });
  child.removeAllListeners("exit");
  const digest = inNamespace(serverDir, ["cf-key", "-p", join(serverDir, "ppkeys", "localhost.pub")]);
  return {
    root,
    data,
    port,
    serverDir,
    clientDir,
    serverDigest: digest.stdout.trim(),
    stop: () => {
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}

/** The server's public key trusted by the client work directory (as trustkey would leave it). */
export function trustServer(host: Host, clientDir: string): void {
  const pub = readFileSync(join(host.serverDir, "ppkeys", "localhost.pub"));
  writeFileSync(join(clientDir, "ppkeys", `root-${host.serverDigest}.pub`), pub, { mode: 0o600 });
}
