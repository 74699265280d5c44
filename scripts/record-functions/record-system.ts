/**
 * Records what cf-agent 3.21 returns for the files, system, time, math and
 * network function cases of system-cases.ts, into
 * test/fixtures/functions/system.json, which the tests replay.
 *
 * Each case runs in its own `cf-agent -Kf` with a private work directory
 * (cached functions share results across a run in 3.21, keyed loosely
 * enough to mix up different functions), TZ=UTC and ENVIRONMENT set. The
 * policy holds the shared setup, the case's setup and `"r" <type> => <call>`
 * (class functions are wrapped in `ifelse(<call>, "any", "!any")`), and
 * reports `r` as JSON. A call that fails leaves `r` undefined: `null`.
 *
 * Build and run (cf-agent must be installed):
 *   npx tsc --module nodenext --target es2022 --skipLibCheck --outDir /tmp/record-system \
 *     scripts/record-functions/record-system.ts && node /tmp/record-system/scripts/record-functions/record-system.js
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { FUNCTIONS } from "../../src/language/syntax/functions.js";
import { CASES, ENVIRONMENT, EXECUTABLES, FILES, SHARED_SETUP, type SystemCase } from "./system-cases.js";

export interface RecordedSystemCase extends SystemCase {
  /** The value of `r` (string, list or data), or null when the call failed. */
  readonly value: unknown;
  /** Set when cf-promises rejected the policy (the call's literal arguments are invalid). */
  readonly rejected?: string;
}

/** Creates FILES under a new directory; the tests build the same tree. */
export function makeTree(root: string): void {
  for (const [name, spec] of Object.entries(FILES)) {
    const path = join(root, name);
    mkdirSync(dirname(path), { recursive: true });
    // Modes are set explicitly so that the recording does not depend on the umask.
    if (spec === null) {
      mkdirSync(path, { recursive: true });
      chmodSync(path, 0o755);
    } else if (typeof spec === "string") {
      writeFileSync(path, spec);
      chmodSync(path, 0o644);
    } else symlinkSync(spec.link, path);
  }
  for (const name of EXECUTABLES) chmodSync(join(root, name), 0o755);
}

function outerFunction(expr: string): string {
  return /^([a-z_0-9]+)\(/.exec(expr)?.[1] ?? "";
}

function declaration(expr: string): string {
  const type = FUNCTIONS[outerFunction(expr)]?.returnType ?? "string";
  if (type === "context") return `string => ifelse(${expr}, "any", "!any")`;
  if (type === "slist" || type === "ilist" || type === "rlist") return `slist => ${expr}`;
  if (type === "data" || type === "int" || type === "real") return `${type} => ${expr}`;
  return `string => ${expr}`;
}

function policyFor(c: SystemCase, dir: string): string {
  const fill = (s: string) => s.replaceAll("{DIR}", dir);
  return [
    "bundle agent main",
    "{",
    "vars:",
    ...[...SHARED_SETUP, ...(c.setup ?? [])].map((line) => `  ${fill(line)}`),
    `  "r" ${declaration(fill(c.expr))};`,
    `  "out" data => variablesmatching_as_data("default:main\\.r");`,
    "reports:",
    '  "@@BEGIN$(const.n)$(with)$(const.n)@@END" with => storejson(out);',
    "}",
    "",
  ].join("\n");
}

function runAgent(policy: string): Promise<string> {
  const work = mkdtempSync(join(tmpdir(), "record-system-"));
  mkdirSync(join(work, "bin"));
  symlinkSync("/usr/bin/cf-promises", join(work, "bin", "cf-promises"));
  const file = join(work, "case.cf");
  writeFileSync(file, policy, { mode: 0o600 });
  const env = { ...process.env, ...ENVIRONMENT, TZ: "UTC", CFENGINE_TEST_OVERRIDE_WORKDIR: work };
  return new Promise((done) => {
    const child = spawn("cf-agent", ["-Kf", file], { env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => {
      output += d;
    });
    child.stderr.on("data", (d) => {
      output += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    child.on("close", () => {
      clearTimeout(timer);
      rmSync(work, { recursive: true, force: true });
      done(output);
    });
  });
}

function parseResult(c: SystemCase, output: string, dir: string): RecordedSystemCase {
  const match = /R: @@BEGIN\n([\s\S]*?)\n@@END/.exec(output);
  if (!match) return { ...c, value: null, rejected: output.split("\n")[0].trim() };
  const json = JSON.parse(match[1].replaceAll(dir, "{DIR}")) as Record<string, unknown>;
  return { ...c, value: json["default:main.r"] ?? null };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "record-system-tree-"));
  makeTree(dir);
  const results: RecordedSystemCase[] = new Array(CASES.length);
  let next = 0;
  const worker = async () => {
    while (next < CASES.length) {
      const index = next++;
      const c = CASES[index];
      results[index] = parseResult(c, await runAgent(policyFor(c, dir)), dir);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  rmSync(dir, { recursive: true, force: true });
  const fixture = {
    recordedWith: "CFEngine Core 3.21.0",
    note: "Generated by scripts/record-functions/record-system.ts; do not edit by hand.",
    sharedSetup: SHARED_SETUP,
    files: FILES,
    executables: EXECUTABLES,
    environment: ENVIRONMENT,
    cases: results,
  };
  const out = resolve(process.argv[2] ?? "test/fixtures/functions/system.json");
  writeFileSync(out, `${JSON.stringify(fixture, null, 2)}\n`);
  const rejected = results.filter((r) => r.rejected);
  console.log(`${results.length} cases, ${rejected.length} rejected by cf-promises -> ${out}`);
  for (const r of rejected) console.log(`  rejected: ${r.expr}: ${r.rejected}`);
}

await main();
