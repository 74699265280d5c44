/**
 * What the edit and copy scenario harnesses share: one run of a scenario's
 * policy through tend (in this process) or through cf-agent (a command
 * taking its options, work directory from $CFA_WD), reduced to what both
 * agents must agree on — the files left, the log lines of the chosen
 * levels and the reports, with paths made relative by the harness.
 */
import { rmSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import type { LogRecord } from "../../src/system/logger.js";
import { runAgent } from "../../src/agent/run.js";

export interface RunResult {
  /** The scenario directory's files as the harness shows them, sorted. */
  readonly files: string[];
  /** `level: message` for the log levels the harness compares. */
  readonly log: string[];
  readonly reports: string[];
}

export interface ScenarioResult {
  readonly name: string;
  readonly runs: RunResult[];
}

/** How a harness reads a run. */
export interface Capture {
  readonly levels: ReadonlySet<string>;
  /** A message with the scenario's paths made relative. */
  relative(text: string, dir: string): string;
  /** The directory's files as both agents must leave them. */
  snapshot(dir: string): string[];
}

export function runTendCapturing(policy: string, root: string, dir: string, capture: Capture): RunResult {
  const log: string[] = [];
  const reports: string[] = [];
  const keep = (r: LogRecord) => {
    if (capture.levels.has(r.level)) log.push(`${r.level}: ${capture.relative(r.message, dir)}`);
  };
  runAgent(
    { file: policy, ignoreLocks: true, logLevel: "info", workdir: join(root, "wd-tend") },
    { log: keep, report: (t) => reports.push(capture.relative(t, dir)) },
  );
  return { files: capture.snapshot(dir), log, reports };
}

export function runCfAgentCapturing(
  command: string,
  policy: string,
  root: string,
  dir: string,
  capture: Capture,
): RunResult {
  const run = spawnSync(command, ["-KI", "-f", policy], {
    encoding: "utf8",
    env: { ...process.env, CFA_WD: join(root, "wd-cfa") },
  });
  const log: string[] = [];
  const reports: string[] = [];
  let last: string[] | undefined;
  // Log and report lines: stdout, for both agents.
  for (const line of run.stdout.replace(/\n$/, "").split("\n")) {
    const report = /^R: (.*)$/.exec(line);
    const entry = /^\s*(error|warning|info|notice|verbose): (.*)$/.exec(line);
    if (report) {
      reports.push(capture.relative(report[1] as string, dir));
      last = reports;
    } else if (entry) {
      last = capture.levels.has(entry[1] as string) ? log : undefined;
      last?.push(`${entry[1]}: ${capture.relative(entry[2] as string, dir)}`);
    } else if (last && last.length > 0) {
      // A message with newlines continues on lines of its own.
      last[last.length - 1] += `\n${capture.relative(line, dir)}`;
    }
  }
  return { files: capture.snapshot(dir), log, reports };
}

/** Both runs of a prepared scenario with one agent; its root is removed afterwards. */
export function runTwice(
  name: string,
  prepared: { root: string; dir: string; policy: string },
  run: (policy: string, root: string, dir: string) => RunResult,
): ScenarioResult {
  const { root, dir, policy } = prepared;
  try {
    return { name, runs: [run(policy, root, dir), run(policy, root, dir)] };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
