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
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { LogLevel } from "../system/logger.js";
import { parseCommandLine } from "./args.js";
import { type Daemon, isDetachedCopy, startInBackground, writePidFile } from "./background.js";
import { policyFileOption, splitList, startCfCommand, stdoutLogger } from "./cf-command.js";
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
  const start = await startCfCommand("serverd", serverdUsage, parse, args, io);
  if (typeof start === "number") return start;
  const { values, positional, level } = start;
  const foreground = values["no-fork"] === true || values.verbose === true || values.debug === true;
  if (!foreground && !isDetachedCopy(DAEMON, io)) return startInBackground(DAEMON, args, io);
  return serve(values, positional, level, io);
}

/** Loads the policy, listens, and serves until a signal ends it. */
async function serve(
  values: Values,
  positional: string | undefined,
  level: LogLevel,
  io: CliIo,
): Promise<number> {
  const { agentDirectories } = await import("../agent/workdir.js");
  const { loadServerPolicy } = await import("../server/policy/index.js");
  const { startServer, ServerStartError } = await import("../server/daemon/server.js");
  const dirs = agentDirectories({ workdir: values.workdir }, io.env);
  const logger = stdoutLogger(io, level, values.timestamp === true);
  const file =
    positional ?? policyFileOption(values.file, dirs.inputdir) ?? join(dirs.inputdir, "promises.cf");
  const load = () =>
    loadServerPolicy({
      file,
      workdir: dirs.workdir,
      inputDir: dirs.inputdir,
      logger,
      defines: splitList(values.define),
      negates: splitList(values.negate),
    });
  const loaded = await load();
  if (!loaded.ok) {
    const { renderPolicyProblems } = await import("./render-policy-problems.js");
    io.stderr(renderPolicyProblems(loaded.diagnostics));
    logger.error("Error reading CFEngine policy. Exiting...");
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
    });
  } catch (error) {
    if (!(error instanceof ServerStartError)) throw error;
    for (const message of error.messages) logger.error(message);
    return EXIT_FAILURE;
  }
  const pidFile = join(dirs.workdir, "cf-serverd.pid");
  // The signals are handled before anyone can learn the pid or see the server start.
  const stopped = new Promise<number>((resolve) => {
    const stop = (): void => {
      process.off("SIGTERM", stop);
      process.off("SIGINT", stop);
      process.off("SIGHUP", hangUp);
      logger.notice("Cleaning up and exiting...");
      void server.close().then(() => {
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
