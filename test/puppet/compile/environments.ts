/**
 * Compiling the recorded environments (test/fixtures/puppet-compile/
 * environments: the modules' test nodes, the manifest-ordering fixtures) with
 * tend as a user does: `tend puppet catalog compile NODE --confdir C
 * --facts_terminus json --environment ENV --render-as json`, in a scratch
 * confdir whose code directory is the fixture directory, as the recording's.
 * Until that command exists, src/puppet/env's compileNodeCatalog is called
 * in the harness's worker with the same confdir.
 */
import { spawn } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type CompileSpec,
  compileAll,
  fixturesDir,
  type Outcome,
  type Recorded,
  repoRoot,
} from "./harness.js";

export interface EnvCase {
  readonly id: string;
  readonly environment: string;
  readonly node: string;
  readonly recorded: Recorded;
}

/** Every recorded catalogs/ENV/NODE.json (the environments in `only`, when given). */
export function loadEnvCases(only?: (env: string) => boolean): EnvCase[] {
  const dir = join(fixturesDir, "catalogs");
  const cases: EnvCase[] = [];
  for (const env of readdirSync(dir).sort()) {
    if (only && !only(env)) continue;
    for (const f of readdirSync(join(dir, env)).sort()) {
      if (!f.endsWith(".json")) continue;
      const node = f.slice(0, -".json".length);
      const data = JSON.parse(readFileSync(join(dir, env, f), "utf8")) as Omit<Recorded, "id">;
      cases.push({
        id: `${env}/${node}`,
        environment: env,
        node,
        recorded: { ...data, id: `${env}/${node}` },
      });
    }
  }
  return cases;
}

/** A scratch confdir like the recording's: code directory = the fixtures, facts copied in. */
export function scratchConfdir(): { dir: string; confdir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "tend-compile-conf-"));
  const confdir = join(dir, "etc");
  mkdirSync(confdir, { recursive: true });
  const facts = join(dir, "var", "server_data", "facts");
  mkdirSync(facts, { recursive: true });
  for (const f of readdirSync(join(fixturesDir, "facts")))
    copyFileSync(join(fixturesDir, "facts", f), join(facts, f));
  const code = fixturesDir.replace(/\/$/, "");
  writeFileSync(
    join(confdir, "puppet.conf"),
    [
      "[main]",
      `vardir = ${dir}/var`,
      `codedir = ${code}`,
      "environmentpath = $codedir/environments",
      "basemodulepath = $codedir/modules",
      `logdir = ${dir}/var/log`,
      `rundir = ${dir}/var/run`,
      `publicdir = ${dir}/var/public`,
      `ssldir = ${dir}/etc/ssl`,
      `vendormoduledir = ${dir}/vendor_modules`,
      `cadir = ${dir}/etc/ca`,
      "",
    ].join("\n"),
  );
  return { dir, confdir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export const tendBin = join(repoRoot, "bin", "tend.js");

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(args: readonly string[], timeoutMs = 60_000): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [tendBin, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The arguments of `tend puppet catalog compile` (and Puppet's) for a case. */
export function compileArgs(c: Pick<EnvCase, "environment" | "node">, confdir: string): string[] {
  return [
    "catalog",
    "compile",
    c.node,
    "--confdir",
    confdir,
    "--facts_terminus",
    "json",
    "--environment",
    c.environment,
    "--render-as",
    "json",
    "--log_level",
    "warning",
  ];
}

/** Whether this tend has `puppet catalog compile` yet. */
export async function cliCompiles(confdir: string): Promise<boolean> {
  const r = await run(["puppet", ...compileArgs({ environment: "sitedir", node: "testnode" }, confdir)]);
  return !/not in tend yet/.test(r.stderr);
}

/** A CLI run as an outcome: the catalog on stdout, or Puppet's `Error:` lines; a stack trace is a crash. */
export function outcomeOfRun(r: CliRun): Outcome {
  if (r.code === null) return { kind: "hang" };
  const warnings = r.stderr
    .split("\n")
    .filter((l) => l.startsWith("Warning: "))
    .map((l) => ({ level: "warning", message: l.slice("Warning: ".length) }));
  if (/^\s+at .+\(.+:\d+:\d+\)$/m.test(r.stderr) || (r.code !== 0 && r.code !== 1))
    return {
      kind: "crash",
      message: `exit ${r.code}: ${r.stderr.trim().split("\n").slice(0, 3).join(" | ")}`,
    };
  if (r.code === 0) {
    try {
      return {
        kind: "catalog",
        catalog: JSON.parse(r.stdout) as Record<string, unknown>,
        messages: warnings,
      };
    } catch {
      return { kind: "crash", message: `exit 0 but stdout is not JSON: ${r.stdout.slice(0, 200)}` };
    }
  }
  return { kind: "error", message: r.stderr.trim(), messages: warnings };
}

/** Compiles each case with tend: through the command line when it compiles, else directly. */
export async function compileEnvCases(
  cases: readonly EnvCase[],
): Promise<{ outcomes: Map<string, Outcome>; how: string }> {
  const scratch = scratchConfdir();
  try {
    const outcomes = new Map<string, Outcome>();
    if (await cliCompiles(scratch.confdir)) {
      for (const c of cases)
        outcomes.set(c.id, outcomeOfRun(await run(["puppet", ...compileArgs(c, scratch.confdir)])));
      return { outcomes, how: "tend puppet catalog compile" };
    }
    const specs: CompileSpec[] = cases.map((c) => ({
      id: c.id,
      nodeName: c.node,
      facts: {},
      trusted: {},
      serverFacts: {},
      environment: c.environment,
      manifests: [],
      modulePath: [],
      confdir: scratch.confdir,
    }));
    return {
      outcomes: await compileAll(specs),
      how: "src/puppet/env in a worker: no tend puppet catalog compile yet",
    };
  } finally {
    scratch.remove();
  }
}
