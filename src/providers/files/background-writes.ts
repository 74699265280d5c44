/**
 * New files written in the background while the caller goes on: a front
 * end applying many files hands over the plain ones (a new regular file,
 * its content and mode known) and keeps deciding the next ones, then waits
 * for them all (`settle`) before anything that could see them.
 *
 * Each file's slow calls run on libuv's threads (system/atomic-background.ts),
 * and the quick ones on the caller's when the first is reported: the caller
 * awaits `pace()` after each file it hands over, which lets the event loop
 * turn now and then, and holds it back while too many files are under way.
 *
 * A directory is checked (no link another user controls on the way) at
 * the first file under way to it, and held for those that follow until
 * none is under way to it: a stat saved per file, and no more directories
 * held open than files under way.
 *
 * While files are under way, a path that could reach one of them
 * (`conflicts`: one of its components is the name of such a file) must not
 * be looked at: a file under way changes nothing but its own directory
 * entry, so any other path may.
 */
import { dirname } from "node:path";
import { newFilesDirectory, startNewFile } from "../../system/atomic-background.js";
import type { HeldDirectory } from "../../system/safe-fs.js";

/** Files under way at most: each holds a descriptor for a moment, and its content. */
const MAX_UNDER_WAY = 64;
/** Files handed over between two turns of the event loop. */
const FILES_PER_TURN = 16;

/**
 * libuv starts its threads at the first call that needs them, as many as
 * UV_THREADPOOL_SIZE says (4 by default). Files written into one directory
 * take its lock one after the other, so more threads than one only wait
 * for each other, and each one idle is woken (a futex call on this thread)
 * for the next call: with one, a thousand new files cost ~7 ms less on
 * this thread and ~12 ms less CPU in all. When the writer is the first to
 * need them (as in `tend puppet apply`: nothing else of it does), it asks
 * for one, unless the environment says otherwise; the variable is gone
 * again at once, so programs started later do not see it.
 */
function startWithOneThread(start: () => void): void {
  if (process.env.UV_THREADPOOL_SIZE !== undefined) {
    start();
    return;
  }
  process.env.UV_THREADPOOL_SIZE = "1";
  try {
    start();
  } finally {
    delete process.env.UV_THREADPOOL_SIZE;
  }
}

export class BackgroundWriter {
  /** Tickets handed out so far: ticket n is the nth file taken. */
  private tickets = 0;
  private underWay = 0;
  private sinceTurn = 0;
  /** Names (last components) of the files under way, with how many of each. */
  private readonly names = new Map<string, number>();
  /** Failures of files no longer under way, by ticket, until asked for. */
  private readonly failures = new Map<number, Error>();
  /** Called each time a file is done. */
  private waiters: (() => void)[] = [];
  /**
   * The directories files are under way to, each checked at the first of
   * them and held, with how many are under way, until none is (then
   * checked again at the next): at most one descriptor per file under way.
   */
  private readonly directories = new Map<string, { held: HeldDirectory; files: number }>();
  private started = false;

  /** How many files were handed over in this process. */
  get filesTaken(): number {
    return this.tickets;
  }

  /**
   * Starts writing the new file `path` (absent when the caller looked).
   * The ticket says which file it is to `outcome`, once settled.
   */
  offer(path: string, data: Uint8Array, mode: number): number {
    const ticket = this.tickets++;
    const name = path.slice(path.lastIndexOf("/") + 1);
    this.names.set(name, (this.names.get(name) ?? 0) + 1);
    this.underWay += 1;
    this.sinceTurn += 1;
    try {
      const parent = dirname(path);
      const dir = this.directoryOf(parent, path);
      const start = () =>
        startNewFile(dir, path, data, mode, (error) => this.done(ticket, name, parent, error));
      if (this.started) start();
      else startWithOneThread(start);
      this.started = true;
    } catch (error) {
      this.done(ticket, name, undefined, error as Error);
    }
    return ticket;
  }

  /** Whether looking at `path` could see a file under way (or fail on its way there). */
  conflicts(path: string): boolean {
    if (this.names.size === 0) return false;
    let start = path.startsWith("/") ? 1 : 0;
    while (start <= path.length) {
      let end = path.indexOf("/", start);
      if (end === -1) end = path.length;
      if (end > start && this.names.has(path.slice(start, end))) return true;
      start = end + 1;
    }
    return false;
  }

  /**
   * What the caller awaits after handing over a file: undefined most of
   * the time; now and then a turn of the event loop (the files' next calls
   * run then); while too many files are under way, until fewer are.
   */
  pace(): Promise<void> | undefined {
    if (this.underWay >= MAX_UNDER_WAY) return this.until(() => this.underWay < MAX_UNDER_WAY);
    if (this.sinceTurn < FILES_PER_TURN) return undefined;
    this.sinceTurn = 0;
    return new Promise((resolve) => setImmediate(resolve));
  }

  /** Resolves once every file handed over is in place or has failed. */
  settle(): Promise<void> {
    this.sinceTurn = 0;
    return this.until(() => this.underWay === 0);
  }

  /** The error a settled file failed with (once), or undefined when it was written. */
  outcome(ticket: number): Error | undefined {
    const error = this.failures.get(ticket);
    if (error) this.failures.delete(ticket);
    return error;
  }

  private until(ready: () => boolean): Promise<void> {
    if (ready()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = (): void => {
        if (ready()) resolve();
        else this.waiters.push(check);
      };
      this.waiters.push(check);
    });
  }

  /** The checked directory `parent` of the file `path`, held for one more file under way to it. */
  private directoryOf(parent: string, path: string): HeldDirectory {
    let entry = this.directories.get(parent);
    if (!entry) {
      entry = { held: newFilesDirectory(parent, path), files: 0 };
      this.directories.set(parent, entry);
    }
    entry.files += 1;
    return entry.held;
  }

  /** A file is done (`parent`: the directory it held, if it got that far). */
  private done(ticket: number, name: string, parent: string | undefined, error: Error | undefined): void {
    this.underWay -= 1;
    const entry = parent === undefined ? undefined : this.directories.get(parent);
    if (entry && --entry.files === 0) {
      entry.held.release();
      this.directories.delete(parent as string);
    }
    const left = (this.names.get(name) ?? 1) - 1;
    if (left === 0) this.names.delete(name);
    else this.names.set(name, left);
    if (error) this.failures.set(ticket, error);
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter();
  }
}

/** The writer of this process, for every run in it. */
export const backgroundWriter = new BackgroundWriter();
