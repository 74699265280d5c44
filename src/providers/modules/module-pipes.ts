/**
 * The FIFOs a module is started on (Node has no mkfifo, so making them
 * takes a process): as many sets as the policy declares promise types are
 * made ahead, by one process in the background while the agent loads (the
 * watchdog's timer process, else mkfifo), so that a module's start waits
 * for them little or not at all. A module started again, or more modules
 * than that, get theirs made on the spot.
 */
import { spawn, spawnSync } from "node:child_process";
import {
  closeSync,
  constants,
  mkdtempSync,
  openSync,
  rmdirSync,
  rmSync,
  statSync,
  unlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exitStatus, sleep } from "./module-process.js";

const FIFOS = ["in", "out"];
/** Where a module's standard error goes, next to its FIFOs. */
export const STDERR_FILE = "err";
/** Sets made ahead at most. */
const MAX_PREPARED = 8;
/** How long a module's start waits for a set being made ahead before making its own. */
const PREPARED_WAIT_MS = 2_000;
/** What makes sets ahead. */
export interface PipeMaker {
  /** Whether it is done: it has made them, or never will. */
  settled(): boolean;
}

/** Sets being made ahead, with what makes them. */
const prepared: { readonly dir: string; readonly maker: PipeMaker }[] = [];

function fifosReady(dir: string): boolean {
  return FIFOS.every((name) => statSync(join(dir, name), { throwIfNoEntry: false })?.isFIFO() === true);
}

/** Whether the set becomes ready within the wait (its maker runs alongside). */
function awaitReady(dir: string, maker: PipeMaker): boolean {
  const deadline = Date.now() + PREPARED_WAIT_MS;
  for (;;) {
    if (fifosReady(dir)) return true;
    // A maker that is done without making them never will.
    if (maker.settled()) return fifosReady(dir);
    if (Date.now() >= deadline) return false;
    sleep(0.25);
  }
}

/**
 * Starts making `count` sets of FIFOs in the background, all with one
 * process: the one `startMaker` starts with their paths, else mkfifo.
 */
export function preparePipes(
  count: number,
  startMaker: (paths: readonly string[]) => PipeMaker | undefined = () => undefined,
): void {
  const dirs = Array.from({ length: Math.min(count, MAX_PREPARED) }, () =>
    mkdtempSync(join(tmpdir(), "tend-module-")),
  );
  const paths = dirs.flatMap((dir) => FIFOS.map((name) => join(dir, name)));
  const maker = startMaker(paths) ?? startMkfifo(paths);
  // Without a maker each module makes its own set.
  if (maker === undefined) for (const dir of dirs) removePipes(dir);
  else prepared.push(...dirs.map((dir) => ({ dir, maker })));
}

function startMkfifo(paths: readonly string[]): PipeMaker | undefined {
  const maker = spawn("mkfifo", ["-m", "600", ...paths], { stdio: "ignore" });
  maker.on("error", () => {});
  maker.unref();
  const pid = maker.pid;
  return pid === undefined ? undefined : { settled: () => exitStatus(pid).exited };
}

/** A directory with the FIFOs `in` and `out`, or why none could be made. */
export function takePipes(): string | { readonly error: string } {
  const ahead = prepared.shift();
  if (ahead !== undefined && awaitReady(ahead.dir, ahead.maker)) return ahead.dir;
  if (ahead !== undefined) removePipes(ahead.dir);
  const dir = mkdtempSync(join(tmpdir(), "tend-module-"));
  const made = spawnSync("mkfifo", ["-m", "600", ...FIFOS.map((name) => join(dir, name))], {
    encoding: "utf8",
  });
  if (made.status === 0) return dir;
  removePipes(dir);
  return { error: `cannot make its pipes (mkfifo: ${made.error?.message ?? made.stderr.trim()})` };
}

/** Removes the sets made ahead and not used. */
export function discardPipes(): void {
  for (const { dir } of prepared.splice(0)) removePipes(dir);
}

/**
 * Removes a set's directory with what it holds: the FIFOs and the standard
 * error file, one by one (a recursive removal costs milliseconds more).
 */
export function removePipes(dir: string): void {
  try {
    for (const name of [...FIFOS, STDERR_FILE]) unlinkSync(join(dir, name));
    rmdirSync(dir);
  } catch {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ModuleDescriptors {
  /** The module's standard input, output and error. */
  readonly child: readonly [number, number, number];
  /** The agent's ends: it writes the module's input, reads its output and its standard error. */
  readonly input: number;
  readonly output: number;
  readonly stderr: number;
}

/**
 * Opens both ends of the FIFOs. Each is first opened read-write (which
 * never blocks) so that the other opens do not wait; those holds are
 * closed at once, so that the module is the only writer of its output
 * (its end is the output's end) and the agent the only writer of its input.
 */
export function openDescriptors(dir: string): ModuleDescriptors {
  const holds = FIFOS.map((name) => openSync(join(dir, name), constants.O_RDWR));
  const child = [
    openSync(join(dir, "in"), constants.O_RDONLY),
    openSync(join(dir, "out"), constants.O_WRONLY),
    openSync(join(dir, STDERR_FILE), constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND, 0o600),
  ] as const;
  // Never blocks the agent on a module that stops reading (see module-channel.ts).
  const input = openSync(join(dir, "in"), constants.O_WRONLY | constants.O_NONBLOCK);
  const output = openSync(join(dir, "out"), constants.O_RDONLY);
  const stderr = openSync(join(dir, STDERR_FILE), constants.O_RDONLY);
  for (const fd of holds) closeSync(fd);
  return { child, input, output, stderr };
}
