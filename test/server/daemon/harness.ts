/**
 * tend serverd in-process for tests: a ServerPolicy built by hand (paths
 * admitted by prefix and IP), key pairs for the server and a client, the
 * server on 127.0.0.1 and a free port, its log lines kept.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { ServerConnection } from "../../../src/net/client.js";
import { type KeyPair, generateKeyPair, trustKey, writeKeyPair } from "../../../src/net/keys.js";
import type { ConnectionInfo, ServerControl, ServerPolicy } from "../../../src/server/policy/model.js";
import { defaultServerControl } from "../../../src/server/policy/load.js";
import {
  type RunningServer,
  type StartServerOptions,
  startServer,
} from "../../../src/server/daemon/server.js";
import { Logger } from "../../../src/system/logger.js";

export interface Acl {
  /** A directory ending in "/" (everything below) or an exact file. */
  readonly path: string;
  /** IPs admitted (exact); default 127.0.0.1. */
  readonly admit?: readonly string[];
  readonly deny?: readonly string[];
  readonly mapRoot?: readonly string[];
}

export interface HandPolicy {
  readonly acl?: readonly Acl[];
  readonly control?: Partial<ServerControl>;
  readonly shortcuts?: Readonly<Record<string, string>>;
  /** Admitted class regexes for CONTEXT. */
  readonly contexts?: readonly string[];
  readonly bundles?: readonly string[];
  readonly literals?: Readonly<Record<string, string>>;
  /** Class regex → users allowed to define it with EXEC -D. */
  readonly roles?: Readonly<Record<string, readonly string[]>>;
  /** The server's classes (EXEC's class match). */
  readonly classes?: readonly string[];
  readonly sources?: readonly string[];
}

function matches(list: readonly string[], value: string): boolean {
  return list.some((entry) => entry === value || new RegExp(`^(?:${entry})$`).test(value));
}

/** A ServerPolicy good enough for the daemon's tests (the real ACL logic is src/server/policy's). */
export function handPolicy(spec: HandPolicy = {}): ServerPolicy {
  const control: ServerControl = { ...defaultServerControl(), ...spec.control };
  const acl = spec.acl ?? [];
  const find = (path: string): Acl | undefined =>
    acl
      .filter((e) =>
        e.path.endsWith("/") ? `${path}/`.startsWith(e.path) || path.startsWith(e.path) : path === e.path,
      )
      .sort((a, b) => b.path.length - a.path.length)[0];
  return {
    control,
    checkPath(path: string, conn: ConnectionInfo) {
      const entry = find(path);
      if (!entry) return { admitted: false, mapRoot: false };
      const admitted = matches(entry.admit ?? ["127.0.0.1"], conn.ip) && !matches(entry.deny ?? [], conn.ip);
      return { admitted, mapRoot: admitted && matches(entry.mapRoot ?? [], conn.ip) };
    },
    expandShortcut(requested: string, conn: ConnectionInfo) {
      const [first = "", ...rest] = requested.split("/");
      const target = requested.startsWith("/") ? undefined : spec.shortcuts?.[first];
      if (target === undefined) return requested;
      return [target.replaceAll("$(connection.ip)", conn.ip), ...rest].join("/");
    },
    checkResource(type, name) {
      if (type === "context") return matches(spec.contexts ?? [], name);
      if (type === "bundle") return (spec.bundles ?? []).includes(name);
      if (type === "literal") return spec.literals !== undefined && name in spec.literals;
      return false;
    },
    literal: (handle) => spec.literals?.[handle],
    rolesAuthorize: (classes, user) =>
      classes.every((c) =>
        Object.entries(spec.roles ?? {}).some(([re, users]) => matches([re], c) && users.includes(user)),
      ),
    admitsConnection(ip) {
      if (control.allowConnects.length > 0 && !matches(control.allowConnects, ip))
        return "not-in-allowconnects";
      if (matches(control.denyConnects, ip)) return "in-denyconnects";
      return "allowed";
    },
    allowsMultipleConnections: (ip) => matches(control.allowAllConnects, ip),
    trustsKeysFrom: (ip) => matches(control.trustKeysFrom, ip),
    allowsLegacyConnect: (ip) => matches(control.allowLegacyConnects, ip),
    allowsUser: (user) => control.allowUsers.includes(user),
    needReverseLookup: false,
    classMatches: (name) => (spec.classes ?? []).some((c) => c === name || matches([name], c)),
    sources: spec.sources ?? [],
    classes: spec.classes ?? [],
  };
}

export interface TestServer {
  readonly server: RunningServer;
  readonly port: number;
  readonly workdir: string;
  readonly dir: string;
  readonly clientKeys: KeyPair;
  readonly clientPpkeys: string;
  readonly logs: string[];
  /** A client of tend's own, trusting the server. */
  connect(options?: { user?: string; keys?: KeyPair }): Promise<ServerConnection>;
}

const keyCache: KeyPair[] = [];

/** Key pairs are slow to make: tests share a few. */
export function testKeys(index: number): KeyPair {
  while (keyCache.length <= index) keyCache.push(generateKeyPair());
  return keyCache[index] as KeyPair;
}

export async function startTestServer(
  t: TestContext,
  policy: ServerPolicy | ((dir: string) => ServerPolicy),
  options: { trustClient?: boolean; server?: Partial<StartServerOptions> } = {},
): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), "tend-serverd-"));
  // Removed even when the server does not start.
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const workdir = join(dir, "server");
  const clientPpkeys = join(dir, "client-ppkeys");
  const serverKeys = testKeys(0);
  const clientKeys = testKeys(1);
  writeKeyPair(join(workdir, "ppkeys"), serverKeys);
  writeKeyPair(clientPpkeys, clientKeys);
  if (options.trustClient !== false) {
    trustKey(join(workdir, "ppkeys"), "root", clientKeys.publicKey);
    trustKey(join(workdir, "ppkeys"), "nobody", clientKeys.publicKey);
  }
  const logs: string[] = [];
  const logger = new Logger((r) => logs.push(`${r.level}: ${r.message}`), "debug");
  const server = await startServer({
    policy: typeof policy === "function" ? policy(dir) : policy,
    workdir,
    port: 0,
    host: "127.0.0.1",
    logger,
    ...options.server,
  });
  const clients: ServerConnection[] = [];
  t.after(async () => {
    for (const c of clients) c.close();
    await server.close();
    // The server writes its state (lastseen) as it closes: after the removal above.
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    server,
    port: server.port,
    workdir,
    dir,
    clientKeys,
    clientPpkeys,
    logs,
    async connect(opts = {}) {
      const connection = await ServerConnection.connect({
        host: "127.0.0.1",
        port: server.port,
        keys: opts.keys ?? clientKeys,
        ppkeys: clientPpkeys,
        user: opts.user ?? "root",
        trustServer: true,
        timeoutMs: 10_000,
      });
      clients.push(connection);
      return connection;
    },
  };
}
