/**
 * `tend hub`: receives the nodes' run reports and keeps them (SQLite by
 * default, PostgreSQL when given a connection string), serves the health
 * endpoint and the read API; `tend hub token create|list|revoke` manages
 * the API's read tokens. The hub runs in the foreground (systemd's
 * `Type=simple`; contrib/systemd/tend-hub.service), logs on stderr, and
 * stops on SIGTERM or SIGINT once the reports being written are written.
 */
import { join, resolve } from "node:path";
import type { LogLevel } from "../system/logger.js";
import { Logger, formatLogLine } from "../system/logger.js";
import { parseCommandLine } from "./args.js";
import { cfLogLevel, logTimestamp } from "./cf-command.js";
import { type CliIo, EXIT_FAILURE, EXIT_OK, UsageError } from "./io.js";

export const hubUsage = `Usage: tend hub [OPTIONS]
       tend hub token create NAME | token list | token revoke ID  [OPTIONS]

The hub: receives the run reports nodes send (mutual TLS with their tend
keys) and keeps them, in SQLite by default or in PostgreSQL.

Options:
  -w, --workdir DIR         the work directory: the hub's key pair in ppkeys/,
                            trusted node keys ppkeys/root-MD5=<digest>.pub
      --listen ADDRESS      the address to listen on (default: 0.0.0.0)
  -p, --port PORT           the port (default: 5310; 0 picks a free one)
      --database SPEC       sqlite:PATH (default: <workdir>/hub/hub.db) or
                            postgres://USER@HOST/DATABASE
      --retention DAYS      prune runs older than DAYS, each node's latest kept
                            (default: 30; 0 keeps everything)
      --trust-keys-from A,B addresses and networks (10.0.0.0/8) whose unknown
                            keys are trusted on first use, as trustkeysfrom
      --max-report-size N   refuse reports larger than N bytes (default: 32 MiB)
      --rudder-config DIR   Rudder's generated policy: DIR/expected-reports.json
                            or DIR/<node>/expected-reports.json (tend rudder
                            generate's output); runs of those nodes get Rudder
                            compliance per rule, directive and component
      --json                token list/create: print JSON
  -I, --inform / -v, --verbose / -d, --debug / -g, --log-level LEVEL
  -l, --timestamp           prefix log lines with the time
  -h, --help                show this help

Reports arrive on POST /v1/reports; GET /health answers without a token;
GET /api/v1/{summary,fleet,nodes,nodes/ID,nodes/ID/compliance,compliance,
runs/RUN,runs/RUN/results,runs/RUN/lines,history}
needs "Authorization: Bearer TOKEN".
`;

const DEFAULT_PORT = 5310;

function parse(args: readonly string[]) {
  return parseCommandLine(args, {
    workdir: { type: "string", short: "w" },
    listen: { type: "string" },
    port: { type: "string", short: "p" },
    database: { type: "string" },
    retention: { type: "string" },
    "trust-keys-from": { type: "string", multiple: true },
    "max-report-size": { type: "string" },
    "rudder-config": { type: "string" },
    json: { type: "boolean" },
    inform: { type: "boolean", short: "I" },
    verbose: { type: "boolean", short: "v" },
    debug: { type: "boolean", short: "d" },
    "log-level": { type: "string", short: "g" },
    timestamp: { type: "boolean", short: "l" },
    help: { type: "boolean", short: "h" },
    version: { type: "boolean", short: "V" },
  });
}

type Values = ReturnType<typeof parse>["values"];

function numberOption(value: string | undefined, name: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > max)
    throw new UsageError(`${name} must be a whole number from 0 to ${max}, not '${value}'`);
  return n;
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  let values: Values;
  let positionals: string[];
  try {
    ({ values, positionals } = parse(args));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`tend hub: ${error.message}\nTry 'tend hub --help'.\n`);
    return EXIT_FAILURE;
  }
  if (values.help) {
    io.stdout(hubUsage);
    return EXIT_OK;
  }
  if (values.version) return (await import("./app.js")).main(["--version"], io);
  const level = cfLogLevel(values);
  if (!level) {
    io.stderr(`tend hub: unknown log level '${values["log-level"]}'\n`);
    return EXIT_FAILURE;
  }
  const { agentDirectories } = await import("../agent/workdir.js");
  const workdir = agentDirectories({ workdir: values.workdir }, io.env).workdir;
  const { parseDatabaseSpec } = await import("../hub/store/open.js");
  const spec = parseDatabaseSpec(values.database ?? `sqlite:${join(workdir, "hub", "hub.db")}`);
  if ("error" in spec) {
    io.stderr(`tend hub: --database: ${spec.error}\n`);
    return EXIT_FAILURE;
  }
  try {
    if (positionals[0] === "token") return await tokenCommand(positionals.slice(1), spec, values, io);
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    return await serve(values, workdir, spec, level, io);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`tend hub: ${error.message}\nTry 'tend hub --help'.\n`);
    return EXIT_FAILURE;
  }
}

function stderrLogger(io: CliIo, level: LogLevel, stamp: boolean): Logger {
  return new Logger((record) => io.stderr(`${stamp ? logTimestamp() : ""}${formatLogLine(record)}\n`), level);
}

async function openOrSay(spec: import("../hub/store/open.js").DatabaseSpec, io: CliIo) {
  const { describeDatabase, openStore } = await import("../hub/store/open.js");
  try {
    return await openStore(spec);
  } catch (error) {
    io.stderr(`tend hub: cannot open the database ${describeDatabase(spec)}: ${(error as Error).message}\n`);
    return undefined;
  }
}

async function tokenCommand(
  args: readonly string[],
  spec: import("../hub/store/open.js").DatabaseSpec,
  values: Values,
  io: CliIo,
): Promise<number> {
  const [action, argument, ...rest] = args;
  if (rest.length > 0) throw new UsageError(`unexpected argument '${rest[0]}'`);
  if (action !== "create" && action !== "list" && action !== "revoke")
    throw new UsageError(`token: expected create NAME, list or revoke ID, not '${action ?? ""}'`);
  if ((action === "create" || action === "revoke") && !argument)
    throw new UsageError(`token ${action}: ${action === "create" ? "NAME" : "ID"} is missing`);
  const store = await openOrSay(spec, io);
  if (!store) return EXIT_FAILURE;
  const tokens = await import("../hub/tokens.js");
  try {
    if (action === "create") {
      const made = await tokens.createToken(store, argument as string);
      io.stdout(values.json ? `${JSON.stringify(made)}\n` : `${made.token}\n`);
      if (!values.json) io.stderr(`tend hub: token ${made.id} made; it is shown only now\n`);
      return EXIT_OK;
    }
    if (action === "list") {
      const list = await tokens.listTokens(store);
      if (values.json) io.stdout(`${JSON.stringify(list, null, 2)}\n`);
      else
        for (const t of list)
          io.stdout(`${t.id}  ${t.name}  created ${t.created}${t.revoked ? `  revoked ${t.revoked}` : ""}\n`);
      return EXIT_OK;
    }
    if (await tokens.revokeToken(store, argument as string)) return EXIT_OK;
    io.stderr(`tend hub: no live token '${argument}' (see tend hub token list)\n`);
    return EXIT_FAILURE;
  } finally {
    await store.close();
  }
}

async function serve(
  values: Values,
  workdir: string,
  spec: import("../hub/store/open.js").DatabaseSpec,
  level: LogLevel,
  io: CliIo,
): Promise<number> {
  const port = numberOption(values.port, "--port", DEFAULT_PORT, 65535);
  const retentionDays = numberOption(values.retention, "--retention", 30, 100000);
  const maxBody = numberOption(values["max-report-size"], "--max-report-size", 32 * 1024 * 1024, 2 ** 31);
  const listen = values.listen ?? "0.0.0.0";
  const logger = stderrLogger(io, level, values.timestamp === true);
  const { readKeyPair } = await import("../net/keys.js");
  const ppkeys = join(workdir, "ppkeys");
  let pair: ReturnType<typeof readKeyPair>;
  try {
    pair = readKeyPair(ppkeys);
  } catch (error) {
    io.stderr(`tend hub: ${(error as Error).message}\n`);
    return EXIT_FAILURE;
  }
  if (!pair) {
    io.stderr(`tend hub: no key pair in ${ppkeys}; make one with 'tend key -w ${workdir}'\n`);
    return EXIT_FAILURE;
  }
  const { KeyTrust, parseTrustList } = await import("../hub/trust.js");
  const entries = (values["trust-keys-from"] ?? [])
    .flatMap((v) => v.split(","))
    .filter((v) => v.trim() !== "");
  const trustList = entries.length > 0 ? parseTrustList(entries) : undefined;
  if (trustList && "error" in trustList) throw new UsageError(`--trust-keys-from: ${trustList.error}`);
  let rudder: import("../hub/compliance.js").RudderConfig | undefined;
  if (values["rudder-config"] !== undefined) {
    const { loadRudderConfig } = await import("../hub/compliance.js");
    try {
      rudder = loadRudderConfig(resolve(io.cwd, values["rudder-config"]));
    } catch (error) {
      io.stderr(`tend hub: --rudder-config: ${(error as Error).message}\n`);
      return EXIT_FAILURE;
    }
  }
  const store = await openOrSay(spec, io);
  if (!store) return EXIT_FAILURE;
  const { startHubServer } = await import("../hub/server.js");
  const { describeDatabase } = await import("../hub/store/open.js");
  const { getVersion } = await import("./app.js");
  let hub: Awaited<ReturnType<typeof startHubServer>>;
  try {
    hub = await startHubServer(
      {
        store,
        pair,
        trust: new KeyTrust(ppkeys, trustList, logger),
        logger,
        maxBodyBytes: maxBody,
        version: getVersion(),
        ...(rudder ? { rudder } : {}),
      },
      { host: listen, port },
    );
  } catch (error) {
    await store.close();
    io.stderr(`tend hub: cannot listen on ${listen}:${port}: ${(error as Error).message}\n`);
    return EXIT_FAILURE;
  }
  if (rudder) logger.info(`Rudder configuration ${rudder.dir}: ${rudder.nodes.size} node(s)`);
  logger.notice(`listening on ${hub.host}:${hub.port}, database ${describeDatabase(spec)}`);
  const prune = async () => {
    if (retentionDays === 0) return;
    try {
      const count = await store.prune(new Date(Date.now() - retentionDays * 86_400_000));
      if (count > 0) logger.info(`Pruned ${count} run(s) older than ${retentionDays} days`);
    } catch (error) {
      logger.error(`Pruning old runs failed: ${(error as Error).message}`);
    }
  };
  let pruning = prune();
  const timer = setInterval(() => {
    pruning = pruning.then(prune);
  }, 3_600_000);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      logger.notice(`${signal} received: finishing the reports in flight, then stopping`);
      resolve();
    };
    process.once("SIGTERM", () => stop("SIGTERM"));
    process.once("SIGINT", () => stop("SIGINT"));
  });
  clearInterval(timer);
  await hub.close();
  await pruning;
  await store.close();
  logger.notice(
    `stopped (${hub.stats.stored} stored, ${hub.stats.duplicate} duplicates, ${hub.stats.refused} refused)`,
  );
  return EXIT_OK;
}
