/**
 * `tend check`: validates a policy and reports as cf-promises would (exit 0
 * when valid, 1 otherwise), with diagnostics rendered against the source.
 * As cf-promises, diagnostics go to stderr and log lines (`   error: ...`,
 * verbose notes) to stdout, or to stderr with `--log-to-stderr` or `--json`.
 */
import { join } from "node:path";
import { prepareHostFacts } from "../eval/host.js";
import type { CheckResult } from "../check/check.js";
import type { ParsedFile } from "../language/policy-set.js";
import { makeStyler, shouldColor } from "./color.js";
import {
  type CheckCommandOptions,
  checkUsage,
  parseCheckOptions,
  resolveEntryFile,
  resolveWorkdir,
} from "./check-options.js";
import { type CliIo, EXIT_FAILURE, EXIT_OK, UsageError } from "./io.js";
import { diagnosticsToJson } from "./json.js";
import { renderDiagnostics, renderSummary } from "./render.js";

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  // The host's names, through DNS if need be, without blocking this thread.
  await prepareHostFacts();
  let options: CheckCommandOptions;
  try {
    options = parseCheckOptions(args);
    if (options.json && options.policyOutput !== "none") {
      throw new UsageError("--json and --policy-output-format both write to stdout; use one");
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`tend check: ${error.message}\nTry 'tend check --help'.\n`);
    return EXIT_FAILURE;
  }
  if (options.help) {
    io.stdout(checkUsage);
    return EXIT_OK;
  }
  if (options.version) return (await import("./app.js")).main(["--version"], io);
  if (options.verbose) noteIgnored(options, logSink(options, io));
  if (options.syntaxDescription === "json") return printSyntaxDescription(io);
  return checkAndReport(options, io);
}

/** Where log lines go: stdout as cf-promises writes them, unless stdout is for JSON or asked otherwise. */
function logSink(options: CheckCommandOptions, io: CliIo): (text: string) => void {
  return options.json || options.logToStderr ? io.stderr : io.stdout;
}

function noteIgnored(options: CheckCommandOptions, log: (text: string) => void): void {
  for (const flag of options.ignored) log(`tend check: note: ${flag} has no effect on a static check\n`);
}

async function checkAndReport(options: CheckCommandOptions, io: CliIo): Promise<number> {
  const workDir = resolveWorkdir(options, io.env);
  // cf-promises -w sets CFENGINE_TEST_OVERRIDE_WORKDIR for itself (tools in <workdir>/bin...).
  if (options.workdir !== null) process.env.CFENGINE_TEST_OVERRIDE_WORKDIR = options.workdir;
  const showing = options.showVars !== null || options.showClasses !== null;
  const inputDir = join(workDir, "inputs");
  const entry = resolveEntryFile(options, inputDir);
  const log = logSink(options, io);
  if (options.verbose) log(`tend check: checking ${entry} (input directory ${inputDir})\n`);
  const { checkPolicy } = await import("../check/check.js");
  const { Logger, formatLogLine } = await import("../system/logger.js");
  const { checkMessages } = await import("../agent/policy-check.js");
  const { builtinPromiseTypes } = await import("../promises/registry.js");
  const types = builtinPromiseTypes();
  const result = checkPolicy({
    // Function errors and the like, as cf-promises logs them while it evaluates.
    messages: checkMessages(new Logger((record) => log(`${formatLogLine(record)}\n`))),
    entry,
    inputDir,
    workDir,
    defines: options.defines,
    negates: options.negates,
    fullCheck: options.fullCheck,
    bundlesequence: options.bundlesequence,
    persistentClasses: showing ? await loadPersistentClasses(workDir) : undefined,
    // cf-promises accepts it; cf-agent will refuse to run it.
    writableByOthers: "warning",
    // What tend agent would not keep: warned about here.
    implemented: (type) => types.get(type) !== undefined,
  });
  if (options.json) {
    io.stdout(JSON.stringify(diagnosticsToJson(result), null, 2) + "\n");
    return result.valid ? EXIT_OK : EXIT_FAILURE;
  }
  reportMessages(result, options, log);
  reportDiagnostics(result, options, io);
  if (!result.valid) {
    if (result.set.files.length === 0 && entry !== options.file && options.file !== null) {
      // cf-promises' lookup rule surprises people; say where the file was sought.
      io.stderr(
        `note: -f ${options.file} was looked up in ${inputDir}; write ./${options.file} for a path here\n`,
      );
    }
    return EXIT_FAILURE;
  }
  if (options.tagRelease !== null) {
    const { tagReleaseDirectory } = await import("../agent/release-tag.js");
    if (!tagReleaseDirectory(options.tagRelease, { validated: true, release: true })) {
      log("   error: The given directory could not be tagged, sorry.\n");
      return EXIT_FAILURE;
    }
  }
  if (options.policyOutput !== "none") {
    const code = await printPolicy(result.set.files, options, io);
    if (code !== EXIT_OK) return code;
  }
  if (showing) return showState(result, options, io, log);
  if (options.verbose) log(`tend check: ${entry} is valid (${result.set.files.length} files)\n`);
  return EXIT_OK;
}

/** Messages of host-specific data and augments, worded and formatted as cf-promises logs them. */
function reportMessages(
  result: CheckResult,
  options: CheckCommandOptions,
  log: (text: string) => void,
): void {
  for (const { level, text } of result.messages) {
    if (level === "verbose" && !options.verbose) continue;
    log(`${level.padStart(8)}: ${text}\n`);
  }
}

function reportDiagnostics(result: CheckResult, options: CheckCommandOptions, io: CliIo): void {
  if (result.diagnostics.length === 0) return;
  const sources = new Map(result.set.files.map((f) => [f.source.path, f.source]));
  const style = makeStyler(shouldColor(options.color, { isTTY: io.stderrIsTTY }, io.env));
  io.stderr(renderDiagnostics(result.diagnostics, (file) => sources.get(file), { style }));
  io.stderr(`${renderSummary(result.diagnostics)}\n`);
}

async function printPolicy(
  files: readonly ParsedFile[],
  options: CheckCommandOptions,
  io: CliIo,
): Promise<number> {
  // "json" and "cf" print the entry file only; the "-full" forms print every file loaded.
  const chosen = options.policyOutput.endsWith("-full") ? files : files.slice(0, 1);
  // Laid out byte for byte as cf-promises 3.21 prints them (scripts compare them).
  if (options.policyOutput.startsWith("json")) {
    const { policyToJson } = await import("../language/print/json.js");
    const { writeCfengineJson } = await import("../language/print/cfengine-json.js");
    io.stdout(writeCfengineJson(policyToJson(chosen), 2));
  } else {
    const { policyToCfPromisesText } = await import("../language/print/cf-promises-text.js");
    io.stdout(policyToCfPromisesText(chosen));
  }
  return EXIT_OK;
}

async function loadPersistentClasses(workDir: string) {
  const { PersistentClasses } = await import("../eval/persistent-classes.js");
  return new PersistentClasses(join(workDir, "state")).load();
}

/** `--show-classes` then `--show-vars`, as the check left them. */
async function showState(
  result: CheckResult,
  options: CheckCommandOptions,
  io: CliIo,
  log: (text: string) => void,
): Promise<number> {
  const { ShowRegexError, formatClasses, formatVariables } = await import("../eval/show-state.js");
  try {
    if (options.showClasses !== null) io.stdout(formatClasses(result.context, options.showClasses));
    if (options.showVars !== null) io.stdout(formatVariables(result.context, options.showVars));
  } catch (error) {
    if (!(error instanceof ShowRegexError)) throw error;
    log(
      `   error: Sorry, we could not compile regular expression ${options.showVars ?? options.showClasses}\n`,
    );
  }
  return EXIT_OK;
}

async function printSyntaxDescription(io: CliIo): Promise<number> {
  const { describeSyntax } = await import("../language/syntax/index.js");
  // Byte for byte what cf-promises prints, which ends without a newline.
  io.stdout(JSON.stringify(describeSyntax(), null, 2));
  return EXIT_OK;
}
