/**
 * Benchmarks `tend converge` (the recipes front end, Chef's model) beside
 * cf-agent on one desired state, in one run:
 *
 *   node dist/bench/converge.js [--sizes 1000,10000] [--quick] [--iterations N] [--json]
 *
 * The desired state: N files under a temporary directory, each a regular
 * file with one line of content and mode 0644, written as
 * - a cookbook whose recipe declares N `file` resources (a loop in
 *   TypeScript), run with `tend converge --cookbook-path ... -o bench`: load,
 *   compile, converge and cleanup, the node saved, as a user runs it;
 * - the CFEngine policy of bench/files.ts (N files promises with
 *   `create`, `content` and a perms body of mode 0644) run by `cf-agent -K`
 *   with its own work directory (CFENGINE_TEST_OVERRIDE_WORKDIR), as
 *   bench/catalog.ts runs it.
 * Each tool runs twice on the same tree: first run (empty directory, every
 * file created) and steady state (nothing to change). After each run the
 * tree is checked (each file's content and mode), so a tool that did not
 * do the work cannot look fast. Each first run gets a new empty directory
 * and no tree is deleted until the end (see FreshTrees in measure.ts);
 * every timed run starts after `sync`; each tool runs once on a tree
 * before the timing (a first and a steady run, untimed). The tools alternate within an
 * iteration, in the other order each iteration; rows give medians of wall time and of CPU time (the process and its
 * children, from /proc). The goal (issue 17) is ≤ 1.0× cf-agent's wall time.
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { filesPolicy } from "./files.js";
import { benchAgent, CF_AGENT, childCpuMs, FreshTrees, median, settle, TEND } from "./measure.js";

type Tool = "tend converge" | "cf-agent";
type Phase = "first run" | "steady state";

interface Timed {
  readonly wall: number;
  readonly cpu: number | null;
}

export interface ConvergeRow {
  readonly files: number;
  readonly phase: Phase;
  readonly timings: readonly {
    readonly tool: Tool;
    readonly wallMs: number;
    readonly cpuMs: number | null;
  }[];
  /** tend converge over cf-agent, by wall time and by CPU time. */
  readonly ratio: { readonly wall: number; readonly cpu: number | null } | null;
}

/** A cookbook `bench` whose recipe declares `count` file resources. */
export function benchCookbook(root: string, dir: string, count: number): string {
  const cookbooks = join(root, "cookbooks");
  mkdirSync(join(cookbooks, "bench", "recipes"), { recursive: true });
  writeFileSync(
    join(cookbooks, "bench", "metadata.json"),
    JSON.stringify({ name: "bench", version: "1.0.0" }),
  );
  writeFileSync(
    join(cookbooks, "bench", "recipes", "default.ts"),
    [
      'import type { RecipeContext } from "tend/recipes";',
      "export default (r: RecipeContext) => {",
      `  for (let i = 0; i < ${count}; i++)`,
      `    r.file(\`${dir}/f\${i}\`, { content: \`file \${i}\\n\`, mode: "0644" });`,
      "};",
      "",
    ].join("\n"),
  );
  return cookbooks;
}

function timeCommand(
  tool: Tool,
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Timed {
  const cpuBefore = childCpuMs();
  const started = performance.now();
  const result = spawnSync(command, args, {
    env: { ...process.env, NO_COLOR: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024,
  });
  const wall = performance.now() - started;
  const cpuAfter = childCpuMs();
  if (result.status !== 0 || /^(error|FATAL):/m.test(result.stderr))
    throw new Error(`${tool} exited ${result.status}: ${(result.stderr || result.stdout).slice(0, 600)}`);
  return { wall, cpu: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore };
}

function verifyTree(dir: string, count: number, tool: Tool): void {
  const names = readdirSync(dir);
  if (names.length !== count) throw new Error(`${tool}: ${names.length} files in ${dir}, expected ${count}`);
  for (let i = 0; i < count; i++) {
    const path = join(dir, `f${i}`);
    const st = statSync(path);
    if (!st.isFile() || (st.mode & 0o7777) !== 0o644 || readFileSync(path, "utf8") !== `file ${i}\n`)
      throw new Error(`${tool}: ${path} is not as desired`);
  }
}

interface Contender {
  readonly tool: Tool;
  readonly dir: string;
  readonly run: () => Timed;
  readonly first: Timed[];
  readonly steady: Timed[];
}

/** Both phases for N files. */
export function compareConverge(
  count: number,
  iterations: number,
  skipped: string[],
  shared?: FreshTrees,
): ConvergeRow[] {
  const trees = shared ?? new FreshTrees("converge");
  const root = mkdtempSync(join(tmpdir(), "tend-bench-converge-"));
  const workdirs: string[] = [];
  try {
    const contenders: Contender[] = [];
    const tendDir = join(root, "tend");
    const cookbooks = benchCookbook(root, tendDir, count);
    const args = [
      "converge",
      "--cookbook-path",
      cookbooks,
      "-o",
      "bench",
      "-N",
      "bench",
      "--node-path",
      join(root, "nodes"),
    ];
    contenders.push({
      tool: "tend converge",
      dir: tendDir,
      run: () => timeCommand("tend converge", TEND, args),
      first: [],
      steady: [],
    });
    if (!existsSync(CF_AGENT)) skipped.push("cf-agent is not installed (apt-get install cfengine3)");
    else {
      const cfDir = join(root, "cf-agent");
      const policy = join(root, "files.cf");
      writeFileSync(policy, filesPolicy(cfDir, count));
      const agent = benchAgent("converge", "cf-agent", policy);
      workdirs.push(agent.workdir);
      const env = { CFENGINE_TEST_OVERRIDE_WORKDIR: agent.workdir };
      contenders.push({
        tool: "cf-agent",
        dir: cfDir,
        run: () => timeCommand("cf-agent", agent.command, agent.args, env),
        first: [],
        steady: [],
      });
    }
    // A first and a steady run of each, untimed: tend's code cache is made
    // over its first runs (bin/tend.js), and both then find what they load
    // in the page cache, as on a machine that runs them regularly.
    for (const c of contenders) {
      trees.renew(c.dir);
      try {
        c.run();
        c.run();
      } catch {
        // Timed below, where a failure is reported.
      }
    }
    for (let i = 0; i < iterations; i++) {
      for (const c of i % 2 === 0 ? contenders : [...contenders].reverse()) {
        trees.renew(c.dir);
        c.first.push(c.run());
        verifyTree(c.dir, count, c.tool);
        settle();
        c.steady.push(c.run());
        verifyTree(c.dir, count, c.tool);
      }
    }
    return (["first run", "steady state"] as const).map((phase) => {
      const timings = contenders.map((c) => {
        const runs = phase === "first run" ? c.first : c.steady;
        const cpus = runs.map((r) => r.cpu);
        return {
          tool: c.tool,
          wallMs: median(runs.map((r) => r.wall)),
          cpuMs: cpus.every((x) => x !== null) ? median(cpus as number[]) : null,
        };
      });
      const [tend, cf] = timings;
      const ratio =
        tend && cf
          ? {
              wall: tend.wallMs / cf.wallMs,
              cpu: tend.cpuMs !== null && cf.cpuMs ? tend.cpuMs / cf.cpuMs : null,
            }
          : null;
      return { files: count, phase, timings, ratio };
    });
  } finally {
    // The trees go with the others, deleted once every size is timed.
    if (shared) for (const dir of [join(root, "tend"), join(root, "cf-agent")]) shared.renew(dir);
    rmSync(root, { recursive: true, force: true });
    if (!shared) trees.dispose();
    for (const w of workdirs) rmSync(w, { recursive: true, force: true });
  }
}

function ms(value: number | null): string {
  return value === null ? "?" : value.toFixed(0);
}

function main(): void {
  const { values } = parseArgs({
    options: {
      sizes: { type: "string" },
      quick: { type: "boolean" },
      iterations: { type: "string" },
      json: { type: "boolean" },
    },
  });
  const sizes = (values.sizes ?? (values.quick ? "1000" : "1000,10000")).split(",").map(Number);
  const iterations = Number(values.iterations ?? 3);
  const skipped: string[] = [];
  const trees = new FreshTrees("converge");
  let rows: ConvergeRow[];
  try {
    rows = sizes.flatMap((n) =>
      // As many times at every size: one first run of 10,000 files told
      // little, its time depending on the kernel's state.
      compareConverge(n, iterations, skipped, trees),
    );
  } finally {
    trees.dispose();
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ rows, skipped: [...new Set(skipped)] }, null, 2)}\n`);
    return;
  }
  for (const reason of new Set(skipped)) process.stdout.write(`converge benchmarks: skipped ${reason}\n`);
  for (const r of rows) {
    const times = r.timings.map((t) => `${t.tool} ${ms(t.wallMs)} ms (CPU ${ms(t.cpuMs)})`).join(", ");
    process.stdout.write(`converge, ${r.files} files, ${r.phase}: ${times}\n`);
    if (r.ratio)
      process.stdout.write(
        `  tend converge / cf-agent: ${r.ratio.wall.toFixed(3)}× wall, ${r.ratio.cpu === null ? "?" : r.ratio.cpu.toFixed(3)}× CPU (goal ≤ 1.0× wall)\n`,
      );
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
