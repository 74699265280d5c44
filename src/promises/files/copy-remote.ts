/**
 * Connections to the servers of copy_from, as cf-agent 3.21 opens them
 * (ScheduleCopyOperation, FileCopyConnectionOpen): the `servers` are tried
 * in order until one answers ("localhost" means the local disk); an open
 * connection is kept for the rest of the run, per server, port, protocol
 * and trust, and reused by later copies with its stat cache; a server
 * that did not answer is tried again by the next promise. The agent's own
 * key pair is `<workdir>/ppkeys/localhost.priv`; `trustkey` trusts an
 * unknown server key on first use, `copyfrom_restrict_keys` pins the keys
 * allowed, `timeout` (copy_from, else body agent control, else 30 s)
 * bounds connecting and every request. Connections close at the end of
 * the run.
 */
import { posix } from "node:path";
import { createHash } from "node:crypto";
import { closeSync, openSync, readSync } from "node:fs";
import { NetError } from "../../net/errors.js";
import { type KeyPair, readKeyPair } from "../../net/keys.js";
import { SyncServerConnection } from "../../net/sync-client.js";
import type { Logger } from "../../system/logger.js";
import type { PromiseEnvironment } from "../contract.js";
import type { RunSlot } from "../run-state.js";
import {
  agentTimeout,
  commonProtocolVersion,
  bindToInterface,
  commonTlsSettings,
  copyfromRestrictKeys,
} from "./agent-settings.js";
import type { CopyAttributes } from "./attributes.js";
import { type CopySource, type RemoteFiles, remoteSource, type StatCache } from "./copy-source.js";

const DEFAULT_PORT = 5308;
const DEFAULT_TIMEOUT_S = 30;

interface OpenConnection {
  readonly connection: SyncServerConnection;
  readonly source: CopySource;
}

interface Connections {
  readonly open: Map<string, OpenConnection>;
  keys: KeyPair | undefined | null;
  /** The run's logger, for the lines of the end of the run. */
  log: Logger | undefined;
}

const CONNECTIONS: RunSlot<Connections> = {
  name: "copy_from connections",
  create: () => ({ open: new Map(), keys: null, log: undefined }),
  close: (state) => {
    for (const { connection } of state.open.values()) {
      connection.close();
      state.log?.verbose(`Connection to ${connection.address.replace(/:\d+$/, "")} is closed`);
    }
    state.open.clear();
  },
};

/** The protocol version asked: 2 or 3; "classic" when the classic protocol (1) is asked. */
function protocolOf(setting: string | undefined): number | "classic" | "unknown" {
  switch (setting ?? "") {
    case "":
    case "0":
    case "undefined":
    case "latest":
    case "3":
    case "cookie":
      return 3;
    case "2":
    case "tls":
      return 2;
    case "1":
    case "classic":
      return "classic";
    default:
      return "unknown";
  }
}

function workdirOf(env: PromiseEnvironment): string {
  const value = env.ctx.getVariable({ ns: null, scope: "sys", name: "workdir", indices: [] });
  return value?.type === "string" ? value.value : "/var/lib/cfengine3";
}

/** `$(sys.domain)`: what a classic client appends to a short name of its own (IdentifyAgent). */
function domainOf(env: PromiseEnvironment): string | undefined {
  const value = env.ctx.getVariable({ ns: null, scope: "sys", name: "domain", indices: [] });
  return value?.type === "string" && value.value !== "" ? value.value : undefined;
}

function portOf(text: string | undefined): number | undefined {
  if (text === undefined || text === "") return DEFAULT_PORT;
  if (/^\d+$/.test(text)) return Number(text);
  return text === "cfengine" ? DEFAULT_PORT : undefined;
}

/** The MD5 of a local file, read a block at a time (the files may be large). */
function md5Of(path: string): Buffer {
  const hash = createHash("md5");
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(1 << 20);
    for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer)) hash.update(buffer.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return hash.digest();
}

function filesOf(server: string, connection: SyncServerConnection, log: Logger): RemoteFiles {
  return {
    server,
    address: connection.address.replace(/:\d+$/, ""),
    get connected() {
      return connection.usable;
    },
    stat: (path) => {
      try {
        return connection.stat(path);
      } catch (error) {
        if (error instanceof NetError && error.kind === "refused")
          log.verbose(`Server returned error: ${error.message.replace(/^BAD: /, "")}`);
        throw error;
      }
    },
    getToFile: (path, size, destination, mode) => {
      log.verbose(`Copying remote file '${server}:${path}', expecting ${size} bytes`);
      connection.getToFile(path, size, destination, mode);
    },
    opendir: (path) => connection.opendir(path),
    differs: (path, local) => {
      let digest: Buffer;
      try {
        digest = md5Of(local);
      } catch {
        return true;
      }
      return connection.md5Differs(path, digest);
    },
  };
}

/**
 * The source of a copy: the local disk (no servers, or "localhost" met
 * first), a server's connection, or undefined when no server answered
 * (logged as 3.21 does; the caller records the failure).
 */
export function openCopySource(
  env: PromiseEnvironment,
  attrs: CopyAttributes,
): CopySource | "local" | undefined {
  if (attrs.servers.length === 0) return "local";
  const log = env.log;
  const state = env.runState.get(CONNECTIONS);
  state.log = log;
  const protocolSetting = attrs.protocolVersion ?? commonProtocolVersion(env);
  const protocol = protocolOf(protocolSetting);
  const portText = attrs.port ?? String(DEFAULT_PORT);
  const timeoutS = attrs.timeout ?? agentTimeout(env) ?? DEFAULT_TIMEOUT_S;
  for (const server of attrs.servers) {
    if (server === "localhost") return "local";
    const key = `${server}\0${portText}\0${String(protocol)}\0${attrs.trustKey}\0${protocol === "classic" && attrs.encrypt}`;
    const cached = state.open.get(key);
    if (cached?.connection.usable) {
      log.verbose(`FindIdle: found connection to '${server}' already open and ready.`);
      return cached.source;
    }
    if (cached) {
      cached.connection.close();
      state.open.delete(key);
    }
    log.verbose(`FindIdle: no existing connection to '${server}' is established.`);
    const opened = connect(env, state, server, portText, protocol, protocolSetting, attrs, timeoutS);
    if (opened) {
      const source = remoteSource(filesOf(server, opened, log), new Map() as StatCache);
      state.open.set(key, { connection: opened, source });
      return source;
    }
    log.info(`Unable to establish connection to '${server}'`);
  }
  return undefined;
}

function connect(
  env: PromiseEnvironment,
  state: Connections,
  server: string,
  portText: string,
  protocol: number | "classic" | "unknown",
  protocolSetting: string | undefined,
  attrs: CopyAttributes,
  timeoutS: number,
): SyncServerConnection | undefined {
  const trustServer = attrs.trustKey;
  const log = env.log;
  // A name no resolver can know (an unexpanded `$(sys.policy_hub)`): 3.21's lookup fails first.
  if (!/^[A-Za-z0-9.:_-]+$/.test(server)) {
    log.info(`Unable to find host '${server}' service '${portText}' (Name or service not known)`);
    log.info(`No server is responding on port: ${portText}`);
    return undefined;
  }
  if (protocol === "unknown") {
    log.error(`Unknown protocol_version '${protocolSetting}'`);
    return undefined;
  }
  const port = portOf(portText);
  if (port === undefined) {
    log.info(
      `Unable to find host '${server}' service '${portText}' (Servname not supported for ai_socktype)`,
    );
    log.info(`No server is responding on port: ${portText}`);
    return undefined;
  }
  if (state.keys === null) state.keys = readKeyPair(posix.join(workdirOf(env), "ppkeys"));
  if (!state.keys) {
    log.error(`No public/private key pair is loaded, please create one using cf-key`);
    return undefined;
  }
  const restrictKeys = copyfromRestrictKeys(env);
  try {
    const localAddress = bindToInterface(env);
    const connection = SyncServerConnection.connect({
      host: server,
      port,
      ...(localAddress ? { localAddress } : {}),
      keys: state.keys,
      ppkeys: posix.join(workdirOf(env), "ppkeys"),
      lastSeen: posix.join(workdirOf(env), "state"),
      trustServer,
      restrictKeys: restrictKeys.length > 0 ? restrictKeys : undefined,
      timeoutMs: timeoutS * 1000,
      ...(protocol === "classic"
        ? { classic: true, encrypt: attrs.encrypt, domain: domainOf(env) }
        : { protocolVersion: protocol, ...commonTlsSettings(env) }),
      logger: log,
    });
    if (restrictKeys.length > 0) log.verbose(`Server key in allowed list: ${connection.serverDigest}`);
    return connection;
  } catch (error) {
    logConnectFailure(env, error, server, portText);
    return undefined;
  }
}

const ERRNO_TEXT: Readonly<Record<string, string>> = {
  ECONNREFUSED: "Connection refused",
  EHOSTUNREACH: "No route to host",
  ENETUNREACH: "Network is unreachable",
  ETIMEDOUT: "Connection timed out",
  ECONNRESET: "Connection reset by peer",
  EADDRNOTAVAIL: "Cannot assign requested address",
};

/** The system's words for why a connect failed, as 3.21's SocketConnect logs them. */
function connectError(message: string, kind: string): string {
  const code = /\b(E[A-Z]+)\b/.exec(message)?.[1];
  if (code && ERRNO_TEXT[code]) return ERRNO_TEXT[code];
  return kind === "timeout" ? "Connection timed out" : message;
}

function logConnectFailure(env: PromiseEnvironment, error: unknown, server: string, port: string): void {
  const log = env.log;
  const message = error instanceof Error ? error.message : String(error);
  const kind = error instanceof NetError ? error.kind : "protocol";
  if (kind === "connect" || kind === "timeout") {
    // bindtointerface names nothing getaddrinfo knows: 3.21 says so as an error.
    if (message.startsWith("Unable to lookup interface")) log.error(message);
    else if (/ENOTFOUND|EAI_AGAIN/.test(message))
      log.info(`Unable to find host '${server}' service '${port}' (Name or service not known)`);
    else log.info(`Failed to connect to server: ${connectError(message, kind)}`);
    log.info(`No server is responding on port: ${port}`);
    return;
  }
  if (kind === "untrusted") {
    log.error(message);
    return;
  }
  log.error(message);
}
