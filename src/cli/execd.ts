/**
 * `tend execd`: the scheduler, accepting cf-execd 3.21's command line. It
 * loads the policy, reads `body executor control`, and runs the agent (by
 * default `tend agent`, as cf-execd runs cf-agent) when the schedule's
 * classes hold, keeping each run's output under `<workdir>/outputs/`.
 * `--once` runs it once now and exits. SIGHUP reloads the policy; SIGTERM
 * and SIGINT stop the daemon. Log lines go to stdout as cf-execd prints them.
 *
 * Without -F (and without -v, --once or -d, which imply it, as in cf-execd)
 * it runs in the background: tend starts itself again detached and the first
 * process exits 0 once the second has loaded the policy. The running daemon
 * writes its pid to `<workdir>/cf-execd.pid` and removes it when it stops.
 */
import { readFileSync, rmSync } from "node:fs";
import { prepareHostFacts } from "../eval/host.js";
import { join } from "node:path";
import type { LogLevel, Logger } from "../system/logger.js";
import { parseCommandLine } from "./args.js";
import { type Daemon, isDetachedCopy, startInBackground, writePidFile } from "./background.js";
import { daemonSyslog, policyFileOption, splitList, startCfCommand, stdoutLogger } from "./cf-command.js";
import { type CliIo, EXIT_FAILURE, EXIT_OK, UsageError } from "./io.js";

export const execdUsage = `Usage: tend execd [OPTIONS] [FILE]

The scheduler (accepts cf-execd's options): runs the agent on the schedule of
\`body executor control\`, keeps its output in <workdir>/outputs/ and kills a
run silent for longer than agent_expireafter.

Options:
  -f, --file FILE           the policy (default: <workdir>/inputs/promises.cf)
  -D, --define A,B          define classes before the policy is evaluated
  -N, --negate A,B          undefine classes
  -F, --no-fork             stay in the foreground
  -O, --once                run the agent once now and exit (implies -F)
  -K, --no-lock             accepted, as cf-execd accepts it
  -I, --inform              log the agent's output lines and reloads
  -v, --verbose             log what the scheduler does (implies -F)
  -d, --debug               log everything (implies -F)
  -g, --log-level LEVEL     error, warning, notice, info, verbose or debug
  -l, --timestamp           prefix log lines with the time
  -w, --workdir DIR         the work directory (outputs/, the pid file)
      --max-outputs N       keep only the newest N run outputs (default: all, as cf-execd)
      --with-runagent-socket DIR
                            the directory of the runagent socket, or 'no' for none
                            (default: <workdir>/state/cf-execd.sockets)
  -C, --color[=WHEN]        accepted as cf-execd accepts it
  -h, --help                show this help
  -V, --version             print the version

The default command (no exec_command) is tend's equivalent of cf-execd's:
  tend agent -w WORKDIR -f failsafe.cf && tend agent -w WORKDIR -Dfrom_cfexecd,scheduled_run
The work directory is --workdir, else CFENGINE_TEST_OVERRIDE_WORKDIR when set,
else /var/lib/tend for root and ~/.tend for other users.
`;

/** Set in the environment of the background copy. */
const DAEMON: Daemon = {
  command: "execd",
  childVariable: "TEND_EXECD_DAEMON_CHILD",
  readyMessage: "started",
};

function parse(args: readonly string[]) {
  return parseCommandLine(
    args,
    {
      file: { type: "string", short: "f" },
      define: { type: "string", short: "D", multiple: true },
      negate: { type: "string", short: "N", multiple: true },
      "no-fork": { type: "boolean", short: "F" },
      once: { type: "boolean", short: "O" },
      "no-lock": { type: "boolean", short: "K" },
      inform: { type: "boolean", short: "I" },
      verbose: { type: "boolean", short: "v" },
      debug: { type: "boolean", short: "d" },
      "dry-run": { type: "boolean", short: "n" },
      "log-level": { type: "string", short: "g" },
      timestamp: { type: "boolean", short: "l" },
      workdir: { type: "string", short: "w" },
      "max-outputs": { type: "string" },
      color: { type: "string", short: "C" },
      "ld-library-path": { type: "string", short: "L" },
      "no-winsrv": { type: "boolean", short: "W" },
      "ignore-preferred-augments": { type: "boolean" },
      "skip-db-check": { type: "string" },
      "with-runagent-socket": { type: "string" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "V" },
    },
    {
      "--color": "--color=auto",
      "-C": "--color=auto",
      "--skip-db-check": "--skip-db-check=yes",
    },
  );
}

type Values = ReturnType<typeof parse>["values"];

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  // The host's names, through DNS if need be, without blocking this thread.
  await prepareHostFacts();
  let maxOutputs = 0;
  const start = await startCfCommand("execd", execdUsage, parse, args, io, (values) => {
    const max = values["max-outputs"];
    if (max === undefined) return;
    if (!/^\d+$/.test(max)) throw new UsageError(`--max-outputs wants a number of files, not '${max}'`);
    maxOutputs = Number(max);
  });
  if (typeof start === "number") return start;
  const { values, positional, level } = start;
  const foreground =
    values["no-fork"] === true || values.once === true || values.verbose === true || values.debug === true;
  if (!foreground && !isDetachedCopy(DAEMON, io)) return startInBackground(DAEMON, args, io);
  return execute(values, positional, level, maxOutputs, io);
}

async function execute(
  values: Values,
  positional: string | undefined,
  level: LogLevel,
  maxOutputs: number,
  io: CliIo,
): Promise<number> {
  const { agentDirectories } = await import("../agent/workdir.js");
  const { Executor } = await import("../execd/daemon.js");
  const { ctimeText } = await import("../execd/runner.js");
  const { logModeClasses } = await import("../eval/setup.js");
  const dirs = agentDirectories({ workdir: values.workdir }, io.env);
  const syslog = await daemonSyslog(io, "cf-execd", "executor", dirs.statedir);
  const logger = stdoutLogger(io, level, values.timestamp === true, "", syslog);
  const file =
    positional ?? policyFileOption(values.file, dirs.inputdir) ?? join(dirs.inputdir, "promises.cf");
  const script = process.argv[1] ?? "";
  const executor = new Executor({
    file,
    workdir: dirs.workdir,
    inputDir: dirs.inputdir,
    logger,
    defines: splitList(values.define),
    negates: splitList(values.negate),
    modeClasses: logModeClasses(level === "notice" ? undefined : level),
    tendCommand: [process.execPath, ...process.execArgv, script],
    maxOutputs,
    env: io.env,
    onControl: (control) => syslog.setFacility(control.executorFacility),
  });
  const loaded = executor.start();
  if (!loaded.ok) {
    const { renderPolicyProblems } = await import("./render-policy-problems.js");
    io.stderr(renderPolicyProblems(loaded.diagnostics));
    logger.error("Error reading CFEngine policy. Exiting...");
    await syslog.close();
    return EXIT_FAILURE;
  }
  logger.verbose("----------------------------------------------------------------");
  logger.verbose(" Starting executor ");
  logger.verbose("----------------------------------------------------------------");
  if (values.once === true) {
    await executor.runOnce(false);
    await syslog.close();
    return EXIT_OK;
  }
  // Handled from before the pid is written: whoever reads our pid there
  // may stop us at once (a stop before the loop ends it at its start).
  const stop = (): void => {
    process.off("SIGTERM", stop);
    process.off("SIGINT", stop);
    process.off("SIGHUP", hangUp);
    executor.stop();
  };
  const hangUp = (): void => executor.requestReload();
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  process.on("SIGHUP", hangUp);
  const pidFile = join(dirs.workdir, "cf-execd.pid");
  // Our pid goes in before the earlier instance is told to stop, so that
  // the file never goes missing: on its way out it removes only its own.
  const previous = readPid(pidFile);
  await writePidFile(pidFile, logger);
  stopPreviousInstance(previous, logger);
  const socketDir = values["with-runagent-socket"];
  let socket: { close(): Promise<void> } | undefined;
  if (socketDir?.toLowerCase() !== "no") {
    const { openRunagentSocket } = await import("../execd/runagent-socket.js");
    socket = await openRunagentSocket({
      directory: socketDir ?? join(dirs.statedir, "cf-execd.sockets"),
      localRunCommand: () => executor.localRunCommand,
      remoteRun: (host) => [process.execPath, ...process.execArgv, script, "runagent", "-b", "-H", host],
      allowUsers: executor.executorControl?.runagentSocketAllowUsers ?? [],
      logger,
      env: io.env,
    });
  }
  if (process.send) {
    logger.info(`cf-execd starting ${ctimeText(new Date())}`);
    process.send("started");
    process.disconnect();
  }
  await executor.loop();
  await socket?.close();
  await syslog.close();
  // Only our own: a newer instance that stopped us has written its pid there.
  try {
    if (readFileSync(pidFile, "utf8").trim() === String(process.pid)) rmSync(pidFile, { force: true });
  } catch {
    // Already gone.
  }
  return EXIT_OK;
}

function readPid(pidFile: string): number | undefined {
  try {
    return Number(readFileSync(pidFile, "utf8").trim());
  } catch {
    return undefined;
  }
}

/**
 * cf-execd 3.21 kills its earlier instances at start (Apoptosis, by the
 * process table); tend ends the one its pid file names, when that process
 * is still a `tend execd`.
 */
function stopPreviousInstance(pid: number | undefined, logger: Logger): void {
  if (pid === undefined || !Number.isInteger(pid) || pid <= 1 || pid === process.pid) return;
  let command: string[];
  try {
    command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return;
  }
  if (!command.includes("execd")) return;
  try {
    process.kill(pid, "SIGTERM");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ESRCH") logger.error(`Unable to kill stale cf-execd process pid=${pid}. (kill: ${code})`);
  }
  logger.verbose("Pruning complete");
}
