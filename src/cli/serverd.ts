/**
 * `tend serverd`: the policy server, accepting cf-serverd 3.21's command
 * line. It loads the server policy, listens, and serves cf-agent,
 * cf-net and cf-runagent (and tend's own clients) until SIGTERM or SIGINT;
 * SIGHUP reloads the policy. Log lines go to stdout as cf-serverd prints
 * them.
 *
 * Without -F (and without -v or -d, which imply it, as in cf-serverd) it
 * runs in the background: Node cannot fork, so tend starts itself again
 * detached (a new session, standard streams on /dev/null once started) and
 * the first process exits 0 once the second listens — or with its exit
 * code and messages when it cannot start. The running server writes its
 * pid to `<workdir>/cf-serverd.pid` and removes it when it stops.
 */
import { fork } from "node:child_process";
import { prepareHostFacts } from "../eval/host.js";
import { rmSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { Logger, type LogLevel } from "../system/logger.js";
import type { SyslogWriter } from "../system/syslog.js";
import { parseCommandLine } from "./args.js";
import { type Daemon, isDetachedCopy, startInBackground, writePidFile } from "./background.js";
import { daemonSyslog, policyFileOption, splitList, startCfCommand, stdoutLogger } from "./cf-command.js";
import { type CliIo, EXIT_FAILURE, EXIT_OK } from "./io.js";

export const serverdUsage = `Usage: tend serverd [OPTIONS] [FILE]

The policy server (accepts cf-serverd's options): serves files and
cf-runagent requests to CFEngine 3.21 agents over cf-serverd's protocol.

Options:
  -f, --file FILE           the policy (default: <workdir>/inputs/promises.cf)
  -D, --define A,B          define classes before the policy is evaluated
  -N, --negate A,B          undefine classes
  -F, --no-fork             stay in the foreground
  -K, --no-lock             accepted, as cf-serverd accepts it
  -I, --inform              log connections
  -v, --verbose             log what the server does (implies -F)
  -d, --debug               log everything (implies -F)
  -g, --log-level LEVEL     error, warning, notice, info, verbose or debug
  -l, --timestamp           prefix log lines with the time
  -w, --workdir DIR         the work directory (keys in ppkeys/, state/)
  -C, --color[=WHEN]        accepted as cf-serverd accepts it
  -h, --help                show this help
  -V, --version             print the version

The work directory is --workdir, else CFENGINE_TEST_OVERRIDE_WORKDIR when set,
else /var/lib/tend for root and ~/.tend for other users. The server's key
pair is <workdir>/ppkeys/localhost.priv and localhost.pub (tend key or cf-key
makes one); clients' trusted keys are <workdir>/ppkeys/<user>-MD5=<digest>.pub.
`;

/** Set in the environment of the background copy. */
const DAEMON: Daemon = {
  command: "serverd",
  childVariable: "TEND_SERVERD_DAEMON_CHILD",
  readyMessage: "listening",
};

function parse(args: readonly string[]) {
  return parseCommandLine(
    args,
    {
      file: { type: "string", short: "f" },
      define: { type: "string", short: "D", multiple: true },
      negate: { type: "string", short: "N", multiple: true },
      "no-fork": { type: "boolean", short: "F" },
      "no-lock": { type: "boolean", short: "K" },
      inform: { type: "boolean", short: "I" },
      verbose: { type: "boolean", short: "v" },
      debug: { type: "boolean", short: "d" },
      "log-level": { type: "string", short: "g" },
      timestamp: { type: "boolean", short: "l" },
      workdir: { type: "string", short: "w" },
      color: { type: "string", short: "C" },
      "ld-library-path": { type: "string", short: "L" },
      "graceful-detach": { type: "string", short: "t" },
      "ignore-preferred-augments": { type: "boolean" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "V" },
    },
    {
      "--color": "--color=auto",
      "-C": "--color=auto",
      "--graceful-detach": "--graceful-detach=60",
      "-t": "-t60",
    },
  );
}

type Values = ReturnType<typeof parse>["values"];

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  // The host's names, through DNS if need be, without blocking this thread.
  await prepareHostFacts();
  const start = await startCfCommand("serverd", serverdUsage, parse, args, io);
  if (typeof start === "number") return start;
  const { values, positional, level } = start;
  if (io.env[HELPER] === "1") return serveAsHelper(values, positional, level, io);
  const foreground = values["no-fork"] === true || values.verbose === true || values.debug === true;
  if (!foreground && !isDetachedCopy(DAEMON, io)) return startInBackground(DAEMON, args, io);
  return serve(values, positional, level, io);
}

/** Set in the environment of the helper processes (src/server/daemon/helpers.ts). */
const HELPER = "TEND_SERVERD_HELPER";

/**
 * How many processes serve: TEND_SERVERD_PROCESSES when set (at most 64;
 * "cores" for one per core), else 1 (the main process alone).
 */
export function serverProcesses(env: NodeJS.ProcessEnv): number {
  const asked = env.TEND_SERVERD_PROCESSES;
  if (asked === "cores") return Math.max(1, Math.min(availableParallelism(), 64));
  const count = Number(asked);
  return Number.isInteger(count) && count >= 1 ? Math.min(count, 64) : 1;
}

/**
 * The policy loader of both kinds of process. `syslog` takes the policy's
 * `serverfacility` at each load, start and reload alike, as cf-serverd's
 * KeepControlPromises sets it (a policy without one keeps the facility
 * in use); `beforeControl` runs just before, once per load.
 */
async function policyLoader(
  values: Values,
  positional: string | undefined,
  io: CliIo,
  logger: Logger,
  syslog: SyslogWriter,
) {
  const { agentDirectories } = await import("../agent/workdir.js");
  const dirs = agentDirectories({ workdir: values.workdir }, io.env);
  const file =
    positional ?? policyFileOption(values.file, dirs.inputdir) ?? join(dirs.inputdir, "promises.cf");
  const load = async (beforeControl?: () => void) => {
    const { loadServerPolicy } = await import("../server/policy/index.js");
    return loadServerPolicy({
      onControl: (control) => {
        beforeControl?.();
        const facility = control.serverFacility;
        if (facility === undefined) return;
        logger.verbose(`SET Syslog FACILITY = ${facility}`);
        syslog.setFacility(facility);
      },
      file,
      workdir: dirs.workdir,
      inputDir: dirs.inputdir,
      logger,
      defines: splitList(values.define),
      negates: splitList(values.negate),
    });
  };
  return { dirs, file, load };
}

/** A helper process: the same policy, connections handed over by the main process. */
async function serveAsHelper(
  values: Values,
  positional: string | undefined,
  level: LogLevel,
  io: CliIo,
): Promise<number> {
  const { startHelperServer, ServerStartError } = await import("../server/daemon/server.js");
  const { serveForMain, reportHelperFailure } = await import("../server/daemon/helpers.js");
  const { keepMemoryFlat } = await import("../server/daemon/memory.js");
  const { agentDirectories } = await import("../agent/workdir.js");
  const statedir = agentDirectories({ workdir: values.workdir }, io.env).statedir;
  const syslog = await daemonSyslog(io, "cf-serverd", "server", statedir);
  const logger = stdoutLogger(io, level, values.timestamp === true, "", syslog);
  // The main process has logged what loading the policy says; a helper stays quiet about it.
  const { dirs, load } = await policyLoader(values, positional, io, new Logger(() => {}, "error"), syslog);
  const loaded = await load();
  if (!loaded.ok) {
    reportHelperFailure(["A helper process could not load the policy"]);
    return EXIT_FAILURE;
  }
  try {
    const server = startHelperServer({ policy: loaded.policy, workdir: dirs.workdir, logger, reload: load });
    const memory = keepMemoryFlat();
    await serveForMain(server);
    memory.stop();
    return EXIT_OK;
  } catch (error) {
    if (!(error instanceof ServerStartError)) throw error;
    reportHelperFailure(error.messages);
    return EXIT_FAILURE;
  }
}

/** Loads the policy, listens, and serves until a signal ends it. */
async function serve(
  values: Values,
  positional: string | undefined,
  level: LogLevel,
  io: CliIo,
): Promise<number> {
  const { startServer, ServerStartError } = await import("../server/daemon/server.js");
  const { keepMemoryFlat } = await import("../server/daemon/memory.js");
  const { agentDirectories } = await import("../agent/workdir.js");
  const statedir = agentDirectories({ workdir: values.workdir }, io.env).statedir;
  const syslog = await daemonSyslog(io, "cf-serverd", "server", statedir);
  const logger = stdoutLogger(io, level, values.timestamp === true, "", syslog);
  const { dirs, file, load } = await policyLoader(values, positional, io, logger, syslog);
  const loaded = await load();
  if (!loaded.ok) {
    const { renderPolicyProblems } = await import("./render-policy-problems.js");
    io.stderr(renderPolicyProblems(loaded.diagnostics));
    logger.error("Error reading CFEngine policy. Exiting...");
    await syslog.close();
    return EXIT_FAILURE;
  }
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer({
      policy: loaded.policy,
      workdir: dirs.workdir,
      logger,
      reload: load,
      policyFile: file,
      helpers: { count: serverProcesses(io.env) - 1, spawn: () => spawnHelper(io) },
    });
  } catch (error) {
    if (!(error instanceof ServerStartError)) throw error;
    for (const message of error.messages) logger.error(message);
    await syslog.close();
    return EXIT_FAILURE;
  }
  const memory = keepMemoryFlat();
  const pidFile = join(dirs.workdir, "cf-serverd.pid");
  // The signals are handled before anyone can learn the pid or see the server start.
  const stopped = new Promise<number>((resolve) => {
    const stop = (): void => {
      process.off("SIGTERM", stop);
      process.off("SIGINT", stop);
      process.off("SIGHUP", hangUp);
      logger.notice("Cleaning up and exiting...");
      memory.stop();
      void server
        .close()
        .then(() => syslog.close())
        .then(() => {
          rmSync(pidFile, { force: true });
          resolve(EXIT_OK);
        });
    };
    const hangUp = (): void => void server.reload(true);
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
    process.on("SIGHUP", hangUp);
  });
  await writePidFile(pidFile, logger);
  // In the background, the first process exits now: as cf-serverd's parent, it does not say this.
  if (process.send) {
    process.send("listening");
    process.disconnect();
  }
  logger.notice("Server is starting...");
  return stopped;
}

/** Starts a helper: this very command line again, in helper mode, sharing stdout and stderr. */
function spawnHelper(io: CliIo) {
  return fork(process.argv[1] ?? "", process.argv.slice(2), {
    env: { ...io.env, [HELPER]: "1" },
    cwd: io.cwd,
    execArgv: process.execArgv,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
}
