/**
 * `tend serverd`'s listener, startable in-process (tests, benchmarks, the
 * fuzzer): `startServer(options)` resolves once it listens, with the port
 * and a `close()` that stops it and every connection.
 *
 * Connection-level rules are cf-serverd 3.21's (server.c
 * `ServerEntryPoint`, `HandleConnection`): `allowconnects` and
 * `denyconnects`, one connection at a time per host unless it is in
 * `allowallconnects`, and `maxconnections` — here exactly that many at
 * once (3.21 lets one more in, and kills itself after a few refusals in a
 * row; tend just refuses). The policy is reloaded when one of its files
 * changes, checked every `reloadCheckMs` and before a connection is served
 * (at most once a second); a policy that fails to load leaves the old one
 * in force. Connections keep the policy they started with.
 */
import { stat } from "node:fs/promises";
import net from "node:net";
import { join } from "node:path";
import tls from "node:tls";
import { type KeyPair, readKeyPair } from "../../net/keys.js";
import { LastSeenLog } from "../../net/lastseen.js";
import { serverTlsSettings } from "../../net/tls-settings.js";
import { peerAddress, tlsServerOptions } from "../../net/server-side.js";
import { Logger } from "../../system/logger.js";
import type { LoadedServerPolicy, ServerPolicy } from "../policy/model.js";
import { type ConnectionLimits, DEFAULT_LIMITS, connectionPrefix, serveConnection } from "./connection.js";
import { DigestCache } from "./digests.js";
import { type HelperOptions, HelperPool, type HelperServer } from "./helpers.js";
import { TrustedKeyCache } from "./trusted-keys.js";

export interface StartServerOptions {
  /** The policy to serve under (built by hand in tests, else loaded). */
  readonly policy: ServerPolicy;
  /** The work directory: keys in `ppkeys/`, persistent classes in `state/`. */
  readonly workdir: string;
  /** The server's key pair; read from `<workdir>/ppkeys` when absent. */
  readonly keys?: KeyPair;
  /** Overrides `port` of body server control; 0 picks a free port. */
  readonly port?: number;
  /** Overrides `bindtointerface`. */
  readonly host?: string;
  readonly logger?: Logger;
  readonly limits?: Partial<ConnectionLimits>;
  /**
   * Loads the policy again (from its file) when one of `policy.sources`
   * changes; no reloading without it. `beforeControl`, when given, is called
   * once the policy is found valid, before `body server control` is applied.
   */
  readonly reload?: (beforeControl?: () => void) => Promise<LoadedServerPolicy>;
  /** The entry file, for the reload messages. */
  readonly policyFile?: string;
  /** How often the sources are checked, ms (10 s, as cf-serverd's loop). */
  readonly reloadCheckMs?: number;
  /** The clock (tests of `denybadclocks`). */
  readonly now?: () => number;
  /** Helper processes serving connections on the other cores (helpers.ts); none without it. */
  readonly helpers?: HelperOptions;
}

export interface RunningServer {
  readonly port: number;
  /** The address listened on ("::" for all). */
  readonly address: string;
  /** The policy new connections are served under. */
  readonly policy: ServerPolicy;
  /** Connections being served now. */
  readonly connections: number;
  /** Checks the sources and reloads when one changed (or always, with `force`); true when a new policy is in force. */
  reload(force?: boolean): Promise<boolean>;
  /** Stops listening and closes every connection. */
  close(): Promise<void>;
}

/** A start-up failure, with cf-serverd's messages. */
export class ServerStartError extends Error {
  override readonly name = "ServerStartError";
  constructor(readonly messages: readonly string[]) {
    super(messages.join("\n"));
  }
}

const silent = new Logger(() => {}, "error");

export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const log = options.logger ?? silent;
  const keys = options.keys ?? readKeyPair(join(options.workdir, "ppkeys"));
  if (!keys)
    throw new ServerStartError(["Public/private key pair not loaded, please create one using cf-key"]);
  const state = new ServerState(options, keys, log);
  await state.snapshot();
  if (options.helpers && options.helpers.count > 0) {
    // Listening does not wait for them: the main process serves alone until they are ready.
    state.pool = new HelperPool(options.helpers, log);
    void state.pool.start();
  }
  const server = net.createServer({ pauseOnConnect: true }, (socket) => state.accept(socket));
  const address = await listen(
    server,
    options.port ?? options.policy.control.port,
    options.host ?? options.policy.control.bindToInterface,
  );
  server.on("error", (error) => log.error(`Error accepting connection (${error.message})`));
  const timer = setInterval(() => void state.reload(false), options.reloadCheckMs ?? 10_000);
  timer.unref();
  return {
    port: address.port,
    address: address.address,
    get policy() {
      return state.policy;
    },
    get connections() {
      return state.active;
    },
    reload: (force = false) => state.reload(force),
    close: async () => {
      clearInterval(timer);
      await state.closeAll(server);
    },
  };
}

/**
 * A helper process's server (helpers.ts): no listener and no
 * connection-level rules (the main process applies them); it serves the
 * connections it is handed under its own copy of the policy, and reloads
 * it when asked.
 */
export function startHelperServer(options: StartServerOptions): HelperServer {
  const log = options.logger ?? silent;
  const keys = options.keys ?? readKeyPair(join(options.workdir, "ppkeys"));
  if (!keys)
    throw new ServerStartError(["Public/private key pair not loaded, please create one using cf-key"]);
  const state = new ServerState(options, keys, log);
  return {
    serve: (socket, ip) => state.serveHere(socket, ip),
    reload: () => state.reload(true, true),
    close: () => state.closeAll(undefined),
  };
}

function listen(server: net.Server, port: number, host: string | undefined): Promise<net.AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      const reason = error.code === "EADDRINUSE" ? "Address already in use" : error.message;
      reject(
        new ServerStartError([
          `Could not bind server address. (bind: ${reason})`,
          `Failed to bind to all attempted addresses (bind specification: '${host ?? ""}'`,
          "Unable to start server",
        ]),
      );
    };
    server.once("error", onError);
    server.listen({ port, host: host || undefined, backlog: 128 }, () => {
      server.off("error", onError);
      resolve(server.address() as net.AddressInfo);
    });
  });
}

/** The mutable part of a running server: the policy, its TLS context, who is connected. */
class ServerState {
  policy: ServerPolicy;
  active = 0;
  /** Connections served in this process (the others are with helpers). */
  local = 0;
  pool: HelperPool | undefined;
  /** Digests of unchanged files, for every connection of this process. */
  private readonly digests = new DigestCache();
  /** The clients' keys as last read, for every connection of this process. */
  private readonly trustedKeys = new TrustedKeyCache();
  /** The peers this process served, written to the lastseen database now and then. */
  readonly lastSeen: LastSeenLog;
  private secureContext: tls.SecureContext;
  private readonly perHost = new Map<string, number>();
  private readonly sockets = new Set<net.Socket>();
  private readonly served = new Set<Promise<void>>();
  private readonly limits: ConnectionLimits;
  private stamps = new Map<string, string>();
  private lastCheck = 0;
  private reloading: Promise<boolean> | undefined;

  constructor(
    private readonly options: StartServerOptions,
    private readonly keys: KeyPair,
    private readonly log: Logger,
  ) {
    this.policy = options.policy;
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.lastSeen = new LastSeenLog(join(options.workdir, "state"), (error) =>
      log.error(
        `Unable to update the lastseen database (${error instanceof Error ? error.message : String(error)})`,
      ),
    );
    this.secureContext = this.makeSecureContext(options.policy);
  }

  /** The TLS context for `policy` (its allowciphers and allowtlsversion); a ServerStartError when OpenSSL refuses them. */
  private makeSecureContext(policy: ServerPolicy): tls.SecureContext {
    const settings = serverTlsSettings(policy.control, this.log);
    if (settings.error) throw new ServerStartError([settings.error]);
    try {
      return tls.createSecureContext({ ...tlsServerOptions(this.keys), ...settings.options });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ServerStartError([
        `Failed to set up TLS with allowciphers '${policy.control.allowCiphers ?? ""}' (${reason})`,
      ]);
    }
  }

  /** ServerEntryPoint: the connection-level rules, then the connection served. */
  accept(socket: net.Socket): void {
    socket.on("error", () => {});
    const ip = peerAddress(socket);
    const { policy, log } = this;
    log.verbose(`Obtained IP address of '${ip}' on socket ${descriptor(socket)} from accept`);
    const admitted = policy.admitsConnection(ip);
    let refusal: string | undefined;
    if (admitted === "not-in-allowconnects")
      refusal = `Remote host '${ip}' not in allowconnects, denying connection`;
    else if (admitted === "in-denyconnects")
      refusal = `Remote host '${ip}' is in denyconnects, denying connection`;
    else if ((this.perHost.get(ip) ?? 0) > 0 && !policy.allowsMultipleConnections(ip))
      refusal = `Remote host '${ip}' is not in allowallconnects, denying second simultaneous connection`;
    if (refusal) {
      log.error(refusal);
      socket.destroy();
      return;
    }
    if (this.active >= policy.control.maxConnections) {
      log.info(`${connectionPrefix(ip)}Accepting connection`);
      log.error(
        `${connectionPrefix(ip)}Too many threads (${this.active + 1} > ${policy.control.maxConnections}), dropping connection! Increase server maxconnections?`,
      );
      socket.destroy();
      return;
    }
    void this.serve(socket, ip);
  }

  private async serve(socket: net.Socket, ip: string): Promise<void> {
    this.active++;
    this.perHost.set(ip, (this.perHost.get(ip) ?? 0) + 1);
    this.log.verbose(`New connection (from ${ip}), spawning new thread...`);
    if (Date.now() - this.lastCheck > 1000) void this.reload(false);
    try {
      await (this.pool?.hand(socket, ip, this.local) ?? this.serveHere(socket, ip));
    } finally {
      this.active--;
      const left = (this.perHost.get(ip) ?? 1) - 1;
      if (left > 0) this.perHost.set(ip, left);
      else this.perHost.delete(ip);
    }
  }

  /** Serves the connection in this process, under the policy in force now. */
  serveHere(socket: net.Socket, ip: string): Promise<void> {
    this.local++;
    this.sockets.add(socket);
    const { policy, secureContext } = this;
    const done = serveConnection(socket, ip, {
      policy,
      secureContext,
      ppkeys: join(this.options.workdir, "ppkeys"),
      statedir: join(this.options.workdir, "state"),
      limits: this.limits,
      log: this.log,
      now: this.options.now,
      digests: this.digests,
      keys: this.keys,
      lastSeen: this.lastSeen,
      trustedKeys: this.trustedKeys,
    }).finally(() => {
      this.local--;
      this.sockets.delete(socket);
      this.served.delete(done);
    });
    this.served.add(done);
    return done;
  }

  /** Remembers the sources' stamps (size, mtime, inode) of the policy in force. */
  async snapshot(): Promise<void> {
    this.stamps = await stampsOf(this.policy.sources);
  }

  /** Reloads when a source changed (or `force`); one reload at a time. */
  reload(force: boolean, quiet = false): Promise<boolean> {
    if (!this.options.reload) return Promise.resolve(false);
    this.reloading ??= this.reloadNow(force, quiet).finally(() => {
      this.reloading = undefined;
    });
    return this.reloading;
  }

  /** `quiet`: a helper's reload, which the main process has announced already. */
  private async reloadNow(force: boolean, quiet: boolean): Promise<boolean> {
    this.lastCheck = Date.now();
    const now = await stampsOf([...this.stamps.keys()]);
    const changed = force || [...now].some(([file, stamp]) => this.stamps.get(file) !== stamp);
    if (!changed || !this.options.reload) return false;
    if (!quiet) this.log.verbose(force ? "Force reload of inputs files..." : "New promises detected...");
    this.stamps = now;
    // As cf-serverd: "Rereading" once the policy is valid, before its control
    // body is applied (so with the syslog facility in force until then).
    let announced = quiet;
    const announce = (): void => {
      if (announced) return;
      announced = true;
      this.log.notice(`Rereading policy file '${this.options.policyFile ?? this.policy.sources[0] ?? ""}'`);
    };
    let loaded: LoadedServerPolicy;
    try {
      loaded = await this.options.reload(announce);
    } catch (error) {
      loaded = { ok: false, diagnostics: [] };
      this.log.error(`Policy reload failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!loaded.ok) {
      this.log.info("File changes contain errors -- ignoring");
      return false;
    }
    let secureContext: tls.SecureContext;
    try {
      secureContext = this.makeSecureContext(loaded.policy);
    } catch (error) {
      for (const message of error instanceof ServerStartError ? error.messages : [String(error)])
        this.log.error(message);
      this.log.info("File changes contain errors -- ignoring");
      return false;
    }
    announce();
    this.policy = loaded.policy;
    this.secureContext = secureContext;
    await this.snapshot();
    this.pool?.reload();
    return true;
  }

  async closeAll(server: net.Server | undefined): Promise<void> {
    const closed = new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    for (const socket of this.sockets) socket.destroy();
    await Promise.allSettled([...this.served, this.pool?.close()]);
    await closed;
    await this.lastSeen.flush();
  }
}

async function stampsOf(files: readonly string[]): Promise<Map<string, string>> {
  const entries = await Promise.all(
    files.map(async (file) => {
      const stats = await stat(file).catch(() => undefined);
      return [file, stats ? `${stats.size}:${stats.mtimeMs}:${stats.ino}` : "missing"] as const;
    }),
  );
  return new Map(entries);
}

/** The socket's file descriptor, for the log (as cf-serverd names the socket). */
function descriptor(socket: net.Socket): number {
  const handle = (socket as unknown as { _handle?: { fd?: number } })._handle;
  return handle?.fd ?? -1;
}
