/**
 * The FIFOs a module is started on (Node has no mkfifo, so making them
 * takes a process): the next set is made in the background while the
 * agent does other work, so that a module's start rarely waits for it.
 */
import { spawn, spawnSync } from "node:child_process";
import { closeSync, constants, mkdtempSync, openSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const FIFOS = ["in", "out"];
let next: string | undefined;

function fifosReady(dir: string): boolean {
  return FIFOS.every((name) => statSync(join(dir, name), { throwIfNoEntry: false })?.isFIFO() === true);
}

/** Starts making a set of FIFOs in the background. */
export function preparePipes(): void {
  if (next !== undefined) return;
  next = mkdtempSync(join(tmpdir(), "tend-module-"));
  const maker = spawn("mkfifo", ["-m", "600", ...FIFOS.map((name) => join(next!, name))], {
    stdio: "ignore",
  });
  maker.on("error", () => {});
  maker.unref();
}

/** A directory with the FIFOs `in` and `out`, or why none could be made; the next set is started. */
export function takePipes(): string | { readonly error: string } {
  const prepared = next;
  next = undefined;
  try {
    if (prepared !== undefined && fifosReady(prepared)) return prepared;
    if (prepared !== undefined) rmSync(prepared, { recursive: true, force: true });
    const dir = mkdtempSync(join(tmpdir(), "tend-module-"));
    const made = spawnSync("mkfifo", ["-m", "600", ...FIFOS.map((name) => join(dir, name))], {
      encoding: "utf8",
    });
    if (made.status === 0) return dir;
    rmSync(dir, { recursive: true, force: true });
    return { error: `cannot make its pipes (mkfifo: ${made.error?.message ?? made.stderr.trim()})` };
  } finally {
    preparePipes();
  }
}

/** Removes a set made ahead and not used. */
export function discardPipes(): void {
  if (next !== undefined) rmSync(next, { recursive: true, force: true });
  next = undefined;
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
    openSync(join(dir, "err"), constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND, 0o600),
  ] as const;
  const input = openSync(join(dir, "in"), constants.O_WRONLY);
  const output = openSync(join(dir, "out"), constants.O_RDONLY);
  const stderr = openSync(join(dir, "err"), constants.O_RDONLY);
  for (const fd of holds) closeSync(fd);
  return { child, input, output, stderr };
}
