/**
 * Console lines of a run, held while stdout or stderr is a pipe or a file
 * (shared by the commands that print a line per resource).
 */
import { monotonicMs } from "../system/clock.js";

/** Bytes of console lines held before they are written. */
const HELD_BYTES = 1 << 16;
/** A line held longer than this is written with the next one. */
const HELD_MS = 1000;

/**
 * Console lines written to a terminal at once, and to a pipe or file a
 * few kilobytes at a time, as C's stdio does for cf-agent (a run of
 * 10,000 file resources prints 10,000 lines: one write each cost more than
 * the rest of their printing). Lines keep their order across stdout and
 * stderr: what is held for one stream is written before a line for the other.
 */
export class ConsoleLines {
  private held = "";
  private heldStderr = false;
  private heldSince = 0;
  private readonly tty: (boolean | undefined)[] = [undefined, undefined];

  constructor(
    private readonly out: (stderr: boolean) => (text: string) => void,
    private readonly isTTY: (stderr: boolean) => boolean,
  ) {}

  write(stderr: boolean, line: string): void {
    if (this.held !== "" && stderr !== this.heldStderr) this.flush();
    const stream = stderr ? 1 : 0;
    this.tty[stream] ??= this.isTTY(stderr);
    if (this.tty[stream]) {
      this.out(stderr)(line);
      return;
    }
    const now = monotonicMs();
    if (this.held === "") {
      this.heldStderr = stderr;
      this.heldSince = now;
    }
    this.held += line;
    if (this.held.length >= HELD_BYTES || now - this.heldSince >= HELD_MS) this.flush();
  }

  flush(): void {
    if (this.held === "") return;
    const text = this.held;
    this.held = "";
    this.out(this.heldStderr)(text);
  }
}
