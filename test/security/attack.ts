/**
 * What the security tests share: a scratch tree in which `nobody` (the
 * attacker) owns a home directory, root owns a target directory, and both
 * agents run as root against policy aimed at the attacker's paths.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, lchownSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type AttackScene, makeAttackScene } from "../../scripts/symlink-race.js";
import { scratchDirectory } from "../scratch.js";

export { ATTACK_KINDS, attackPolicy, snapshotTree } from "../../scripts/symlink-race.js";

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

/** A new scene in a scratch directory (see makeAttackScene). */
export function makeAttackTree(prefix = "tend-attack-"): AttackScene {
  return makeAttackScene(scratchDirectory(prefix));
}

/** What the attacker did: `home/app` is nobody's link to root's directory. */
export function plantLink(tree: AttackScene): string {
  const app = join(tree.home, "app");
  symlinkSync(tree.target, app);
  lchownSync(app, NOBODY, NOBODY);
  return app;
}

export interface AgentRun {
  readonly status: number | null;
  readonly output: string;
}

/** `tend agent -Kf policy` as root, in a work directory of its own under `root`. */
export function runTendAgent(policy: string, workdir: string, extraEnv: NodeJS.ProcessEnv = {}): AgentRun {
  const run = spawnSync(process.execPath, ["bin/tend.js", "agent", "-Kf", policy], {
    env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: workdir, ...extraEnv },
    encoding: "utf8",
    // A guard against a hang, not a speed check: a loaded machine (64 MiB
    // of output read twice) has taken over two minutes.
    timeout: 600_000,
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
