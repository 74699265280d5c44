/**
 * Runs a small policy whose promises go to one fixture promise module
 * (test/fixtures/modules), in-process, and collects what tests look at.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { LogRecord } from "../../../src/system/logger.js";
import type { PromiseRecord } from "../../../src/agent/recorder.js";
import { runAgent } from "../../../src/agent/run.js";

export const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));
export const fixtureDir = join(repoRoot, "test", "fixtures", "modules");
export const PYTHON = "/usr/bin/python3";
export const hasPython = existsSync(PYTHON);

export interface ModuleRun {
  readonly exitCode: number;
  readonly records: readonly PromiseRecord[];
  readonly logs: readonly LogRecord[];
  readonly reports: readonly string[];
  readonly classes: readonly string[];
  readonly ms: number;
  /** The outcome of the promise with this promiser (undefined when it was never evaluated). */
  outcome(promiser: string): string | undefined;
  /** Log lines (`level: message`) matching `pattern`. */
  logged(pattern: RegExp): string[];
}

export interface RunOptions {
  /** The `tend_timeout` of the promise type, in seconds. */
  readonly timeout?: number;
  readonly dryRun?: boolean;
  /** More policy text inside `bundle agent main`, after the promises. */
  readonly extra?: string;
  /** Attributes of every promise (default `x => "1"`). */
  readonly attributes?: string;
}

/** A `promise agent NAME` declaration for `fixture`, run by sh or python3 by its name. */
export function declaration(fixture: string, name = "fx"): string {
  const interpreter = fixture.endsWith(".py") ? PYTHON : "/bin/sh";
  return `promise agent ${name}\n{\n  interpreter => "${interpreter}";\n  path => "${join(fixtureDir, fixture)}";\n}\n`;
}

/** tend's time limits per promise type, in seconds. */
export function timeouts(limits: Readonly<Record<string, number>>): string {
  const lines = Object.entries(limits).map(
    ([type, s]) => `      "module_timeout[${type}]" string => "${s}";`,
  );
  return `bundle common tend_control\n{\n  vars:\n${lines.join("\n")}\n}\n`;
}

export function runPolicy(policy: string, options: { dryRun?: boolean } = {}): ModuleRun {
  const dir = mkdtempSync(join(tmpdir(), "tend-modules-"));
  const file = join(dir, "policy.cf");
  writeFileSync(file, policy);
  const logs: LogRecord[] = [];
  const reports: string[] = [];
  const started = performance.now();
  try {
    const result = runAgent(
      {
        file,
        workdir: join(dir, "work"),
        ignoreLocks: true,
        record: true,
        dryRun: options.dryRun,
        logLevel: "verbose",
      },
      { log: (record) => logs.push(record), report: (text) => reports.push(text) },
    );
    const ms = performance.now() - started;
    return {
      exitCode: result.exitCode,
      records: result.records,
      logs,
      reports,
      classes: result.classes,
      ms,
      outcome: (promiser) => result.records.find((r) => r.promiser === promiser)?.outcome,
      logged: (pattern) => logs.map((l) => `${l.level}: ${l.message}`).filter((line) => pattern.test(line)),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Result classes are local to the promise's bundle: `seen_P` makes
 * `P_done` visible after the run, for every promiser P.
 */
export function seenClasses(promisers: readonly string[]): string {
  const lines = promisers.map((p) => `      "seen_${p}" expression => "${p}_done", scope => "namespace";`);
  return `  classes:\n${lines.join("\n")}`;
}

/** Promises `promisers` of the fixture module's type, in that order. */
export function runModule(
  fixture: string,
  promisers: readonly string[],
  options: RunOptions = {},
): ModuleRun {
  const attributes = options.attributes ?? 'x => "1"';
  const promises = promisers.map((p) => `      "${p}" ${attributes};`).join("\n");
  const limits = options.timeout === undefined ? "" : timeouts({ fx: options.timeout });
  const policy = `${declaration(fixture)}${limits}
bundle agent main
{
  fx:
${promises}
${options.extra ?? ""}
${seenClasses(promisers)}
}
`;
  return runPolicy(policy, options);
}
