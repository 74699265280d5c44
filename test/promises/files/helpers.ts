/** Runs small files policies through tend (and cf-agent, when installed) in temp dirs. */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { scratchDirectory } from "../../scratch.js";

export interface AgentRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A fresh temp directory for one case: `dir` for the files, `policy` written beside it. */
export function makeCase(bundleBody: string): { root: string; dir: string; policy: string } {
  const root = scratchDirectory("tend-files-");
  const dir = join(root, "t");
  mkdirSync(dir);
  const policy = join(root, "policy.cf");
  writeFileSync(
    policy,
    `body common control { bundlesequence => { "main" }; }
body perms m(x) { mode => "$(x)"; rxdirs => "false"; }
body delete tidy { rmdirs => "true"; }
body action warn_only { action_policy => "warn"; }
bundle agent main {
vars:
  "d" string => "${dir}";
${bundleBody}
}
`,
  );
  return { root, dir, policy };
}

export function runTend(policy: string, root: string): AgentRun {
  const result = spawnSync(process.execPath, ["bin/tend.js", "agent", "-KI", "-f", policy], {
    env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: join(root, "wd-tend") },
    encoding: "utf8",
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

export const CF_AGENT = "/usr/bin/cf-agent";

/** cf-agent in a private work directory under `root`. */
export function runCfAgent(policy: string, root: string): AgentRun {
  const workdir = join(root, "wd-cfa");
  mkdirSync(join(workdir, "bin"), { recursive: true });
  if (!existsSync(join(workdir, "bin", "cf-promises")))
    symlinkSync("/usr/bin/cf-promises", join(workdir, "bin", "cf-promises"));
  const env = { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: workdir };
  spawnSync("cf-key", [], { env });
  const result = spawnSync(CF_AGENT, ["-KI", "-f", policy], { env, encoding: "utf8" });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Every path under `dir` with its mode, type and content: what both agents must agree on. */
export function snapshot(dir: string, prefix = ""): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const stats = statSync(path);
    const mode = (stats.mode & 0o7777).toString(8);
    if (stats.isDirectory()) {
      out.push(`${prefix}${name}/ ${mode}`);
      out.push(...snapshot(path, `${prefix}${name}/`));
    } else out.push(`${prefix}${name} ${mode} ${JSON.stringify(readFileSync(path, "utf8"))}`);
  }
  return out;
}

/** Log lines of one level, without the level column. */
export function lines(run: AgentRun, level: string): string[] {
  // On stdout, where both agents write their log lines.
  return run.stdout
    .split("\n")
    .filter((l) => l.trimStart().startsWith(`${level}:`))
    .map((l) => l.trimStart().slice(level.length + 2));
}
