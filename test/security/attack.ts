/**
 * What the security tests share: a scratch tree in which `nobody` (the
 * attacker) owns a home directory, root owns a target directory, and both
 * agents run as root against policy aimed at the attacker's paths.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { scratchDirectory } from "../scratch.js";

export const NOBODY = 65534;
export const CF_AGENT = "/usr/bin/cf-agent";

/** Why these tests cannot run here, if they cannot. */
export function attackSkipReason(): string | undefined {
  if (process.getuid?.() !== 0) return "needs root (the attacker is another user, nobody)";
  if (!existsSync("/proc/self/fd")) return "needs /proc";
  return undefined;
}

export function cfAgentSkipReason(): string | undefined {
  return existsSync(CF_AGENT) ? undefined : "cf-agent 3.21 is not installed (apt-get install cfengine3)";
}

export interface AttackTree {
  readonly root: string;
  /** Root's directory the attacker wants changed: passwd (644), shadow (600), sub/f. */
  readonly target: string;
  /** The attacker's own directory. */
  readonly home: string;
  /** A file root's policy copies from. */
  readonly source: string;
}

/** A new tree; the root is traversable by nobody, the target root's. */
export function makeAttackTree(prefix = "tend-attack-"): AttackTree {
  const root = scratchDirectory(prefix);
  chmodSync(root, 0o711);
  const target = join(root, "target");
  mkdirSync(join(target, "sub"), { recursive: true, mode: 0o755 });
  chmodSync(target, 0o755);
  writeFileSync(join(target, "passwd"), "root:x:0:0\n", { mode: 0o644 });
  writeFileSync(join(target, "shadow"), "secret\n", { mode: 0o600 });
  writeFileSync(join(target, "sub", "f"), "s\n", { mode: 0o644 });
  const home = join(root, "userhome");
  mkdirSync(home, { mode: 0o755 });
  chownSync(home, NOBODY, NOBODY);
  const source = join(root, "src");
  writeFileSync(source, "new content\n", { mode: 0o644 });
  return { root, target, home, source };
}

/** What the attacker did: `home/app` is nobody's link to root's directory. */
export function plantLink(tree: AttackTree): string {
  const app = join(tree.home, "app");
  symlinkSync(tree.target, app);
  lchownSync(app, NOBODY, NOBODY);
  return app;
}

/** Every entry under `dir` with its mode, owner and content: what must not change. */
export function snapshotTree(dir: string, prefix = ""): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const stats = lstatSync(path);
    const head = `${prefix}${name} ${(stats.mode & 0o7777).toString(8)} ${stats.uid}:${stats.gid}`;
    if (stats.isDirectory()) {
      out.push(`${head}/`, ...snapshotTree(path, `${prefix}${name}/`));
    } else out.push(`${head} ${JSON.stringify(readFileSync(path, "utf8"))}`);
  }
  return out;
}

/** The policy of one attack case, aimed at `app` (the attacker's path). */
export function attackPolicy(kind: AttackKind, app: string, source: string): string {
  const promise: Record<AttackKind, string> = {
    perms: `"${app}/passwd" perms => m("666");`,
    create: `"${app}/newfile" create => "true";`,
    edit_line: `"${app}/passwd" edit_line => ins;`,
    copy_from: `"${app}/passwd" copy_from => local_cp("${source}");`,
    delete: `"${app}/shadow" delete => tidy;`,
    content: `"${app}/passwd" content => "x";`,
    recursive_perms: `"${app}" depth_search => recurse("inf"), perms => m("777");`,
  };
  return `body perms m(x) { mode => "$(x)"; rxdirs => "false"; }
body delete tidy { rmdirs => "true"; }
body copy_from local_cp(f) { source => "$(f)"; compare => "digest"; }
body depth_search recurse(d) { depth => "$(d)"; }
bundle edit_line ins { insert_lines: "hacked"; }
bundle agent main { files: ${promise[kind]} }
`;
}

export type AttackKind =
  | "perms"
  | "create"
  | "edit_line"
  | "copy_from"
  | "delete"
  | "content"
  | "recursive_perms";

export const ATTACK_KINDS: readonly AttackKind[] = [
  "perms",
  "create",
  "edit_line",
  "copy_from",
  "delete",
  "content",
  "recursive_perms",
];

export interface AgentRun {
  readonly status: number | null;
  readonly output: string;
}

/** `tend agent -Kf policy` as root, in a work directory of its own under `root`. */
export function runTendAgent(policy: string, workdir: string, extraEnv: NodeJS.ProcessEnv = {}): AgentRun {
  const run = spawnSync(process.execPath, ["bin/tend.js", "agent", "-Kf", policy], {
    env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: workdir, ...extraEnv },
    encoding: "utf8",
    timeout: 120_000,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** cf-agent 3.21 the same way (its policy check needs cf-promises in the work directory, and a key). */
export function runCfAgent(policy: string, workdir: string): AgentRun {
  mkdirSync(join(workdir, "bin"), { recursive: true });
  if (!existsSync(join(workdir, "bin", "cf-promises")))
    symlinkSync("/usr/bin/cf-promises", join(workdir, "bin", "cf-promises"));
  const env = { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: workdir };
  if (!existsSync(join(workdir, "ppkeys", "localhost.priv"))) spawnSync("cf-key", [], { env });
  const run = spawnSync(CF_AGENT, ["-Kf", policy], { env, encoding: "utf8", timeout: 120_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** Writes a policy file of root's, mode 600 (never writable by others). */
export function writePolicy(path: string, text: string, mode = 0o600): string {
  writeFileSync(path, text, { mode });
  chmodSync(path, mode);
  return path;
}
