/**
 * Records what cf-agent 3.21 returns for the list and data functions.
 *
 * Each case becomes a bundle `c<N>` holding the shared setup variables, its
 * own setup, and `"r" <type> => <expression>`; the bundle then reports its
 * `r`, `t` (the `type()` of r) and any `ra[...]` array entries as JSON. The
 * results go to test/fixtures/functions/data.json, which the tests replay.
 *
 * Build and run (cf-agent must be installed):
 *   npx tsc --module nodenext --target es2022 --outDir /tmp/record-data \
 *     scripts/record-functions/record-data.ts && node /tmp/record-data/scripts/record-functions/record-data.js
 *
 * `{DIR}` in an expression or setup line stands for a temporary directory
 * holding `FILES`; results mention it as `{DIR}` too.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { FUNCTIONS } from "../../src/language/syntax/functions.js";
import { CASES, FILES, SHARED_SETUP } from "./data-cases.js";

export interface RecordedCase {
  readonly id: string;
  readonly family: string;
  readonly fn: string;
  readonly expr: string;
  readonly type: string;
  readonly setup: readonly string[];
  readonly bundles: readonly string[];
  /**
   * `type(r, "true")` in cf-agent: "none" when r was not defined,
   * "rejected" when cf-agent refused or crashed on the policy.
   */
  readonly result: string;
  /** What cf-agent said when it rejected the case. */
  readonly agentError?: string;
  readonly value?: unknown;
  /** `ra[...]` entries defined by the call, keyed by lval. */
  readonly arrays?: Record<string, unknown>;
}

function declaredType(fn: string): string {
  const returnType = FUNCTIONS[fn]?.returnType ?? "string";
  return returnType === "context" ? "string" : returnType;
}

function caseBundle(id: string, type: string, expr: string, setup: readonly string[]): string {
  return [
    `bundle agent ${id}`,
    "{",
    "vars:",
    ...[...SHARED_SETUP, ...setup].map((line) => `  ${line}`),
    `  "r" ${type} => ${expr};`,
    `  "t" string => type("r", "true");`,
    `  "out" data => variablesmatching_as_data("default:$(this.bundle)\\.(r|t|ra\\[.*)");`,
    "reports:",
    `  "@@BEGIN $(this.bundle)$(const.n)$(with)$(const.n)@@END" with => storejson(out);`,
    "}",
  ].join("\n");
}

const CHUNK = 40;

interface PreparedCase {
  readonly id: string;
  readonly type: string;
  readonly expr: string;
  readonly setup?: readonly string[];
  readonly bundles?: readonly string[];
}

function policyFor(cases: readonly PreparedCase[], fill: (s: string) => string): string {
  const bundles = cases.map((c) => caseBundle(c.id, c.type, fill(c.expr), (c.setup ?? []).map(fill)));
  const extra = [...new Set(cases.flatMap((c) => c.bundles ?? []))];
  const sequence = cases.map((c) => `"${c.id}"`).join(", ");
  return [`body common control { bundlesequence => { ${sequence} }; }`, ...extra, ...bundles].join("\n\n");
}

interface AgentRun {
  readonly stdout: string;
  /** The first lines of stderr that are not about files the cases expect to be missing. */
  readonly errors: string;
}

function runAgent(policy: string): AgentRun {
  const work = mkdtempSync(join(tmpdir(), "record-data-work-"));
  mkdirSync(join(work, "bin"));
  symlinkSync("/usr/bin/cf-promises", join(work, "bin", "cf-promises"));
  const file = join(work, "policy.cf");
  writeFileSync(file, policy);
  const run = spawnSync("cf-agent", ["-Kf", file], {
    encoding: "utf8",
    env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: work },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (process.env.RECORD_VERBOSE && run.stderr) process.stderr.write(run.stderr);
  // cf-agent logs to stdout when it is not on a terminal.
  const errors = `${run.stdout}\n${run.stderr}${run.signal ? `killed by ${run.signal}` : ""}`
    .split("\n")
    .filter((line) => line.includes("error:") || line.startsWith("killed"))
    .filter((line) => !line.includes("Could not examine") && !line.includes("Could not open"))
    .slice(0, 2)
    .map((line) => line.replaceAll(work, "{WORK}").trim())
    .join("\n");
  return { stdout: run.stdout, errors };
}

function parseReports(stdout: string): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  const pattern = /R: @@BEGIN (\w+)\n([\s\S]*?)\n@@END/g;
  for (const match of stdout.matchAll(pattern)) {
    try {
      out.set(match[1], JSON.parse(match[2]));
    } catch {
      // storejson itself failed; the case shows as "unreported".
    }
  }
  return out;
}

function main(): void {
  const dir = mkdtempSync(join(tmpdir(), "record-data-files-"));
  for (const [name, content] of Object.entries(FILES)) writeFileSync(join(dir, name), content);
  const fill = (s: string) => s.replaceAll("{DIR}", dir);
  const prepared = CASES.map((c, i) => ({ ...c, id: `c${i}`, type: c.type ?? declaredType(c.fn) }));
  const results = new Map<string, Record<string, unknown>>();
  const failures = new Map<string, string>();
  for (let i = 0; i < prepared.length; i += CHUNK) {
    const chunk = prepared.slice(i, i + CHUNK);
    const started = Date.now();
    const found = parseReports(runAgent(policyFor(chunk, fill)).stdout);
    console.error(`cases ${i}..${i + chunk.length - 1}: ${found.size} reports, ${Date.now() - started} ms`);
    for (const [k, v] of found) results.set(k, v);
    if (found.size > 0) continue;
    // A case that stops cf-agent (a rejected option, a fatal conversion, a
    // crash) takes its chunk down: run that chunk's cases one by one.
    for (const c of chunk) {
      const run = runAgent(policyFor([c], fill));
      const single = parseReports(run.stdout);
      for (const [k, v] of single) results.set(k, v);
      if (single.size === 0) failures.set(c.id, run.errors);
    }
  }
  const unfill = (v: unknown): unknown => JSON.parse(JSON.stringify(v).replaceAll(dir, "{DIR}"));
  const recorded: RecordedCase[] = prepared.map((c) => {
    const found = (results.get(c.id) ?? {}) as Record<string, unknown>;
    const prefix = `default:${c.id}.`;
    const arrays: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(found))
      if (k.startsWith(`${prefix}ra[`)) arrays[k.slice(prefix.length)] = v;
    return {
      id: c.id,
      family: c.family,
      fn: c.fn,
      expr: c.expr,
      type: c.type,
      setup: c.setup ?? [],
      bundles: c.bundles ?? [],
      result: String(found[`${prefix}t`] ?? "rejected"),
      ...(failures.has(c.id) ? { agentError: failures.get(c.id) } : {}),
      ...(`${prefix}r` in found ? { value: unfill(found[`${prefix}r`]) } : {}),
      ...(Object.keys(arrays).length > 0 ? { arrays: unfill(arrays) as Record<string, unknown> } : {}),
    };
  });
  const target = resolve("test/fixtures/functions/data.json");
  mkdirSync(resolve("test/fixtures/functions"), { recursive: true });
  const fixture = {
    recordedWith: "CFEngine Core 3.21.0",
    sharedSetup: SHARED_SETUP,
    files: FILES,
    cases: recorded,
  };
  writeFileSync(target, `${JSON.stringify(fixture, null, 2)}\n`);
  const rejected = recorded.filter((c) => c.result === "rejected").map((c) => c.id);
  console.log(`${recorded.length} cases written to ${target}; rejected: ${rejected.join(" ") || "none"}`);
}

main();
