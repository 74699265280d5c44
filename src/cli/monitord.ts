/**
 * `tend monitord`: the monitor daemon, accepting cf-monitord 3.21's command
 * line. It samples the host at start and then every 2.5 minutes, learns
 * the weekly statistics and writes `<workdir>/state/env_data`, which tend
 * agent and cf-agent read into `mon.*` variables and classes.
 *
 * Without -F (and without -v or -d, which imply it) it runs in the
 * background: tend starts itself again detached and the first process
 * exits 0 once the second has taken its first sample. `--once` (tend's
 * own) takes one sample and exits, for tests and cron. Log lines go to
 * stdout prefixed with `cf-monitord`, as cf-monitord prints them
 * (`cf-monitord     info: Updated averages at 'Fri:Hr05:Min30_35'` with -I). The running daemon
 * writes its pid to `<workdir>/cf-monitord.pid` and removes it when it stops.
 */
import { rmSync } from "node:fs";
import { prepareHostFacts } from "../eval/host.js";
import { join } from "node:path";
import type { LogLevel } from "../system/logger.js";
import { parseCommandLine } from "./args.js";
import { type Daemon, isDetachedCopy, startInBackground, writePidFile } from "./background.js";
import { daemonSyslog, policyFileOption, splitList, startCfCommand, stdoutLogger } from "./cf-command.js";
import { type CliIo, EXIT_FAILURE, EXIT_OK } from "./io.js";

export const monitordUsage = `Usage: tend monitord [OPTIONS] [FILE]

The monitor daemon (accepts cf-monitord's options): measures the host every
2.5 minutes and publishes what it sees in <workdir>/state/env_data for the
agents (tend agent and cf-agent 3.21 read it as mon.* variables and classes).

Options:
  -f, --file FILE           the policy (default: <workdir>/inputs/promises.cf)
  -D, --define A,B          define classes before the policy is evaluated
  -N, --negate A,B          undefine classes
  -F, --no-fork             stay in the foreground
  -K, --no-lock             accepted, as cf-monitord accepts it
  -n, --dry-run             accepted, as cf-monitord accepts it
  -H, --histograms          accepted (no longer used, as in cf-monitord)
  -T, --tcpdump             accepted; tend has no packet sniffer
  -I, --inform              log more
  -v, --verbose             log what the monitor does (implies -F)
  -d, --debug               log everything (implies -F)
  -g, --log-level LEVEL     error, warning, notice, info, verbose or debug
  -l, --timestamp           prefix log lines with the time
  -w, --workdir DIR         the work directory (state/ under it), as tend agent
      --once                take one sample, write env_data and exit (tend's own)
  -C, --color[=WHEN]        accepted as cf-monitord accepts it
  -h, --help                show this help
  -V, --version             print the version

The work directory is --workdir, else CFENGINE_TEST_OVERRIDE_WORKDIR when set,
else /var/lib/tend for root and ~/.tend for other users.
`;

const DAEMON: Daemon = {
  command: "monitord",
  childVariable: "TEND_MONITORD_DAEMON_CHILD",
  readyMessage: "sampled",
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
      "dry-run": { type: "boolean", short: "n" },
      histograms: { type: "boolean", short: "H" },
      tcpdump: { type: "boolean", short: "T" },
      diagnostic: { type: "boolean", short: "x" },
      inform: { type: "boolean", short: "I" },
      verbose: { type: "boolean", short: "v" },
      debug: { type: "boolean", short: "d" },
      "log-level": { type: "string", short: "g" },
      timestamp: { type: "boolean", short: "l" },
      workdir: { type: "string", short: "w" },
      once: { type: "boolean" },
      color: { type: "string", short: "C" },
      "ignore-preferred-augments": { type: "boolean" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "V" },
    },
    { "--color": "--color=auto", "-C": "--color=auto" },
  );
}

type Values = ReturnType<typeof parse>["values"];

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  // The host's names, through DNS if need be, without blocking this thread.
  await prepareHostFacts();
  const start = await startCfCommand("monitord", monitordUsage, parse, args, io);
  if (typeof start === "number") return start;
  const { values, positional, level } = start;
  const foreground =
    values.once === true || values["no-fork"] === true || values.verbose === true || values.debug === true;
  if (!foreground && !isDetachedCopy(DAEMON, io)) return startInBackground(DAEMON, args, io);
  return monitor(values, positional, level, io);
}

async function monitor(
  values: Values,
  positional: string | undefined,
  level: LogLevel,
  io: CliIo,
): Promise<number> {
  const { agentDirectories } = await import("../agent/workdir.js");
  const { startMonitor, MonitorStartError } = await import("../monitor/daemon.js");
  const dirs = agentDirectories({ workdir: values.workdir }, io.env);
  const syslog = await daemonSyslog(io, "cf-monitord", "monitor", dirs.statedir, "cf-monitord");
  const logger = stdoutLogger(io, level, values.timestamp === true, "cf-monitord ", syslog);
  const file =
    positional ?? policyFileOption(values.file, dirs.inputdir) ?? join(dirs.inputdir, "promises.cf");
  let daemon: Awaited<ReturnType<typeof startMonitor>>;
  try {
    daemon = await startMonitor({
      file,
      workdir: dirs.workdir,
      inputdir: dirs.inputdir,
      statedir: dirs.statedir,
      logger,
      defines: splitList(values.define),
      negates: splitList(values.negate),
      once: values.once === true,
      onControl: ({ monitorFacility }) => {
        if (monitorFacility === undefined) return;
        logger.verbose(`SET Syslog FACILITY = ${monitorFacility}`);
        syslog.setFacility(monitorFacility);
      },
    });
  } catch (error) {
    if (!(error instanceof MonitorStartError)) throw error;
    if (error.diagnostics.length > 0) {
      const { renderPolicyProblems } = await import("./render-policy-problems.js");
      io.stderr(renderPolicyProblems(error.diagnostics));
    }
    for (const message of error.messages) logger.error(message);
    await syslog.close();
    return EXIT_FAILURE;
  }
  if (values.once) {
    await syslog.close();
    return EXIT_OK;
  }
  const pidFile = join(dirs.workdir, "cf-monitord.pid");
  // Handled from before the pid is written: whoever reads it there may stop us at once.
  let stopped = false;
  let finish: (code: number) => void = () => {};
  const done = new Promise<number>((resolve) => {
    finish = resolve;
  });
  const stop = (): void => {
    stopped = true;
    process.off("SIGTERM", stop);
    process.off("SIGINT", stop);
    daemon.stop();
    rmSync(pidFile, { force: true });
    void syslog.close().then(() => finish(EXIT_OK));
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  await writePidFile(pidFile, logger);
  if (stopped) rmSync(pidFile, { force: true });
  else if (process.send) {
    process.send("sampled");
    process.disconnect();
  }
  return done;
}
