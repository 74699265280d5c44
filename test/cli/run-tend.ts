/**
 * Runs the built `tend` binary as a child process, the way users do, and
 * returns what it did. Tests need `tsc -p .` to have run first.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The repository root, from dist/test/cli/. */
export const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
export const fixtures = fileURLToPath(new URL("../../../test/fixtures/cli/", import.meta.url));
const bin = fileURLToPath(new URL("../../../bin/tend.js", import.meta.url));

export interface TendRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `tend args...` in `cwd` (the fixtures by default). The environment is
 * the parent's without colour variables, plus `env`.
 */
export function runTend(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): TendRun {
  const env = { ...process.env };
  delete env.NO_COLOR;
  delete env.FORCE_COLOR;
  const result = spawnSync(process.execPath, [bin, ...args], {
    cwd: options.cwd ?? fixtures,
    env: { ...env, ...options.env },
    encoding: "utf8",
    timeout: 30_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

export const ANSI = /\u001b\[/;
