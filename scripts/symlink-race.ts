/**
 * The link race, live: an unprivileged process (`nobody`) swaps a
 * directory of its own and a link to a directory of root's, in a tight
 * loop, at the path root's policy acts on, while the agent runs
 * copy_from, perms, edit_line and delete there, run after run. After
 * every run, nothing outside the attacker's own tree may have been
 * created, changed or removed: root's directory is compared entry by
 * entry (names, modes, owners, contents) with how it was.
 *
 *   npx tsc -p . && node dist/scripts/symlink-race.js [--runs 500] [--agent tend|cf-agent]
 *
 * Runs as root (the attacker is another user). Prints a line per kind
 * and a summary; exits 1 at the first change found. Its scratch
 * directory is removed at the end. test/security/symlink-race.test.ts
 * runs a short version in npm test.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";

const NOBODY = 65534;

/** The files promises an attacker's link is aimed at (the race runs the first four). */
export type AttackKind =
  | "copy_from"
  | "perms"
  | "edit_line"
  | "delete"
  | "create"
  | "content"
  | "recursive_perms";
export const ATTACK_KINDS: readonly AttackKind[] = [
  "copy_from",
  "perms",
  "edit_line",
  "delete",
  "create",
  "content",
  "recursive_perms",
];
const RACE_KINDS = ATTACK_KINDS.slice(0, 4);

export interface RaceOptions {
  /** Agent runs per kind. */
  readonly runs: number;
  readonly agent: "tend" | "cf-agent";
  readonly progress?: (line: string) => void;
}

export interface RaceReport {
  readonly runs: number;
  /** Swaps the attacker made while the agent ran (four renames each). */
  readonly swaps: number;
  /** Runs in which the agent logged a refused link (it met the link). */
  readonly refusals: number;
  /** The first change found outside the attacker's tree, if any. */
  readonly violation: string | undefined;
  readonly seconds: number;
}

/** The attacker: swaps `app` between its own directory and a link to root's, until the stop file appears. */
const SWAPPER = `
const fs = require("node:fs");
const [home, stop] = process.argv.slice(1);
const app = home + "/app", real = home + "/app.real", link = home + "/app.link";
let swaps = 0;
const tryRename = (a, b) => { try { fs.renameSync(a, b); } catch {} };
while (true) {
  // A directory the agent made at app (copy_from makes missing parents) would stop the swaps: moved aside.
  try { if (fs.lstatSync(app).uid !== process.getuid()) fs.renameSync(app, home + "/agent-made-" + swaps); } catch {}
  for (let i = 0; i < 200; i++) {
    tryRename(link, app); tryRename(app, link); tryRename(real, app); tryRename(app, real);
    swaps++;
  }
  if (fs.existsSync(stop)) break;
}
fs.writeFileSync(stop + ".count", String(swaps));
`;

/** Every entry under `dir` with its mode, owner and content (or link): what must not change. */
export function snapshotTree(dir: string, prefix = ""): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const stats = lstatSync(path);
    const head = `${prefix}${name} ${(stats.mode & 0o7777).toString(8)} ${stats.uid}:${stats.gid}`;
    if (stats.isDirectory()) out.push(`${head}/`, ...snapshotTree(path, `${prefix}${name}/`));
    else if (stats.isSymbolicLink()) out.push(`${head} -> ${path}`);
    else out.push(`${head} ${JSON.stringify(readFileSync(path, "utf8"))}`);
  }
  return out;
}

/** Root's policy of one kind, aimed at `app` (the attacker's path). */
export function attackPolicy(kind: AttackKind, app: string, source: string): string {
  const promise: Record<AttackKind, string> = {
    copy_from: `"${app}/passwd" copy_from => local_cp("${source}");`,
    perms: `"${app}/passwd" perms => m("666");`,
    edit_line: `"${app}/passwd" edit_line => ins;`,
    delete: `"${app}/shadow" delete => tidy;`,
    create: `"${app}/newfile" create => "true";`,
    content: `"${app}/passwd" content => "x";`,
    recursive_perms: `"${app}" depth_search => recurse("inf"), perms => m("777");`,
  };
  return `body perms m(x) { mode => "$(x)"; rxdirs => "false"; }
body delete tidy { rmdirs => "true"; }
body copy_from local_cp(f) { source => "$(f)"; compare => "digest"; }
body depth_search recurse(d) { depth => "$(d)"; }
bundle edit_line ins { insert_lines: "hacked $(sys.date)"; }
bundle agent main { files: ${promise[kind]} }
`;
}

export interface AttackScene {
  readonly root: string;
  /** Root's directory the attacker wants changed: passwd (644), shadow (600), sub/f. */
  readonly target: string;
  /** The attacker's own directory. */
  readonly home: string;
  /** A file root's policy copies from. */
  readonly source: string;
}

/** Lays out the scene in `root` (made traversable by nobody). */
export function makeAttackScene(root: string): AttackScene {
  chmodSync(root, 0o711);
  const target = join(root, "target");
  mkdirSync(join(target, "sub"), { recursive: true });
  chmodSync(target, 0o755);
  writeFileSync(join(target, "passwd"), "root:x:0:0\n", { mode: 0o644 });
  writeFileSync(join(target, "shadow"), "secret\n", { mode: 0o600 });
  writeFileSync(join(target, "sub", "f"), "s\n", { mode: 0o644 });
  const home = join(root, "userhome");
  mkdirSync(home);
  chownSync(home, NOBODY, NOBODY);
  const source = join(root, "src");
  writeFileSync(source, "new content\n", { mode: 0o644 });
  return { root, target, home, source };
}

/** The race's extra pieces: the attacker's own directory and its link to root's, both nobody's. */
function prepareSwap(scene: AttackScene): void {
  const real = join(scene.home, "app.real");
  mkdirSync(real);
  writeFileSync(join(real, "passwd"), "mine\n", { mode: 0o644 });
  writeFileSync(join(real, "shadow"), "mine\n", { mode: 0o644 });
  for (const path of [real, join(real, "passwd"), join(real, "shadow")]) chownSync(path, NOBODY, NOBODY);
  const link = join(scene.home, "app.link");
  symlinkSync(scene.target, link);
  lchownSync(link, NOBODY, NOBODY);
}

function agentCommand(
  agent: RaceOptions["agent"],
  policy: string,
  workdir: string,
): [string, string[], NodeJS.ProcessEnv] {
  const env = { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: workdir };
  if (agent === "tend") return [process.execPath, [resolve("bin/tend.js"), "agent", "-Kf", policy], env];
  return ["/usr/bin/cf-agent", ["-Kf", policy], env];
}

function prepareWorkdir(agent: RaceOptions["agent"], workdir: string): void {
  mkdirSync(join(workdir, "bin"), { recursive: true, mode: 0o700 });
  if (agent !== "cf-agent") return;
  symlinkSync("/usr/bin/cf-promises", join(workdir, "bin", "cf-promises"));
  spawnSync("cf-key", [], { env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: workdir } });
}

/** Runs the race for every kind; stops at the first change outside the attacker's tree. */
export function runSymlinkRace(options: RaceOptions): RaceReport {
  const started = performance.now();
  const root = mkdtempSync(join(tmpdir(), "tend-race-"));
  let runs = 0;
  let refusals = 0;
  let swaps = 0;
  let violation: string | undefined;
  try {
    const scene = makeAttackScene(root);
    prepareSwap(scene);
    const workdir = join(root, "wd");
    prepareWorkdir(options.agent, workdir);
    const expected = snapshotTree(scene.target);
    const stop = join(scene.home, "stop");
    const attacker: ChildProcess = spawn(process.execPath, ["-e", SWAPPER, scene.home, stop], {
      uid: NOBODY,
      gid: NOBODY,
      stdio: "ignore",
    });
    try {
      for (const kind of RACE_KINDS) {
        const policy = join(root, `${kind}.cf`);
        writeFileSync(policy, attackPolicy(kind, join(scene.home, "app"), scene.source), { mode: 0o600 });
        let kindRefusals = 0;
        for (let i = 0; i < options.runs && !violation; i++) {
          const [command, args, env] = agentCommand(options.agent, policy, workdir);
          const run = spawnSync(command, args, { env, encoding: "utf8", timeout: 120_000 });
          runs++;
          if (/Cannot follow symlink|Link has been severed/.test(`${run.stdout}${run.stderr}`))
            kindRefusals++;
          const now = snapshotTree(scene.target);
          if (now.join("\n") !== expected.join("\n")) {
            const log = `${run.stdout}${run.stderr}`.trim();
            violation = `${kind}, run ${i + 1}: root's directory changed:\n${diffLines(expected, now)}\nthe run's output:\n${log}`;
          }
        }
        refusals += kindRefusals;
        options.progress?.(
          `${kind}: ${options.runs} runs, ${kindRefusals} met the link, ${violation ? "CHANGED" : "nothing changed"}`,
        );
        if (violation) break;
      }
    } finally {
      writeFileSync(stop, "");
      const count = `${stop}.count`;
      const deadline = Date.now() + 10_000;
      while (!existsSync(count) && Date.now() < deadline) spawnSync("sleep", ["0.05"]);
      swaps = existsSync(count) ? Number(readFileSync(count, "utf8")) : 0;
      attacker.kill("SIGKILL");
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return { runs, swaps, refusals, violation, seconds: (performance.now() - started) / 1000 };
}

function diffLines(expected: readonly string[], actual: readonly string[]): string {
  const gone = expected.filter((l) => !actual.includes(l)).map((l) => `- ${l}`);
  const added = actual.filter((l) => !expected.includes(l)).map((l) => `+ ${l}`);
  return [...gone, ...added].join("\n");
}

const HELP = `usage: node dist/scripts/symlink-race.js [--runs N] [--agent tend|cf-agent]

Runs the agent N times per kind (copy_from, perms, edit_line, delete) on a
path that an unprivileged process (nobody) swaps between its own directory
and a link to a directory of root's, and checks after every run that root's
directory is unchanged. Must run as root. Exits 1 at the first change.
`;

function main(): number {
  const { values } = parseArgs({
    options: {
      runs: { type: "string", default: "500" },
      agent: { type: "string", default: "tend" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const runs = Number(values.runs);
  const agent = values.agent;
  if (!Number.isInteger(runs) || runs < 1 || (agent !== "tend" && agent !== "cf-agent")) {
    process.stderr.write(HELP);
    return 2;
  }
  if (process.getuid?.() !== 0) {
    process.stderr.write("symlink-race: must run as root (the attacker is the user nobody)\n");
    return 2;
  }
  if (agent === "cf-agent" && !existsSync("/usr/bin/cf-agent")) {
    process.stderr.write("symlink-race: cf-agent is not installed\n");
    return 2;
  }
  const report = runSymlinkRace({ runs, agent, progress: (line) => process.stdout.write(`${line}\n`) });
  process.stdout.write(
    `${agent}: ${report.runs} runs in ${report.seconds.toFixed(1)} s, ${report.swaps} swaps, ` +
      `${report.refusals} runs met the link; ${report.violation ? `VIOLATION\n${report.violation}` : "root's directory never changed"}\n`,
  );
  return report.violation ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) process.exitCode = main();
