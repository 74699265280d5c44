/**
 * The log lines of `tend agent -I` and `-v` against cf-agent's for the same
 * policies: each `test/scenarios/agent-log/NNN-name.inform` (or `.verbose`)
 * holds what cf-agent 3.21 printed for `test/scenarios/agent/NNN-name.cf`
 * run with `-KI` (or `-Kv`), and tend must print the same.
 *
 * - `.inform`: everything printed (report lines and log lines, in order).
 * - `.verbose`: the evaluation part of the verbose log, from "Using
 *   bundlesequence" on (what comes before describes the host and the
 *   installation, which differ between the two agents by design).
 * - `TEND_RECORD=1` (with cf-agent installed) records the expectations.
 * - `TEND_LOG_SCENARIO=regex` runs only the matching ones.
 *
 * Each run gets a fresh work directory; its path is replaced by `$WORKDIR`.
 */
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const scenarioDir = join(repoRoot, "test", "scenarios", "agent");
const expectationDir = join(repoRoot, "test", "scenarios", "agent-log");
const tendBin = join(repoRoot, "bin", "tend.js");

type Kind = "inform" | "verbose";

interface LogCase {
  readonly name: string;
  readonly kind: Kind;
  readonly file: string;
}

function listCases(): LogCase[] {
  const filter = process.env.TEND_LOG_SCENARIO ? new RegExp(process.env.TEND_LOG_SCENARIO) : undefined;
  return readdirSync(expectationDir)
    .filter((f) => /^\d{3}-.*\.(inform|verbose)$/.test(f))
    .sort()
    .map((f) => {
      const dot = f.lastIndexOf(".");
      return { name: f.slice(0, dot), kind: f.slice(dot + 1) as Kind, file: f };
    })
    .filter((c) => !filter || filter.test(c.file));
}

/** `# args:` of the scenario's header. */
function scenarioArgs(name: string): string[] {
  const text = readFileSync(join(scenarioDir, `${name}.cf`), "utf8");
  for (const line of text.split("\n")) {
    if (!line.startsWith("#")) break;
    const match = /^#\s*args:\s*(.*)$/.exec(line);
    if (match) return match[1].trim().split(/\s+/).filter(Boolean);
  }
  return [];
}

let keyTemplate: string | undefined;

function makeWorkdir(engine: "tend" | "cf-agent"): string {
  const workdir = mkdtempSync(join(tmpdir(), `tend-log-${engine}-`));
  mkdirSync(join(workdir, "bin"), { recursive: true });
  if (engine === "cf-agent") {
    symlinkSync("/usr/bin/cf-promises", join(workdir, "bin", "cf-promises"));
    if (!keyTemplate) {
      keyTemplate = mkdtempSync(join(tmpdir(), "tend-log-keys-"));
      spawnSync("cf-key", [], { env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: keyTemplate } });
    }
    const keys = join(keyTemplate, "ppkeys");
    if (existsSync(keys)) cpSync(keys, join(workdir, "ppkeys"), { recursive: true });
  }
  return workdir;
}

function run(c: LogCase, engine: "tend" | "cf-agent"): string {
  const workdir = makeWorkdir(engine);
  const flag = c.kind === "inform" ? "-KI" : "-Kv";
  const args = [flag, "-f", `./${c.name}.cf`, ...scenarioArgs(c.name)];
  const env: NodeJS.ProcessEnv = { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: workdir };
  delete env.NO_COLOR;
  try {
    const command = engine === "tend" ? [process.execPath, tendBin, "agent", ...args] : ["cf-agent", ...args];
    // Both write report and log lines to stdout, in the order they happen.
    const result = spawnSync(command[0], command.slice(1), {
      cwd: scenarioDir,
      env,
      encoding: "utf8",
    });
    return normalise(result.stdout, workdir, c.kind);
  } finally {
    rmSync(workdir, { recursive: true, force: true });
  }
}

function normalise(text: string, workdir: string, kind: Kind): string {
  let lines = text.replaceAll(workdir, "$WORKDIR").split("\n");
  if (kind === "verbose") {
    const start = lines.findIndex((l) => l.includes("Using bundlesequence"));
    lines = start >= 0 ? lines.slice(start) : [];
  }
  return lines.join("\n").replace(/\n*$/, "\n");
}

const recording = process.env.TEND_RECORD === "1" && spawnSync("cf-agent", ["--version"]).status === 0;

for (const c of listCases()) {
  test(`agent log ${c.kind} ${c.name}`, () => {
    const path = join(expectationDir, c.file);
    if (recording) {
      writeFileSync(path, run(c, "cf-agent"));
      return;
    }
    const expected = readFileSync(path, "utf8");
    const actual = run(c, "tend");
    if (actual !== expected) {
      throw new Error(
        `log lines differ from cf-agent's\n--- expected (cf-agent)\n${expected}--- actual (tend)\n${actual}`,
      );
    }
  });
}
