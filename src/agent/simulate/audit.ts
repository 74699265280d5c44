/**
 * What `--simulate` shows when the run is over, worded and laid out as 3.21
 * shows it (its simulate_mode.c):
 *
 * - `manifest`: renames, then each changed object as it now stands in the
 *   chroot (type, size, mode, owner, times, then the contents of a file,
 *   the target of a link or the entries of a directory);
 * - `manifest-full`: the same, then every object evaluated and found as
 *   promised;
 * - `diff`: renames, then `diff -u` (the work directory's `bin/diff`)
 *   between each real object and its copy in the chroot (a new object is
 *   manifested instead).
 *
 * Each entry starts with a line of `=` (the terminal width less 5, at least
 * 75). An object is shown once, however often it was recorded.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, readlinkSync, type Stats } from "node:fs";
import { join } from "node:path";
import { AccountDatabase } from "../../providers/files/accounts.js";
import type { Logger } from "../../system/logger.js";
import type { ChangesChroot } from "../../promises/simulate/changes-chroot.js";
import { auditPackageOperations } from "../../promises/packages/simulate-audit.js";
import { lstatOrUndefined } from "../../providers/files/inspect.js";

export interface AuditOptions {
  /** Where the run's own tools are (`$(sys.bindir)`): its `diff` is used when there is one. */
  readonly bindir: string;
  /** `COLUMNS` of the environment, for the width of the delimiter lines. */
  readonly columns?: string;
}

/**
 * Shows the chroot's records: the text goes to `write` piece by piece, so
 * that log lines (to `log`) come out where they belong among it.
 */
export function auditChanges(
  chroot: ChangesChroot,
  log: Logger,
  options: AuditOptions,
  write: (text: string) => void,
): void {
  const audit = new Audit(chroot, log, options, write);
  if (chroot.renames.length > 0) {
    log.info("Manifesting renamed files (in the changes chroot)");
    for (const [from, to] of chroot.renames) audit.rename(from, to);
  }
  if (chroot.mode === "diff") {
    audit.list(chroot.changed, "changed", "show diff for", "Showing diff for", (p) => audit.diff(p));
  } else {
    audit.list(chroot.changed, "changed", "manifest", "Manifesting", (p) => audit.manifest(p, true));
    if (chroot.mode === "manifest-full") {
      audit.list(chroot.evaluated, "unmodified", "manifest", "Manifesting", (p) => audit.manifest(p, true));
    }
  }
  auditPackageOperations(chroot.root, chroot.mode === "diff" ? "diff" : "manifest", log, write);
}

class Audit {
  private readonly audited = new Set<string>();
  private readonly delimiter: string;
  /** Users and groups, read once per audit (the run may have added some). */
  private readonly accounts = new AccountDatabase();

  constructor(
    private readonly chroot: ChangesChroot,
    private readonly log: Logger,
    private readonly options: AuditOptions,
    private readonly write: (text: string) => void,
  ) {
    const columns = Number.parseInt(options.columns ?? "", 10);
    this.delimiter = `${"=".repeat(Math.max(Number.isNaN(columns) ? 0 : columns, 80) - 5)}\n`;
  }

  list(
    paths: readonly string[],
    category: string,
    action: string,
    acting: string,
    show: (p: string) => void,
  ) {
    if (paths.length === 0) {
      this.log.info(`No ${category} files to ${action}`);
      return;
    }
    this.log.info(`${acting} ${category} files (in the changes chroot)`);
    for (const path of paths) {
      if (this.audited.has(path)) continue;
      this.audited.add(path);
      show(path);
    }
  }

  rename(from: string, to: string): void {
    this.write(`${this.delimiter}'${to}' is the new name of '${from}'\n`);
  }

  manifest(path: string, chrooted: boolean): void {
    this.write(this.delimiter);
    const real = chrooted ? this.chroot.toChroot(path) : path;
    const stats = lstatOrUndefined(real);
    if (!stats) {
      this.write(`'${path}' no longer exists\n`);
      return;
    }
    this.write(`'${path}' is a ${typeDescription(stats)}\n${statInfo(stats, this.accounts)}`);
    this.details(real, stats, chrooted);
  }

  diff(path: string): void {
    const original = lstatOrUndefined(path);
    if (!original) {
      // A new object: nothing to compare it with.
      this.manifest(path, true);
      return;
    }
    this.write(this.delimiter);
    const chrooted = this.chroot.toChroot(path);
    const changed = lstatOrUndefined(chrooted);
    if (!changed) {
      this.write(`'${path}' no longer exists\n`);
      return;
    }
    const type = typeDescription(changed);
    if (typeDescription(original) !== type) {
      this.write(
        `'${path}' changed type from ${typeDescription(original)} to ${type}\n${statInfo(changed, this.accounts)}`,
      );
      // 3.21 shows the details of the original path here.
      this.details(path, changed, true);
    } else if (changed.isFile() || changed.isDirectory()) {
      this.runDiff(path, chrooted);
    } else {
      this.write(`'${path}' is a ${type}\n${statInfo(changed, this.accounts)}`);
      this.details(path, changed, true);
    }
  }

  private details(path: string, stats: Stats, chrooted: boolean): void {
    if (stats.isFile()) this.write(`\n${fileContents(path, this.log)}`);
    else if (stats.isSymbolicLink()) this.write(`\n${this.linkTarget(path, chrooted)}`);
    else if (stats.isDirectory()) this.write(`\n${directoryListing(path, this.log)}`);
  }

  private linkTarget(path: string, chrooted: boolean): string {
    try {
      const target = readlinkSync(path);
      const shown = chrooted && target.startsWith("/") ? this.chroot.toNormal(target) : target;
      return `Target: '${shown}'\n`;
    } catch {
      return "Invalid target\n";
    }
  }

  private runDiff(path: string, chrooted: string): void {
    // 3.21 runs the diff of its own bin directory, and no other.
    const diff = join(this.options.bindir, "diff");
    if (!existsSync(diff)) {
      this.log.error(`Couldn't run '${diff}'. (execv: No such file or directory)`);
      return;
    }
    const args = ["-u", "--label", `original ${path}`, "--label", `changed  ${path}`, path, chrooted];
    const run = spawnSync(diff, args, { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
    if (run.stdout) this.write(run.stdout);
    if (run.status === 2 || run.error) this.log.error(`'diff -u ${path} ${chrooted}' failed`);
  }
}

function typeDescription(stats: Stats): string {
  if (stats.isBlockDevice()) return "block device";
  if (stats.isCharacterDevice()) return "character device";
  if (stats.isDirectory()) return "directory";
  if (stats.isFIFO()) return "FIFO/pipe";
  if (stats.isSymbolicLink()) return "symbolic link";
  if (stats.isFile()) return "regular file";
  if (stats.isSocket()) return "socket";
  return "unknown";
}

/** Size, mode, owner and times, as the `stat` command shows them. */
function statInfo(stats: Stats, accounts: AccountDatabase): string {
  const mode = stats.mode;
  let text = `Size: ${stats.size}\n`;
  text += `Access: (${(mode & 0o7777).toString(8).padStart(4, "0")}/${modeString(mode)})  `;
  const user = accounts.userName(stats.uid);
  if (user !== undefined) text += `Uid: (${stats.uid}/${user})   `;
  const group = accounts.groupName(stats.gid);
  if (group !== undefined) text += `Gid: (${stats.gid}/${group})\n`;
  text += `Access: ${timestamp(stats.atime)}\n`;
  text += `Modify: ${timestamp(stats.mtime)}\n`;
  text += `Change: ${timestamp(stats.ctime)}\n`;
  return text;
}

function modeString(mode: number): string {
  const bit = (mask: number, c: string) => (mode & mask ? c : "-");
  const special = (exec: number, flag: number, set: string, unset: string) =>
    mode & flag ? (mode & exec ? set : unset) : mode & exec ? "x" : "-";
  return (
    bit(0o400, "r") +
    bit(0o200, "w") +
    special(0o100, 0o4000, "s", "S") +
    bit(0o040, "r") +
    bit(0o020, "w") +
    special(0o010, 0o2000, "s", "S") +
    bit(0o004, "r") +
    bit(0o002, "w") +
    special(0o001, 0o1000, "t", "T")
  );
}

/** Local time as `%Y-%m-%d %H:%M:%S %z`. */
function timestamp(date: Date): string {
  const two = (n: number) => String(n).padStart(2, "0");
  const offset = -date.getTimezoneOffset();
  const zone = `${offset < 0 ? "-" : "+"}${two(Math.floor(Math.abs(offset) / 60))}${two(Math.abs(offset) % 60)}`;
  const day = `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}`;
  return `${day} ${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())} ${zone}`;
}

/** 3.21 reads in blocks of 4096 bytes and stops at the first block holding a byte above 127. */
const BLOCK = 4096;

function fileContents(path: string, log: Logger): string {
  let data: Buffer;
  try {
    data = readFileSync(path);
  } catch (error) {
    log.error(`Failed to open file for reading: ${(error as NodeJS.ErrnoException).message}`);
    return "";
  }
  let text = "Contents of the file:\n";
  for (let start = 0; start < data.length; start += BLOCK) {
    const block = data.subarray(start, start + BLOCK);
    if (block.some((byte) => byte > 127)) return `${text}File contains non-ASCII data\n`;
    text += block.toString("latin1");
  }
  if (data.length > 0 && data[data.length - 1] !== 0x0a) text += "\n\\no newline at the end of file\n";
  return text;
}

function directoryListing(path: string, log: Logger): string {
  try {
    return `Directory contents:\n${readdirSync(path)
      .map((name) => `${name}\n`)
      .join("")}`;
  } catch (error) {
    log.error(`Failed to open the directory: ${(error as NodeJS.ErrnoException).message}`);
    return "";
  }
}
