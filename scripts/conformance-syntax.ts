/**
 * Syntax conformance: runs `tend check` and `cf-promises` on every .cf file
 * under the given paths and compares whether each accepts or rejects it.
 *
 *   npm run conformance:syntax -- [--json] [--jobs N] [--timeout SECONDS] PATH...
 *
 * Each file is checked from its own directory as `-f ./name.cf` (as the
 * acceptance suite runs it), with a private work directory so that nothing
 * touches /var/lib/cfengine3. Disagreements are the report, not a failure:
 * the exit code is non-zero only when the comparison itself could not run.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const defaultTend = fileURLToPath(new URL("../../bin/tend.js", import.meta.url));

/** What one process did; a failure to start or a timeout is a result too. */
interface ProcessResult {
  readonly command: string;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly output: string;
  readonly durationMs: number;
  readonly cause: string | null;
}

interface ToolVerdict {
  readonly accepted: boolean;
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  readonly firstError: string | null;
  readonly durationMs: number;
}

interface FileReport {
  readonly file: string;
  /** The file relative to the path it was found under. */
  readonly name: string;
  readonly group: string;
  readonly tend: ToolVerdict;
  readonly cfPromises: ToolVerdict;
  readonly agree: boolean;
}

interface GroupCounts {
  total: number;
  agree: number;
  bothAccept: number;
  bothReject: number;
  /** cf-promises accepts, tend rejects. */
  tendOnlyRejects: number;
  /** cf-promises rejects, tend accepts. */
  tendOnlyAccepts: number;
}

interface Options {
  readonly paths: readonly string[];
  readonly json: boolean;
  readonly jobs: number;
  readonly timeoutMs: number;
  readonly cfPromises: string;
  /** The tend script to run; a copy of bin/ and dist/ keeps a long run safe from rebuilds. */
  readonly tend: string;
}

function runProcess(
  file: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<ProcessResult> {
  const started = performance.now();
  const command = [file, ...args].join(" ");
  return new Promise((resolvePromise) => {
    const child = spawn(file, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], timeout: timeoutMs });
    let output = "";
    let cause: string | null = null;
    // Both streams are kept, interleaved: cf-promises splits its messages between them.
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.on("error", (error) => (cause = error.message));
    child.on("close", (exitCode, signal) => {
      const durationMs = performance.now() - started;
      const timedOut = signal !== null && durationMs >= timeoutMs - 50;
      resolvePromise({ command, exitCode, signal, timedOut, output, durationMs, cause });
    });
  });
}

/** The first line that reads as an error, else the first non-empty line. */
function firstErrorLine(output: string): string | null {
  const lines = output.split("\n").map((l) => l.trim());
  return lines.find((l) => /\berror:/.test(l)) ?? lines.find((l) => l !== "") ?? null;
}

function verdictOf(result: ProcessResult): ToolVerdict {
  return {
    accepted: result.exitCode === 0,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    firstError: result.timedOut ? "(timed out)" : (result.cause ?? firstErrorLine(result.output)),
    durationMs: Math.round(result.durationMs),
  };
}

/** Every .cf file under `path` (or `path` itself), sorted. */
function collectFiles(path: string): string[] {
  const stat = statSync(path);
  if (!stat.isDirectory()) return [path];
  const found: string[] = [];
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) found.push(...collectFiles(child));
    else if (entry.name.endsWith(".cf") && statSync(child).isFile()) found.push(child);
  }
  return found.sort();
}

/** The group a file is counted in: the first directory below the root, or the root. */
function groupOf(root: string, file: string): string {
  const rel = relative(root, dirname(file));
  if (rel === "" || rel.startsWith("..")) return basename(root) || root;
  return rel.split(/[\\/]/)[0];
}

async function checkFile(file: string, root: string, workdir: string, options: Options): Promise<FileReport> {
  const cwd = dirname(file);
  const args = ["-f", `./${basename(file)}`];
  const env = (dir: string) => ({ ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: dir, NO_COLOR: "1" });
  const tendDir = join(workdir, "tend");
  const cfDir = join(workdir, "cf-promises");
  const [tend, cf] = await Promise.all([
    runProcess(
      process.execPath,
      [options.tend, "check", "-w", tendDir, ...args],
      cwd,
      env(tendDir),
      options.timeoutMs,
    ),
    runProcess(options.cfPromises, ["-w", cfDir, ...args], cwd, env(cfDir), options.timeoutMs),
  ]);
  if (cf.cause) throw new Error(`cannot run ${options.cfPromises}: ${cf.cause}`);
  if (tend.cause) throw new Error(`cannot run tend: ${tend.cause}`);
  const tendVerdict = verdictOf(tend);
  const cfVerdict = verdictOf(cf);
  const agree = tendVerdict.accepted === cfVerdict.accepted;
  const name = relative(root, file) || basename(file);
  return { file, name, group: groupOf(root, file), tend: tendVerdict, cfPromises: cfVerdict, agree };
}

/** Runs `work` over `items` with at most `jobs` at a time, keeping the order of results. */
async function mapPool<T, R>(
  items: readonly T[],
  jobs: number,
  work: (item: T, worker: number) => Promise<R>,
) {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async (id: number) => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index], id);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, jobs) }, (_, id) => worker(id)));
  return results;
}

function countGroups(reports: readonly FileReport[]): Map<string, GroupCounts> {
  const groups = new Map<string, GroupCounts>();
  for (const r of reports) {
    let g = groups.get(r.group);
    if (!g) {
      g = { total: 0, agree: 0, bothAccept: 0, bothReject: 0, tendOnlyRejects: 0, tendOnlyAccepts: 0 };
      groups.set(r.group, g);
    }
    g.total++;
    if (r.agree) g.agree++;
    if (r.agree && r.cfPromises.accepted) g.bothAccept++;
    if (r.agree && !r.cfPromises.accepted) g.bothReject++;
    if (!r.agree && r.cfPromises.accepted) g.tendOnlyRejects++;
    if (!r.agree && !r.cfPromises.accepted) g.tendOnlyAccepts++;
  }
  return groups;
}

function formatText(reports: readonly FileReport[], groups: Map<string, GroupCounts>): string {
  const out: string[] = [];
  const width = Math.max(5, ...[...groups.keys()].map((k) => k.length));
  out.push(
    `${"group".padEnd(width)}  agree/total  both-ok  both-reject  only-tend-rejects  only-tend-accepts`,
  );
  for (const [name, g] of groups) {
    const cells = [`${g.agree}/${g.total}`.padStart(11), String(g.bothAccept).padStart(7)];
    cells.push(String(g.bothReject).padStart(11), String(g.tendOnlyRejects).padStart(17));
    out.push(`${name.padEnd(width)}  ${cells.join("  ")}  ${String(g.tendOnlyAccepts).padStart(17)}`);
  }
  const disagreements = reports.filter((r) => !r.agree);
  if (disagreements.length > 0) out.push("", "Disagreements:");
  for (const r of disagreements) {
    const says = (v: ToolVerdict) => `${v.accepted ? "accepts" : `rejects (exit ${v.exitCode ?? "-"})`}`;
    out.push(`  ${r.name}`);
    out.push(`    tend ${says(r.tend)}: ${r.tend.firstError ?? ""}`.trimEnd());
    out.push(`    cf-promises ${says(r.cfPromises)}: ${r.cfPromises.firstError ?? ""}`.trimEnd());
  }
  const agree = reports.length - disagreements.length;
  out.push("", `${agree}/${reports.length} agree`);
  return out.join("\n") + "\n";
}

function parseOptions(argv: readonly string[]): Options {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: {
      json: { type: "boolean" },
      jobs: { type: "string", short: "j" },
      timeout: { type: "string" },
      "cf-promises": { type: "string" },
      tend: { type: "string" },
    },
    allowPositionals: true,
  });
  if (positionals.length === 0)
    throw new Error(
      "usage: conformance-syntax [--json] [--jobs N] [--timeout S] [--tend bin/tend.js] PATH...",
    );
  const jobs = Number(values.jobs ?? availableParallelism());
  const timeout = Number(values.timeout ?? 30);
  if (!Number.isInteger(jobs) || jobs < 1)
    throw new Error(`--jobs must be a positive integer, not ${values.jobs}`);
  if (!(timeout > 0))
    throw new Error(`--timeout must be a positive number of seconds, not ${values.timeout}`);
  const cfPromises = values["cf-promises"] ?? "cf-promises";
  const tend = resolve(values.tend ?? defaultTend);
  return {
    paths: positionals,
    json: values.json ?? false,
    jobs,
    timeoutMs: timeout * 1000,
    cfPromises,
    tend,
  };
}

/**
 * Progress on stderr: the current file on a terminal, a count every 100
 * files otherwise (so that logs of long runs show it is alive).
 */
function makeProgress(total: number): (name: string | null) => void {
  let done = 0;
  const tty = process.stderr.isTTY === true;
  return (name) => {
    if (name === null) {
      if (tty) process.stderr.write("\r\u001b[K");
      return;
    }
    done++;
    if (tty) process.stderr.write(`\r[${done}/${total}] ${name}\u001b[K`);
    else if (done % 100 === 0) process.stderr.write(`conformance-syntax: ${done}/${total} files\n`);
  };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const entries = options.paths.flatMap((p) =>
    collectFiles(resolve(p)).map((f) => ({ file: f, root: resolve(p) })),
  );
  const scratch = mkdtempSync(join(tmpdir(), "tend-conformance-"));
  try {
    const progress = makeProgress(entries.length);
    const reports = await mapPool(entries, options.jobs, async (entry, worker) => {
      const workdir = join(scratch, `w${worker}`);
      mkdirSync(workdir, { recursive: true });
      const report = await checkFile(entry.file, entry.root, workdir, options);
      progress(relative(entry.root, entry.file));
      return report;
    });
    progress(null);
    const groups = countGroups(reports);
    if (options.json) {
      const agree = reports.filter((r) => r.agree).length;
      const summary = { total: reports.length, agree, groups: Object.fromEntries(groups) };
      process.stdout.write(JSON.stringify({ ...summary, files: reports }, null, 2) + "\n");
    } else process.stdout.write(formatText(reports, groups));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`conformance-syntax: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 2;
});
