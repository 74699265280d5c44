/**
 * How tend's daemons (serverd, monitord, execd) go to the background when
 * not told to stay in the foreground: Node cannot fork, so the command
 * starts a detached copy of itself (a new session) and returns once that
 * copy says it is ready, or with the copy's exit code when it fails first.
 * The copy keeps the name the command was started under as its first
 * word (`process.argv0`), so a wrapper that runs `exec -a
 * <bindir>/cf-serverd` tend is seen under that name in the process table,
 * as the MPF's processes promises look for it.
 */
import { spawn } from "node:child_process";
import { basename } from "node:path";
import type { Logger } from "../system/logger.js";
import { type CliIo, EXIT_FAILURE, EXIT_OK } from "./io.js";

/** One daemon's way to the background. */
export interface Daemon {
  /** The subcommand: "serverd", "monitord", "execd". */
  readonly command: string;
  /** Set to "1" in the detached copy's environment, so it serves instead of detaching again. */
  readonly childVariable: string;
  /** What the copy sends over IPC once it is ready. */
  readonly readyMessage: string;
}

/** Whether this process is the detached copy of `daemon`. */
export function isDetachedCopy(daemon: Daemon, io: CliIo): boolean {
  return io.env[daemon.childVariable] === "1";
}

/** Starts a detached copy of this command and waits until it is ready or has failed. */
export function startInBackground(daemon: Daemon, args: readonly string[], io: CliIo): Promise<number> {
  const script = process.argv[1] ?? "";
  const child = spawn(process.execPath, [...process.execArgv, script, daemon.command, ...args], {
    argv0: process.argv0,
    detached: true,
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    env: { ...io.env, [daemon.childVariable]: "1" },
    cwd: io.cwd,
  });
  child.stdout?.on("data", (chunk: Buffer) => io.stdout(chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => io.stderr(chunk.toString()));
  return new Promise((resolve) => {
    child.on("message", (message) => {
      if (message !== daemon.readyMessage) return;
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.disconnect();
      child.unref();
      resolve(EXIT_OK);
    });
    child.on("exit", (code) => resolve(code ?? EXIT_FAILURE));
    child.on("error", (error) => {
      io.stderr(`tend ${daemon.command}: cannot start in the background: ${error.message}\n`);
      resolve(EXIT_FAILURE);
    });
  });
}

/** Writes this process's pid file (atomically, 0600); a failure is logged with cf-*'s words, not fatal. */
export async function writePidFile(file: string, logger: Logger): Promise<void> {
  const { writeFileAtomically } = await import("../system/atomic.js");
  try {
    writeFileAtomically(file, `${process.pid}\n`, 0o600);
  } catch (error) {
    logger.info(
      `Could not write to PID file '${basename(file)}'. (fopen: ${error instanceof Error ? error.message : String(error)})`,
    );
  }
}
