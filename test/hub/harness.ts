/**
 * Pieces the hub's tests, fuzzer and benchmark share: work directories
 * with key pairs, an in-process hub on loopback, simulated nodes that
 * spool and send reports with the node side's own code, and a throwaway
 * database of either kind.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RudderConfig } from "../../src/hub/compliance.js";
import { startHubServer, type RunningHub } from "../../src/hub/server.js";
import { openStore } from "../../src/hub/store/open.js";
import type { HubStore } from "../../src/hub/store/store.js";
import { KeyTrust, parseTrustList } from "../../src/hub/trust.js";
import { selfSignedCertificate } from "../../src/net/certificate.js";
import { generateKeyPair, type KeyPair, keyDigest, trustKey, writeKeyPair } from "../../src/net/keys.js";
import type { NodeReport } from "../../src/reporting/report.js";
import { type SendOptions, sendReport } from "../../src/reporting/send.js";
import { silentLogger, type Logger } from "../../src/system/logger.js";
import { type PgServer, pgUnavailable, startPgServer } from "../providers/databases/pg-server.js";
import { generateReport } from "./generate.js";

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `tend-${prefix}-`));
}

/** A work directory with a key pair in ppkeys/ (1024 bits unless said: a 2048-bit pair takes half a second here). */
export function keyedWorkdir(
  dir: string,
  bits = 1024,
): { dir: string; pair: KeyPair; ppkeys: string; digest: string } {
  mkdirSync(dir, { recursive: true });
  const pair = generateKeyPair(bits);
  const ppkeys = join(dir, "ppkeys");
  writeKeyPair(ppkeys, pair);
  return { dir, pair, ppkeys, digest: keyDigest(pair.publicKey) };
}

export type DatabaseKind = "sqlite" | "postgres";

export interface TestDatabase {
  readonly kind: DatabaseKind;
  /** What `tend hub --database` takes. */
  readonly spec: string;
  open(): Promise<HubStore>;
  /** Drops everything (PostgreSQL: the cluster; SQLite: the file's directory). */
  stop(): void;
}

let databaseCounter = 0;

/** Why this kind of database cannot be made here, or undefined. */
export function databaseUnavailable(kind: DatabaseKind): string | undefined {
  return kind === "postgres" ? pgUnavailable() : undefined;
}

/** A fresh, empty database (for PostgreSQL, a cluster of its own, or `server`'s when given). */
export function makeDatabase(kind: DatabaseKind, server?: PgServer): TestDatabase {
  if (kind === "sqlite") {
    const dir = tempDir("hub-db");
    const path = join(dir, "hub.db");
    return {
      kind,
      spec: `sqlite:${path}`,
      open: () => openStore({ kind, target: path }),
      stop: () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const pg = server ?? startPgServer();
  const name = `hub${++databaseCounter}`;
  pg.sql(`CREATE DATABASE ${name}`);
  const spec = `postgres://postgres@${encodeURIComponent(pg.socketDir)}/${name}`;
  return {
    kind,
    spec,
    open: () => openStore({ kind, target: spec }),
    stop: () => {
      if (!server) pg.stop();
    },
  };
}

export interface TestHub {
  readonly hub: RunningHub;
  readonly store: HubStore;
  readonly workdir: ReturnType<typeof keyedWorkdir>;
  close(): Promise<void>;
}

/** An in-process hub on 127.0.0.1 with a free port. */
export async function startTestHub(
  store: HubStore,
  options: { trustKeysFrom?: string[]; maxBodyBytes?: number; logger?: Logger; rudder?: RudderConfig } = {},
): Promise<TestHub> {
  const workdir = keyedWorkdir(tempDir("hub"));
  const list = options.trustKeysFrom ? parseTrustList(options.trustKeysFrom) : undefined;
  if (list && "error" in list) throw new Error(list.error);
  const logger = options.logger ?? silentLogger;
  const hub = await startHubServer(
    {
      store,
      pair: workdir.pair,
      trust: new KeyTrust(workdir.ppkeys, list, logger),
      logger,
      maxBodyBytes: options.maxBodyBytes,
      ...(options.rudder ? { rudder: options.rudder } : {}),
    },
    { host: "127.0.0.1", port: 0 },
  );
  return {
    hub,
    store,
    workdir,
    async close() {
      await hub.close();
      rmSync(workdir.dir, { recursive: true, force: true });
    },
  };
}

/** A simulated node: its own key (trusted by the hub when `trusted`), sending through src/reporting. */
export interface SimNode {
  readonly digest: string;
  readonly pair: KeyPair;
  readonly dir: string;
  options(port: number): SendOptions;
  report(promises?: number): NodeReport;
}

export function simNode(
  hubPpkeys: string | undefined,
  hubPair: KeyPair,
  dir: string,
  trusted = true,
): SimNode {
  const node = keyedWorkdir(dir);
  trustKey(node.ppkeys, "root", hubPair.publicKey);
  if (trusted && hubPpkeys) trustKey(hubPpkeys, "root", node.pair.publicKey);
  const certificate = selfSignedCertificate(node.pair);
  return {
    digest: node.digest,
    pair: node.pair,
    dir,
    options: (port) => ({
      hub: { host: "127.0.0.1", port },
      pair: node.pair,
      ppkeys: node.ppkeys,
      trustHubKey: false,
      timeoutMs: 10_000,
      user: "root",
      certificate,
    }),
    report: (promises = 10) => generateReport({ nodeId: node.digest, promises }),
  };
}

export async function post(report: NodeReport | Buffer | string, options: SendOptions) {
  const body = Buffer.isBuffer(report)
    ? report
    : Buffer.from(typeof report === "string" ? report : JSON.stringify(report));
  return sendReport(body, options);
}

/** `bin/tend.js`, from dist/test/hub/. */
export const TEND_BIN = fileURLToPath(new URL("../../../bin/tend.js", import.meta.url));

export interface HubProcess {
  readonly child: ChildProcess;
  readonly port: number;
  /** Everything the hub wrote on stderr so far. */
  log(): string;
  /** Sends `signal` and resolves with the exit code (or signal) once it is gone. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

/**
 * Starts `tend hub` (the built CLI) with `args` and resolves once it
 * listens (its "listening on HOST:PORT" line); rejects with its output
 * when it exits first.
 */
export function startHubProcess(args: readonly string[]): Promise<HubProcess> {
  const child = spawn(process.execPath, [TEND_BIN, "hub", "--listen", "127.0.0.1", ...args], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let text = "";
  const exited = new Promise<number | string>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? signal ?? "")),
  );
  return new Promise((resolve, reject) => {
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      text += chunk;
      const match = /listening on [^\s]+:(\d+)/.exec(text);
      if (match)
        resolve({
          child,
          port: Number(match[1]),
          log: () => text,
          stop: (signal = "SIGTERM") => {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            return exited;
          },
        });
    });
    exited.then((code) => reject(new Error(`tend hub exited (${code}) before listening:\n${text}`)));
  });
}
