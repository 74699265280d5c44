/**
 * Runs the built `tend` for the network command tests, asynchronously (a
 * synchronous child would block the test process while a server it
 * started must answer).
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const bin = fileURLToPath(new URL("../../../bin/tend.js", import.meta.url));

export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `tend ARGS` with `workdir` as its work directory, in `cwd`, with `input` on stdin. */
export function runTendIn(workdir: string, args: readonly string[], cwd: string, input = ""): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd,
      env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: workdir, NO_COLOR: "1" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}
