/**
 * Crash safety of what the agent writes: `tend agent` is killed with SIGKILL at
 * random moments while it rewrites big files (edit_line, edit_xml,
 * `content`, `copy_from`) and a tree by a recursive copy, and writes its
 * state (locks, persistent classes, the change records of `changes`).
 * After every kill each file must hold either its content from before the
 * run or the content the run promises — never a mix, never a truncated or
 * empty file — every state file must be whole JSON, and every run that is
 * not killed must succeed.
 *
 * Each run promises a new generation: the first line of every edited file
 * (`gen N`), the whole text of every `content` file, an attribute of every
 * XML file, and every copied file is copied again from a source written
 * with the new generation (keeping a `.cfsaved` backup). Kill moments are drawn uniformly over the time a whole run
 * takes (measured first), so some runs finish and most are cut short.
 *
 *   npx tsc -p . && node dist/scripts/crash-safety.js [--kills 500] [--files 12] [--size 1000000]
 *
 * Prints one line per 50 kills and a summary; exits 1 on the first file
 * found in any other state. test/agent/crash-safety.test.ts runs a short
 * version in npm test.
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

export interface CrashOptions {
  /** How many runs must be killed before the end. */
  readonly kills: number;
  /** Files of each kind (edit_line, content, edit_xml). */
  readonly files: number;
  /** Approximate size of each file, in bytes. */
  readonly size: number;
  /** Progress lines; none by default. */
  readonly progress?: (line: string) => void;
}

export interface CrashReport {
  readonly kills: number;
  readonly completed: number;
  /** Files checked after runs (kills and completions), in total. */
  readonly checks: number;
  /** Files found as before the run / as promised by it, over all checks. */
  readonly old: number;
  readonly new: number;
  /** Temporary files found beside the targets after runs (killed runs leave them; the next run sweeps them), in total. */
  readonly strayTemporaries: number;
  /** The first violation found, if any. */
  readonly violation: string | undefined;
  readonly seconds: number;
}

type Kind = "edit" | "content" | "xml" | "copy" | "tree";
const KINDS: readonly Kind[] = ["edit", "content", "xml", "copy", "tree"];

/** Where file i of the recursive copy sits in its tree (up to three levels deep). */
function treePath(i: number): string {
  return join(...Array.from({ length: i % 4 }, (_, level) => `d${level}`), `tree-${i}.txt`);
}

function body(size: number, kind: Kind): string {
  const lines: string[] = [];
  let length = 0;
  for (let i = 0; length < size; i++) {
    const line = kind === "xml" ? `  <item n="${i}">${"x".repeat(60)}</item>` : `line ${i} ${"x".repeat(60)}`;
    lines.push(line);
    length += line.length + 1;
  }
  return `${lines.join("\n")}\n`;
}

/** What a file holds at generation `gen` (what tend writes for it). */
function contentAt(kind: Kind, gen: number, text: string): string {
  if (kind === "xml") return `<?xml version="1.0"?>\n<doc gen="${gen}">\n${text}</doc>\n`;
  return `gen ${gen}\n${text}`;
}

class Workspace {
  readonly root = mkdtempSync(join(tmpdir(), "tend-crash-"));
  readonly dir = join(this.root, "files");
  /** Sources of the copied files, written (by this script) before each run. */
  readonly sources = join(this.root, "sources");
  readonly policy = join(this.root, "policy.cf");
  readonly texts = new Map<Kind, string>();
  /** File name → the contents it may hold after the next run. */
  allowed = new Map<string, Set<string>>();

  constructor(readonly options: CrashOptions) {
    mkdirSync(this.dir);
    mkdirSync(this.sources);
    for (const kind of KINDS) this.texts.set(kind, body(options.size, kind));
    for (const name of this.names()) {
      const content = contentAt(this.kindOf(name), 0, this.textOf(name));
      mkdirSync(dirname(join(this.dir, name)), { recursive: true });
      mkdirSync(dirname(join(this.sources, name)), { recursive: true });
      writeFileSync(join(this.dir, name), content);
      this.allowed.set(name, new Set([content]));
    }
  }

  names(): string[] {
    return KINDS.flatMap((kind) =>
      Array.from({ length: this.options.files }, (_, i) =>
        kind === "tree" ? join("tree", treePath(i)) : `${kind}-${i}${kind === "xml" ? ".xml" : ".txt"}`,
      ),
    );
  }

  kindOf(name: string): Kind {
    const base = name.slice(name.lastIndexOf("/") + 1);
    return base.slice(0, base.indexOf("-")) as Kind;
  }

  textOf(name: string): string {
    return this.texts.get(this.kindOf(name)) as string;
  }

  /** The policy promising generation `gen`, and what each file may hold after it. */
  prepare(gen: number): void {
    const content = contentAt("content", gen, this.textOf("content-0"));
    const tree = join(this.dir, "tree");
    const promises = this.names().map((name) => {
      const path = join(this.dir, name);
      switch (this.kindOf(name)) {
        case "tree":
          // One promise copies the whole tree; each file's source is written here.
          writeFileSync(join(this.sources, name), contentAt("tree", gen, this.textOf(name)));
          return "";
        case "content":
          return `"${path}" content => "$(content)", changes => record;`;
        case "edit":
          return `"${path}" edit_line => gen("${gen}"), edit_defaults => unlimited;`;
        case "xml":
          return `"${path}" edit_xml => xgen("${gen}"), edit_defaults => unlimited;`;
        case "copy": {
          const source = join(this.sources, name);
          writeFileSync(source, contentAt("copy", gen, this.textOf(name)));
          return `"${path}" copy_from => digest("${source}");`;
        }
        default:
          return `"${path}" content => "$(content)";`;
      }
    });
    promises.push(`"${tree}" copy_from => digest("${join(this.sources, "tree")}"), depth_search => all;`);
    writeFileSync(
      this.policy,
      `body common control { bundlesequence => { "main" }; }
body agent control { ifelapsed => "0"; }
bundle agent main
{
vars:
  "content" string => "${content.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}";
classes:
  "generation_${gen}" expression => "any", persistence => "60";
files:
  ${promises.filter((p) => p !== "").join("\n  ")}
}
bundle edit_line gen(g) { replace_patterns: "^gen (?!$(g)$).*" replace_with => value("gen $(g)"); }
bundle edit_xml xgen(g) { set_attribute: "gen" select_xpath => "/doc", attribute_value => "$(g)"; }
body replace_with value(v) { replace_value => "$(v)"; }
body edit_defaults unlimited { max_file_size => "0"; edit_backup => "false"; }
body copy_from digest(s) { source => "$(s)"; compare => "digest"; }
body depth_search all { depth => "inf"; }
body changes record { hash => "sha256"; report_changes => "content"; update_hashes => "true"; }
`,
    );
    for (const name of this.names()) {
      const allowed = this.allowed.get(name) as Set<string>;
      allowed.add(contentAt(this.kindOf(name), gen, this.textOf(name)));
    }
  }

  /** Checks every file; the contents found become the only "before" of the next run. */
  check(gen: number): { violation?: string; old: number; new: number } {
    let old = 0;
    let fresh = 0;
    for (const name of this.names()) {
      const content = readFileSync(join(this.dir, name), "utf8");
      const allowed = this.allowed.get(name) as Set<string>;
      if (!allowed.has(content)) {
        const what =
          content === ""
            ? "empty"
            : `${content.length} bytes, starting ${JSON.stringify(content.slice(0, 40))}`;
        return {
          violation: `${name} after generation ${gen}: neither old nor new content (${what})`,
          old,
          new: fresh,
        };
      }
      if (content === contentAt(this.kindOf(name), gen, this.textOf(name))) fresh++;
      else old++;
      this.allowed.set(name, new Set([content]));
    }
    return { old, new: fresh };
  }

  /**
   * tend's temporary files beside the targets (left by killed runs: the
   * next run removes them, see src/promises/files/stray-temporaries.ts).
   */
  tendTemporaries(): string[] {
    return this.allFiles().filter((name) => /^\..+\.tend-\d+-\d+$/.test(basename(name)));
  }

  /** Every file under the target directory, by relative path. */
  private allFiles(): string[] {
    return (readdirSync(this.dir, { recursive: true }) as string[]).filter((name) => !name.endsWith("/"));
  }

  /** A state file of the agent's that is not whole JSON, if any. */
  tornState(): string | undefined {
    const state = join(this.root, "wd", "state");
    for (const name of existsSync(state) ? readdirSync(state) : []) {
      if (!name.endsWith(".json")) continue;
      try {
        JSON.parse(readFileSync(join(state, name), "utf8"));
      } catch (error) {
        return `state file ${name} is not whole JSON (${(error as Error).message})`;
      }
    }
    return undefined;
  }

  /** Removes the `.cfnew` copies a killed run left (cf-agent's name: the next copy replaces them); returns how many. */
  removeStrayCopies(): number {
    const strays = this.allFiles().filter((name) => name.endsWith(".cfnew"));
    for (const name of strays) rmSync(join(this.dir, name));
    return strays.length;
  }

  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

const TEND = resolve("bin/tend.js");

/** Runs the agent; kills it after `delay` ms unless it ends first. Resolves whether it was killed, or its exit status. */
function runAgent(workspace: Workspace, delay: number | undefined): Promise<true | number> {
  return new Promise((done, fail) => {
    const child: ChildProcess = spawn(process.execPath, [TEND, "agent", "-K", "-f", workspace.policy], {
      env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: join(workspace.root, "wd") },
      stdio: "ignore",
    });
    const timer = delay === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), delay);
    child.on("error", fail);
    child.on("exit", (code, signal) => {
      if (timer) clearTimeout(timer);
      done(signal === "SIGKILL" ? true : (code ?? 1));
    });
  });
}

/** Kills the agent `options.kills` times in all; see the file's comment. */
export async function runCrashSafety(options: CrashOptions): Promise<CrashReport> {
  const started = Date.now();
  const workspace = new Workspace(options);
  let gen = 0;
  let kills = 0;
  let completed = 0;
  let checks = 0;
  let old = 0;
  let fresh = 0;
  let strays = 0;
  let violation: string | undefined;
  try {
    // One whole run first: it must succeed, and it times the kill window.
    workspace.prepare(++gen);
    const t0 = Date.now();
    const first = await runAgent(workspace, undefined);
    if (first !== 0) violation = `the first run exited ${first}`;
    const window = Math.max(20, Date.now() - t0);
    let result = workspace.check(gen);
    if (result.new !== workspace.names().length)
      violation = result.violation ?? "a whole run left old content";
    while (!violation && kills < options.kills) {
      workspace.prepare(++gen);
      // A quarter of the window past the first run's time: some runs finish.
      const ended = await runAgent(workspace, Math.random() * window * 1.25);
      const killed = ended === true;
      if (killed) kills++;
      else completed++;
      result = workspace.check(gen);
      violation ??= workspace.tornState();
      // The run after a kill recovers: every run that was not killed succeeds.
      if (!violation && ended !== true && ended !== 0) violation = `a run after a kill exited ${ended}`;
      checks += workspace.names().length;
      old += result.old;
      fresh += result.new;
      violation ??= result.violation;
      const temporaries = workspace.tendTemporaries();
      strays += temporaries.length + workspace.removeStrayCopies();
      // Every run writes into the directory, so a whole run leaves none.
      if (!violation && !killed && temporaries.length > 0)
        violation = `a completed run left temporary files: ${temporaries.join(", ")}`;
      if (killed && kills % 50 === 0) options.progress?.(`${kills} kills, ${completed} runs completed`);
    }
    // And after the last kill, a whole run recovers everything.
    if (!violation) {
      workspace.prepare(++gen);
      const last = await runAgent(workspace, undefined);
      result = workspace.check(gen);
      violation = result.violation ?? workspace.tornState();
      if (!violation && (last !== 0 || result.new !== workspace.names().length))
        violation = `the run after the last kill did not recover (exit ${last}, ${result.new} files new)`;
    }
  } finally {
    workspace.remove();
  }
  return {
    kills,
    completed,
    checks,
    old,
    new: fresh,
    strayTemporaries: strays,
    violation,
    seconds: (Date.now() - started) / 1000,
  };
}

function option(args: readonly string[], name: string, fallback: number): number {
  const at = args.indexOf(`--${name}`);
  const value = at >= 0 ? Number(args[at + 1]) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} needs a positive integer`);
  return value;
}

const HELP = `usage: node dist/scripts/crash-safety.js [--kills N] [--files N] [--size BYTES]

Kills tend agent with SIGKILL at random moments while it rewrites big files
(edit_line, content, edit_xml, copy_from, a recursive copy) and writes its
state, and checks after every kill that each file is either as it was or as
promised, that the state is whole JSON, and that the next run succeeds. Defaults: --kills 500,
--files 12 (of each kind), --size 1000000. Its scratch directory (under the
system temporary directory) is removed at the end. Exits 1 on a violation.
`;

async function main(args: readonly string[]): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(HELP);
    return 0;
  }
  const options: CrashOptions = {
    kills: option(args, "kills", 500),
    files: option(args, "files", 12),
    size: option(args, "size", 1_000_000),
    progress: (line) => process.stdout.write(`${line}\n`),
  };
  process.stdout.write(
    `crash safety: ${options.kills} kills, ${options.files} files of each kind (edit_line, content, edit_xml, copy_from, recursive copy), ~${options.size} bytes each\n`,
  );
  const report = await runCrashSafety(options);
  process.stdout.write(
    `${report.kills} kills and ${report.completed} completed runs in ${report.seconds.toFixed(0)} s; ` +
      `${report.checks} file checks: ${report.old} old, ${report.new} new; ` +
      `temporary files found beside the targets after runs (swept by the next run): ${report.strayTemporaries}\n`,
  );
  if (report.violation) {
    process.stdout.write(`VIOLATION: ${report.violation}\n`);
    return 1;
  }
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: Error) => {
      process.stderr.write(`crash-safety: ${error.message}\n`);
      process.exitCode = 2;
    },
  );
}
