/**
 * `tend agent`: runs a policy and converges the machine, as cf-agent does,
 * accepting cf-agent's command line. As cf-agent, report lines (`R: ...`)
 * and log lines (`   error: ...`) go to stdout, in the order they happen;
 * policy errors shown against their source go to stderr, as cf-promises
 * shows them. `--log-to-stderr` sends the log lines to stderr; `--json`
 * prints a structured run report on stdout instead of the lines (and the
 * log lines then go to stderr, so that stdout stays one JSON document).
 */
import { existsSync } from "node:fs";
import { prepareHostFacts } from "../eval/host.js";
import { isatty } from "node:tty";
import { formatLogLine, Logger } from "../system/logger.js";
import type { RunReport } from "../reporting/report.js";
import { finishReporting, startReporting } from "./agent-report.js";
import type { AgentResult, AgentSinks } from "../agent/run.js";
import { SIMULATE_MODES, type SimulateMode } from "../promises/simulate/changes-chroot.js";
import { parseCommandLine } from "./args.js";
import { logTimestamp, policyFileOption, splitList, startCfCommand } from "./cf-command.js";
import { type CliIo, EXIT_FAILURE } from "./io.js";

export const agentUsage = `Usage: tend agent [OPTIONS] [FILE]

Runs a CFEngine 3.21 policy (accepts cf-agent's options).

Options:
  -f, --file FILE           the policy to run (default: <workdir>/inputs/promises.cf)
  -b, --bundlesequence B,.. run these bundles instead of the policy's bundlesequence
  -D, --define A,B          define classes before the run
  -N, --negate A,B          undefine classes (they can then never be defined)
  -B, --bootstrap HOST[:PORT]  bootstrap to a policy server: fetch its policy with the
                            built-in failsafe policy and keep it as this host's server
  -T, --trust-server[=yes|no]  with -B: trust the server's key on first use (yes)
      --skip-bootstrap-policy-run  with -B: do not run the fetched policy afterwards
  -K, --no-lock             ignore ifelapsed/expireafter locks
  -n, --dry-run             change nothing; report what would be repaired
      --simulate MODE       files promises change copies in a chroot, shown at the
                            end (manifest, manifest-full, diff); nothing else acts
  -I, --inform              log repairs
  -v, --verbose             log what the agent does
  -d, --debug               log everything
  -g, --log-level LEVEL     error, warning, notice, info, verbose or debug
  -l, --timestamp           prefix log lines with the time
      --log-to-stderr       write log lines to stderr (cf-agent, and tend by
                            default, write them to stdout with the reports)
  -w, --workdir DIR         the work directory (state, locks)
  -C, --color[=WHEN]        always, auto or never (attached: -Cnever); accepted
                            as cf-agent accepts it (its log lines are plain)
      --show-evaluated-classes[=REGEX]  print the classes defined when the run ends
      --show-evaluated-vars[=REGEX]     print the variables defined when the run ends
      --json                print a JSON run report on stdout (log lines go
                            to stderr)
      --hub HOST[:PORT]     send the run report to this hub (default: none, or
                            what <workdir>/reporting.json says; port 5310)
  -h, --help                show this help
  -V, --version             print the version

The work directory is --workdir, else CFENGINE_TEST_OVERRIDE_WORKDIR when set,
else /var/lib/tend for root and ~/.tend for other users (tend check uses the
same rule).
`;

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  // The host's names, through DNS if need be, without blocking this thread.
  await prepareHostFacts();
  const start = await startCfCommand("agent", agentUsage, parseAgentArgs, args, io);
  if (typeof start === "number") return start;
  const { values, positional, level } = start;
  const simulate = simulateMode(values.simulate);
  if (simulate === null) {
    io.stderr(
      `tend agent: Invalid argument for --simulate, 'manifest' or 'diff' required, not '${values.simulate}'\n`,
    );
    return EXIT_FAILURE;
  }
  const trustServer = values["trust-server"];
  if (trustServer !== undefined && values.bootstrap === undefined) {
    io.stdout("   error: Option --trust-server can only be used when bootstrapping\n");
    return EXIT_FAILURE;
  }
  const { runAgent } = await import("../agent/run.js");
  const { agentDirectories } = await import("../agent/workdir.js");
  const dirs = agentDirectories({ workdir: values.workdir }, io.env);
  // As cf-agent's -w: the tools it starts (cf-promises, modules) see it too.
  if (values.workdir !== undefined) process.env.CFENGINE_TEST_OVERRIDE_WORKDIR = values.workdir;
  const unusable = await workdirProblem(dirs.workdir);
  if (unusable) {
    io.stderr(`tend agent: ${unusable}\n`);
    return EXIT_FAILURE;
  }
  const file = positional ?? policyFileOption(values.file, dirs.inputdir) ?? `${dirs.inputdir}/promises.cf`;
  const json = values.json === true;
  const reporting = await startReporting(dirs.workdir, values.hub, (text) =>
    io.stderr(`tend agent: ${text}\n`),
  );
  const stamp = values.timestamp === true;
  const renderer = await import("./render-policy-problems.js");
  // Where cf-agent writes its log lines: stdout, unless asked otherwise.
  const logTo = json || values["log-to-stderr"] === true ? io.stderr : io.stdout;
  const sinks: AgentSinks = {
    log: (record) => logTo(`${stamp ? logTimestamp() : ""}${formatLogLine(record)}\n`),
    report: (text) => {
      reporting?.lines.push(`R: ${text}`);
      if (!json) io.stdout(`${stamp ? logTimestamp() : ""}R: ${text}\n`);
    },
    output: (text) => {
      if (!json) io.stdout(text.endsWith("\n") ? text : `${text}\n`);
    },
    // Like cf-agent, show what stops the run; warnings are for `tend check`.
    invalidPolicy: (diagnostics) => io.stderr(renderer.renderPolicyProblems(diagnostics)),
  };
  if (values.bootstrap !== undefined) {
    const { bootstrapAgent } = await import("./agent-bootstrap.js");
    const runOptions = {
      workdir: values.workdir,
      defines: splitList(values.define),
      negates: splitList(values.negate),
      dryRun: values["dry-run"] === true,
      logLevel: level,
      record: json,
    };
    const request = {
      argument: values.bootstrap,
      trustServer: trustServer === undefined || trustServer === "yes",
      triggerPolicy: values["skip-bootstrap-policy-run"] !== true,
    };
    const outcome = await bootstrapAgent(request, runOptions, dirs, sinks);
    if (json && outcome.failsafe)
      io.stdout(`${JSON.stringify(runReport(outcome.failsafe.file, outcome.failsafe.result), null, 2)}\n`);
    return outcome.exitCode;
  }
  const result = runAgent(
    {
      file,
      fileGiven: positional !== undefined || values.file !== undefined,
      workdir: values.workdir,
      defines: splitList(values.define),
      negates: splitList(values.negate),
      bundlesequence: values.bundlesequence ? splitList(values.bundlesequence) : undefined,
      ignoreLocks: values["no-lock"] === true,
      dryRun: values["dry-run"] === true,
      simulate,
      logLevel: level,
      record: json || reporting !== undefined,
      // As cf-agent: without a terminal, an invalid policy falls back to failsafe.cf.
      // Asked only then: the terminal check loads modules a valid policy never needs.
      get failsafe() {
        return ![0, 1, 2].some((fd) => isatty(fd));
      },
    },
    sinks,
  );
  if (json) io.stdout(`${JSON.stringify(runReport(file, result), null, 2)}\n`);
  if (reporting) {
    const logger = new Logger(sinks.log, level);
    await finishReporting(reporting, dirs.workdir, file, runReport(file, result) as RunReport, logger);
  }
  if (!json)
    await showEvaluated(result, values["show-evaluated-classes"], values["show-evaluated-vars"], io, logTo);
  return result.exitCode;
}

/** `--simulate`'s mode (any letter case, as cf-agent); null when it names none. */
function simulateMode(value: string | undefined): SimulateMode | undefined | null {
  if (value === undefined) return undefined;
  const mode = SIMULATE_MODES.find((m) => m === value.toLowerCase());
  return mode ?? null;
}

/** Options whose value is optional in cf-agent: written alone, they take their default. */
const OPTIONAL_VALUES: Readonly<Record<string, string>> = {
  "--show-evaluated-classes": "--show-evaluated-classes=.*",
  "--show-evaluated-vars": "--show-evaluated-vars=.*",
  "--color": "--color=auto",
  "-C": "--color=auto",
  "--trust-server": "--trust-server=yes",
  "-T": "--trust-server=yes",
};

/** Why the work directory cannot be used (it cannot be created), or undefined. */
async function workdirProblem(workdir: string): Promise<string | undefined> {
  if (existsSync(workdir)) return undefined;
  const { makeDirectoriesSync } = await import("../system/make-directories.js");
  const { errorText } = await import("../promises/files/step.js");
  try {
    makeDirectoriesSync(workdir, 0o755);
    return undefined;
  } catch (error) {
    return `cannot create the work directory ${workdir} (mkdir: ${errorText(error)}); choose another with -w DIR`;
  }
}

function parseAgentArgs(args: readonly string[]) {
  return parseCommandLine(
    args,
    {
      file: { type: "string", short: "f" },
      bootstrap: { type: "string", short: "B" },
      "trust-server": { type: "string", short: "T" },
      "skip-bootstrap-policy-run": { type: "boolean" },
      bundlesequence: { type: "string", short: "b", multiple: true },
      define: { type: "string", short: "D", multiple: true },
      negate: { type: "string", short: "N", multiple: true },
      "no-lock": { type: "boolean", short: "K" },
      "dry-run": { type: "boolean", short: "n" },
      simulate: { type: "string" },
      inform: { type: "boolean", short: "I" },
      verbose: { type: "boolean", short: "v" },
      debug: { type: "boolean", short: "d" },
      "log-level": { type: "string", short: "g" },
      timestamp: { type: "boolean", short: "l" },
      workdir: { type: "string", short: "w" },
      color: { type: "string", short: "C" },
      "timing-output": { type: "boolean", short: "t" },
      "no-extensions": { type: "boolean", short: "E" },
      json: { type: "boolean" },
      hub: { type: "string" },
      "log-to-stderr": { type: "boolean" },
      "show-evaluated-classes": { type: "string" },
      "show-evaluated-vars": { type: "string" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "V" },
    },
    OPTIONAL_VALUES,
  );
}

/** `--show-evaluated-classes` then `--show-evaluated-vars`, as cf-agent prints them after the run. */
async function showEvaluated(
  result: AgentResult,
  classes: string | undefined,
  vars: string | undefined,
  io: CliIo,
  logTo: (text: string) => void,
): Promise<void> {
  if (!result.context || (classes === undefined && vars === undefined)) return;
  const { ShowRegexError, formatClasses, formatVariables } = await import("../eval/show-state.js");
  try {
    if (classes !== undefined) io.stdout(formatClasses(result.context, classes));
    if (vars !== undefined) io.stdout(formatVariables(result.context, vars));
  } catch (error) {
    if (!(error instanceof ShowRegexError)) throw error;
    logTo(`   error: Sorry, we could not compile regular expression ${classes ?? vars}\n`);
  }
}

/** The `--json` report; its shape is described by schema/run-report.schema.json. */
export function runReport(file: string, result: AgentResult): object {
  return {
    version: 1,
    policy: file,
    exitCode: result.exitCode,
    outcome: result.outcome,
    diagnostics: result.diagnostics,
    promises: result.records,
    classes: [...result.classes].sort(),
  };
}
