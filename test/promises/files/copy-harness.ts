/**
 * Runs copy/link/depth-search scenarios (copy-scenarios.ts) in temporary
 * directories, through tend (in this process) or cf-agent (a command),
 * twice each, and takes what both must agree on: the whole tree left in
 * the scenario's directory (paths, types, modes, bytes, link targets,
 * which files are hard links of each other, old time stamps kept), the
 * info/notice/warning/error lines and the reports of each run. Paths in
 * messages read `D` for the directory, `R` for the root holding it;
 * time-stamped backups read `STAMP`.
 */
import {
  chmodSync,
  lchownSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import {
  type Capture,
  type RunResult,
  type ScenarioResult,
  runCfAgentCapturing,
  runTendCapturing,
  runTwice,
} from "../scenario-runs.js";
import { scratchDirectory } from "../../scratch.js";

/** A file the scenario starts with; a string is a file's content. */
export type Entry =
  | string
  | {
      readonly content?: string;
      /** A symbolic link with this text. */
      readonly link?: string;
      readonly dir?: boolean;
      /** A hard link to this other entry (made after it). */
      readonly hardlink?: string;
      readonly mode?: number;
      /** Owner's uid (of the link itself for a link). */
      readonly uid?: number;
      /** Modification (and access) time, seconds since the epoch. */
      readonly mtime?: number;
    };

export interface CopyScenario {
  readonly name: string;
  /** Paths relative to the scenario's directory; parents are made as needed. */
  readonly files?: Readonly<Record<string, Entry>>;
  /** The body of `bundle agent main`; `$(d)` is the scenario's directory. */
  readonly main: string;
  /** More bundles and bodies. */
  readonly extra?: string;
}

export type { RunResult, ScenarioResult } from "../scenario-runs.js";

/** Bodies every scenario may use. */
const PRELUDE = `
body copy_from cp(s) { source => "$(s)"; }
body copy_from cp_cmp(s, c) { source => "$(s)"; compare => "$(c)"; }
body copy_from cp_digest(s) { source => "$(s)"; compare => "digest"; }
body copy_from cp_r(s) { source => "$(s)"; compare => "digest"; purge => "false"; }
body copy_from cp_purge(s) { source => "$(s)"; compare => "digest"; purge => "true"; }
body link_from ln(s) { source => "$(s)"; }
body link_from ln_type(s, t) { source => "$(s)"; link_type => "$(t)"; }
body depth_search recurse(d) { depth => "$(d)"; }
body depth_search recurse_base(d) { depth => "$(d)"; include_basedir => "true"; }
body file_select by_name(n) { leaf_name => { "$(n)" }; file_result => "leaf_name"; }
body file_select plain { file_types => { "plain" }; file_result => "file_types"; }
body perms m(x) { mode => "$(x)"; rxdirs => "false"; }
body perms mr(x) { mode => "$(x)"; rxdirs => "true"; }
body delete tidy { dirlinks => "delete"; rmdirs => "true"; }
body delete keepdirs { rmdirs => "false"; }
body action warn_only { action_policy => "warn"; }
body classes outcome(p) { promise_kept => { "$(p)_kept" }; promise_repaired => { "$(p)_repaired" }; repair_failed => { "$(p)_failed" }; }
body changes watch(h) { hash => "$(h)"; report_changes => "all"; update_hashes => "true"; }
`;

/** The policy of a scenario for the directory `dir`. */
export function scenarioPolicy(scenario: CopyScenario, dir: string): string {
  return `body common control { bundlesequence => { "main" }; }
bundle agent main {
vars:
  "d" string => "${dir}";
${scenario.main}
}
${scenario.extra ?? ""}
${PRELUDE}`;
}

function makeEntry(dir: string, name: string, entry: Entry): void {
  const path = join(dir, name);
  mkdirSync(dirname(path), { recursive: true });
  const spec = typeof entry === "string" ? { content: entry } : entry;
  if (spec.link !== undefined) symlinkSync(spec.link, path);
  else if (spec.hardlink !== undefined) linkSync(join(dir, spec.hardlink), path);
  else if (spec.dir) mkdirSync(path, { recursive: true });
  else writeFileSync(path, spec.content ?? "");
  if (spec.mode !== undefined) chmodSync(path, spec.mode);
  if (spec.uid !== undefined) lchownSync(path, spec.uid, -1);
  if (spec.mtime !== undefined) utimesSync(path, spec.mtime, spec.mtime);
}

/** A fresh directory with the scenario's files; returns the root holding it and the policy. */
export function prepare(scenario: CopyScenario): { root: string; dir: string; policy: string } {
  const root = scratchDirectory("tend-copy-scenario-");
  const dir = join(root, "d");
  mkdirSync(dir);
  const entries = Object.entries(scenario.files ?? {});
  for (const [name, entry] of entries) makeEntry(dir, name, entry);
  // Times last: making entries inside a directory changes its times.
  for (const [name, entry] of entries) {
    if (typeof entry !== "string" && entry.mtime !== undefined && !entry.link)
      utimesSync(join(dir, name), entry.mtime, entry.mtime);
  }
  const policy = join(root, "policy.cf");
  writeFileSync(policy, scenarioPolicy(scenario, dir));
  return { root, dir, policy };
}

const STAMP = /_\d+_[A-Za-z0-9_]+(\.cfsaved|\.cf-before-edit)/g;
/** Times older than this (set by the scenario, or kept from one) are shown. */
const OLD = Date.now() / 1000 - 86_400;

/** `dir` canonified, as repository names hold it. */
function canonified(dir: string): string {
  return dir.replace(/[^A-Za-z0-9_]/g, "_");
}

/** The tree under `dir` as both agents must leave it (its own path reads `D`). */
export function snapshot(dir: string): string[] {
  const out: string[] = [];
  const inodes = new Map<number, string>();
  const walk = (path: string, shown: string) => {
    for (const name of readdirSync(path).sort()) {
      const full = join(path, name);
      const rel = `${shown}${name}`.replace(STAMP, "_STAMP$1").split(canonified(dir)).join("_D");
      const stats = lstatSync(full);
      const mode = (stats.mode & 0o7777).toString(8);
      const owner = stats.uid === process.getuid?.() ? "" : ` uid=${stats.uid}`;
      if (stats.isSymbolicLink()) out.push(`${rel} -> ${readlinkSync(full).split(dir).join("D")}${owner}`);
      else if (stats.isDirectory()) {
        out.push(`${rel}/ ${mode}`);
        walk(full, `${rel}/`);
      } else if (stats.isFIFO()) out.push(`${rel} fifo ${mode}`);
      else {
        const first = stats.nlink > 1 ? inodes.get(stats.ino) : undefined;
        if (stats.nlink > 1 && !first) inodes.set(stats.ino, rel);
        const link = first ? ` =${first}` : stats.nlink > 1 ? " (linked)" : "";
        const time = stats.mtimeMs / 1000 < OLD ? ` @${Math.floor(stats.mtimeMs / 1000)}` : "";
        out.push(`${rel} ${mode} ${JSON.stringify(readFileSync(full, "latin1"))}${link}${time}${owner}`);
      }
    }
  };
  walk(dir, "");
  return out;
}

/** Paths in a message relative to the scenario: `D` its directory, `R` the root holding it. */
function relative(text: string, dir: string): string {
  const root = dir.slice(0, dir.lastIndexOf("/"));
  const text2 = text.split(canonified(dir)).join("_D");
  return text2.split(dir).join("D").split(root).join("R").replace(STAMP, "_STAMP$1");
}

const KEPT_LEVELS = new Set(["error", "warning", "notice", "info"]);

const CAPTURE: Capture = { levels: KEPT_LEVELS, relative, snapshot };

/** One run of tend, in this process. */
export function runTend(policy: string, root: string, dir: string): RunResult {
  return runTendCapturing(policy, root, dir, CAPTURE);
}

/** One run of cf-agent through `command` (a wrapper taking cf-agent's options, work directory from $CFA_WD). */
export function runCfAgent(command: string, policy: string, root: string, dir: string): RunResult {
  return runCfAgentCapturing(command, policy, root, dir, CAPTURE);
}

/** Both runs of a scenario with one agent; the directory is removed afterwards. */
export function runScenario(
  scenario: CopyScenario,
  run: (policy: string, root: string, dir: string) => RunResult,
): ScenarioResult {
  return runTwice(scenario.name, prepare(scenario), run);
}
