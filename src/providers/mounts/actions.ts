/**
 * The provider's changes: mount, unmount, mount everything the table
 * lists, and edits of the file system table kept until saved. Each
 * inspects, acts unless in a dry run, and returns what changed (or would
 * change) as data; none of them throws.
 */
import {
  type CommandResult,
  type CommandRunner,
  MOUNT_COMMAND,
  UMOUNT_COMMAND,
  firstLine,
  runCommand,
  saysBusy,
} from "./commands.js";
import {
  type FstabEntry,
  formatFstabEntry,
  hasMountPoint,
  readFstab,
  removeEntries,
  writeFstab,
} from "./fstab.js";

/** One change made (or, in a dry run, that would be made). */
export interface MountChange {
  readonly property: "mounted" | "fstab";
  readonly old?: string;
  readonly new?: string;
  readonly message: string;
  /** False in a dry run and for a change that failed. */
  readonly applied: boolean;
}

export interface ActOptions {
  /** Inspect only: change nothing, say what would change. */
  readonly dryRun: boolean;
  readonly run?: CommandRunner;
}

/**
 * What became of a mount or unmount: `done` (the program ran and said
 * nothing of a busy device), `busy`, `failed` (it could not be run, or
 * exited non-zero), `dry-run`.
 */
export type MountStatus = "done" | "busy" | "failed" | "dry-run";

export interface MountResult {
  readonly status: MountStatus;
  /** The first line the program printed, if any. */
  readonly firstLine?: string;
  readonly result?: CommandResult;
  readonly change?: MountChange;
}

/** RPC time-out of the agents' mount commands, in seconds. */
export const MOUNT_TIMEOUT = 60;

const PAST: Record<string, string> = {
  mount: "mounted",
  unmount: "unmounted",
  "mount all": "mounted all of",
};

function act(
  argv: readonly string[],
  options: ActOptions,
  property: MountChange["property"],
  target: string,
): MountResult {
  const verb = argv.includes("-va") ? "mount all" : argv[0] === UMOUNT_COMMAND ? "unmount" : "mount";
  if (options.dryRun)
    return {
      status: "dry-run",
      change: { property, old: undefined, new: target, message: `would ${verb} '${target}'`, applied: false },
    };
  const result = (options.run ?? runCommand)(argv, MOUNT_TIMEOUT);
  const line = firstLine(result.output);
  const busy = line !== undefined && saysBusy(line);
  const status: MountStatus = busy
    ? "busy"
    : result.error !== undefined || result.status !== 0
      ? "failed"
      : "done";
  const message =
    status === "done"
      ? `${PAST[verb]} '${target}'`
      : `could not ${verb} '${target}'${line ? `: ${line}` : ""}`;
  return {
    status,
    firstLine: line,
    result,
    change: {
      property,
      new: verb === "unmount" ? undefined : target,
      old: verb === "unmount" ? target : undefined,
      message,
      applied: status === "done",
    },
  };
}

/** Runs a mount command (argv as the front end builds it) unless in a dry run. */
export function mountFilesystem(argv: readonly string[], target: string, options: ActOptions): MountResult {
  return act(argv, options, "mounted", target);
}

/** Unmounts `target` unless in a dry run. */
export function unmountFilesystem(
  target: string,
  options: ActOptions,
  command = UMOUNT_COMMAND,
): MountResult {
  return act([command, target], options, "mounted", target);
}

/** Mounts everything the file system table lists (`mount -va`); the lines it printed. */
export function mountAll(
  options: ActOptions,
  command = MOUNT_COMMAND,
): { status: MountStatus; lines: string[] } {
  const outcome = act([command, "-va"], options, "mounted", "all");
  const output = outcome.result?.output ?? "";
  return { status: outcome.status, lines: output === "" ? [] : output.replace(/\n$/, "").split("\n") };
}

/**
 * Edits of the file system table, read once and kept (with the count of
 * edits) until saved: the agents read it at the first edit of a run and
 * write it back once at the end of their storage promises.
 */
export class FstabEdits {
  private lines: string[] | undefined;
  /** Edits since the table was read. */
  edits = 0;

  constructor(readonly path: string) {}

  /** Reads the table unless it is read already; the error when it cannot be read. */
  load(): string | undefined {
    if (this.lines) return undefined;
    try {
      this.lines = readFstab(this.path);
      this.edits = 0;
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  }

  /** The table as it stands with the edits (empty before `load`). */
  current(): readonly string[] {
    return this.lines ?? [];
  }

  has(mountPoint: string): boolean {
    return hasMountPoint(this.current(), mountPoint);
  }

  /** Adds an entry for a mount point no entry names yet; undefined when one does. */
  add(entry: FstabEntry): MountChange | undefined {
    if (!this.lines || this.has(entry.file)) return undefined;
    const line = formatFstabEntry(entry);
    this.lines.push(line);
    this.edits += 1;
    return { property: "fstab", new: line, message: `add '${line}' to '${this.path}'`, applied: false };
  }

  /** Removes the entries for a mount point; one change for each line removed. */
  remove(mountPoint: string): MountChange[] {
    if (!this.lines || !this.has(mountPoint)) return [];
    const { lines, removed } = removeEntries(this.lines, mountPoint);
    this.lines = lines;
    this.edits += removed.length;
    return removed.map((line) => ({
      property: "fstab",
      old: line,
      message: `remove '${line}' from '${this.path}'`,
      applied: false,
    }));
  }

  /**
   * Writes the table back if it was edited, unless in a dry run (then the
   * edits are kept, as the agents keep them); the error when it cannot.
   */
  save(dryRun: boolean): { saved: boolean; error?: string } {
    if (this.edits === 0 || !this.lines || dryRun) return { saved: false };
    try {
      writeFstab(this.lines, this.path);
    } catch (error) {
      return { saved: false, error: (error as Error).message };
    }
    this.lines = undefined;
    this.edits = 0;
    return { saved: true };
  }
}
