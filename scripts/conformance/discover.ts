/**
 * Which files of the acceptance suite are tests, what kind each one is, and
 * whether the run should skip it — the rules `testall` applies, as data.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * The kind of a test, decided from its path alone. The first matching rule
 * wins, in this order: `.x.cf` (must exit non-zero with an error), `.error.cf`
 * (must log an error but exit 0), then the directory markers.
 */
export type TestType =
  | "errorexit"
  | "errorlog"
  | "staging"
  | "unsafe"
  | "network"
  | "timed"
  | "slow"
  | "serial"
  | "libxml2"
  | "libcurl"
  | "common";

/** One test to run: its path as handed to the agent (`./dir/name.cf`) and the group it is counted in. */
export interface TestCase {
  readonly path: string;
  readonly group: string;
  readonly type: TestType;
}

/** The kinds of test a run includes; `unsafe` and `staging` are off unless asked for. */
export type EnabledTypes = ReadonlySet<TestType>;

export const DEFAULT_TYPES: EnabledTypes = new Set<TestType>([
  "common",
  "timed",
  "slow",
  "errorexit",
  "errorlog",
  "serial",
  "network",
  "libxml2",
  "libcurl",
]);

const TYPE_RULES: readonly [RegExp, TestType][] = [
  [/\.x\.cf$/, "errorexit"],
  [/\.error\.cf$/, "errorlog"],
  [/\/staging\//, "staging"],
  [/\/unsafe\//, "unsafe"],
  [/\/network\//, "network"],
  [/\/timed\//, "timed"],
  [/\/slow\//, "slow"],
  [/[/_]serial[/_.]/, "serial"],
  [/\/11_xml_edits\//, "libxml2"],
  [/\/01_vars\/02_functions\/network\/url_get\.cf$/, "libcurl"],
];

/** The kind of the test at `path` (a `./`-relative path inside the suite). */
export function getTestType(path: string): TestType {
  for (const [pattern, type] of TYPE_RULES) if (pattern.test(path)) return type;
  return "common";
}

const SKIP_REASONS: Record<TestType, string> = {
  errorexit: "'errorexit' tests are disabled",
  errorlog: "'errorlog' tests are disabled",
  staging: "Staging tests are disabled",
  unsafe: "Unsafe tests are disabled",
  network: "Network-dependent tests are disabled",
  timed: "Timed tests are disabled",
  slow: "Slow tests are disabled",
  serial: "Serial tests are disabled",
  libxml2: "XML file editing tests are disabled",
  libcurl: "libcurl tests are disabled",
  common: "Common tests are disabled",
};

/**
 * Why the run skips `test` without starting the agent, or undefined when it
 * runs. Anything under an `unsafe/` directory is skipped unless unsafe tests
 * are enabled, whatever its kind: testall would run an `unsafe/x.x.cf`, but
 * such tests may change the machine, so this runner never does by accident.
 */
export function getSkipReason(test: TestCase, enabled: EnabledTypes): string | undefined {
  if (test.path.includes("/unsafe/") && !enabled.has("unsafe")) return SKIP_REASONS.unsafe;
  return enabled.has(test.type) ? undefined : SKIP_REASONS[test.type];
}

/** True for a file name `find -name '*.cf'` would list: `.cf.sub` and `.cf.expected` are not tests. */
export function isTestFileName(name: string): boolean {
  return name.endsWith(".cf");
}

/** Serial tests and unsafe ones run alone, in sorted order, between the parallel stretches. */
export function isSerialTest(path: string): boolean {
  return /\/serial_|_serial_|_serial\.|\/serial\/|\/unsafe\//.test(path);
}

/** Tests that run one at a time (serial, timed, slow), even inside a parallel stretch. */
export function isOneAtATime(path: string): boolean {
  return isSerialTest(path) || /\/timed\/|\/slow\//.test(path);
}

/** `00_basics/` or `./00_basics` → `./00_basics`: the spelling testall hands to the agent. */
export function toSuitePath(arg: string): string {
  const trimmed = arg.replace(/\/+$/, "");
  return /^[/.]/.test(trimmed) ? trimmed : `./${trimmed}`;
}

/** The group a test found under `arg` is counted in: the argument without `./`. */
export function toGroupName(arg: string): string {
  return toSuitePath(arg).replace(/^\.\//, "") || ".";
}

function byBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function listCfFiles(root: string, rel: string, prune: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(root, rel), { withFileTypes: true })) {
    const child = `${rel}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!prune.has(entry.name)) found.push(...listCfFiles(root, child, prune));
    } else if (isTestFileName(entry.name)) found.push(child);
  }
  return found;
}

/**
 * The tests under `suiteRoot` named by `args` (files or directories, relative
 * to the suite), sorted bytewise within each argument; with no arguments,
 * every test except the `selftest` directory, grouped by top-level directory.
 * Throws when an argument names nothing in the suite.
 */
export function discoverTests(suiteRoot: string, args: readonly string[]): TestCase[] {
  if (args.length === 0) {
    const all = listCfFiles(suiteRoot, ".", new Set(["workdir", "selftest"])).sort(byBytes);
    return all.map((path) => ({ path, group: path.split("/")[1] ?? ".", type: getTestType(path) }));
  }
  return args.flatMap((arg) => discoverUnder(suiteRoot, arg));
}

function discoverUnder(suiteRoot: string, arg: string): TestCase[] {
  const path = toSuitePath(arg);
  const group = toGroupName(arg);
  if (isTestFileName(path) && !path.endsWith("/")) {
    try {
      readdirSync(join(suiteRoot, path));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOTDIR")
        return [{ path, group, type: getTestType(path) }];
      throw new Error(`no such test or directory in the suite: ${arg}`);
    }
  }
  let files: string[];
  try {
    files = listCfFiles(suiteRoot, path, new Set(["workdir"]));
  } catch {
    throw new Error(`no such test or directory in the suite: ${arg}`);
  }
  return files.sort(byBytes).map((file) => ({ path: file, group, type: getTestType(file) }));
}
