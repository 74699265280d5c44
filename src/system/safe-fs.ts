/**
 * Changes to the file system that never cross a link an unprivileged user
 * controls: the primitives every front end's file operations go through.
 *
 * A path is opened component by component from `/`, as cf-agent 3.21's
 * safe_open does: each component is looked at without following it
 * (lstat), then opened, then looked at again through the open descriptor
 * (fstat). A symbolic link is followed only when it is owned by root or
 * by the user running tend, or when its target has the same owner and
 * group as the link itself; anything else must be opened without
 * following (O_NOFOLLOW) and be the very object lstat saw. Otherwise the
 * call fails with ENOLINK ("Link has been severed"), cf-agent's error.
 *
 * The change itself is then made relative to the directory descriptor
 * that was checked (through `/proc/self/fd/N/leaf`, Linux's way of giving
 * openat(2) semantics to path-based calls): swapping a directory for a
 * link after the check cannot redirect it, because the descriptor still
 * names the directory that was checked. Leaves are never followed where
 * the call has a form that does not follow (unlink, rename, lchown,
 * creation with O_EXCL|O_NOFOLLOW); where it must follow (chmod, chown,
 * utimes, truncation), the leaf is opened with the same checks and the
 * change made on the descriptor.
 *
 * Checked directories are kept open, at most `PINNED_MAX` of them, and
 * reused only while their path still leads to the same directory (one
 * stat): the walk costs ~60 µs for a five-component path, and a run
 * writes many files in few directories. Reusing one is safe even when
 * the path changed since: the change lands in the directory the walk
 * trusted. The stat is there so that a directory replaced since (by a
 * command, by tend itself) is not written through: the file would land
 * in the old one. Within a catalog run (reuseCheckedDirectories), a
 * directory looked at is not looked at again until something may have
 * replaced one: a rename or removal through this module, a file written
 * over something other than nothing or a file (atomic.ts), and whatever
 * the applier runs but file resources (directoriesMayHaveChanged): the
 * thousand files of one directory cost one stat, not a thousand. A
 * directory another process replaces in the middle of a run of file
 * resources is noticed at the next such point, not at the next file.
 *
 * In a catalog run, a directory reached only through directories that
 * root and the user running tend alone may write to (or sticky ones, for
 * their own entries), and through no link, is used by its path: nobody
 * else can put anything else there, and the kernel is spared a /proc link
 * per call. Its walk is done again after anything that may change who can
 * write (a command, a mode or owner changed through this module).
 *
 * Without /proc (a chroot without it), each component is checked the
 * same way and the change made by path: refused links are still
 * refused, but a swap between the check and the change is not caught.
 *
 * Every function throws as its node:fs namesake does (an Error with
 * `code`, `syscall` and `path`), so callers keep their error handling.
 */
import {
  closeSync,
  constants,
  copyFileSync as copyFileByPath,
  existsSync,
  fchmodSync,
  fchownSync,
  fstatSync,
  ftruncateSync,
  futimesSync,
  linkSync as linkByPath,
  lchownSync as lchownByPath,
  lstatSync,
  mkdirSync as mkdirByPath,
  openSync as openByPath,
  readdirSync,
  readlinkSync,
  renameSync as renameByPath,
  rmdirSync as rmdirByPath,
  type Stats,
  statSync,
  symlinkSync as symlinkByPath,
  unlinkSync as unlinkByPath,
  chmodSync as chmodByPath,
  truncateSync as truncateByPath,
  utimesSync as utimesByPath,
} from "node:fs";

const {
  O_RDONLY,
  O_WRONLY,
  O_RDWR,
  O_CREAT,
  O_EXCL,
  O_TRUNC,
  O_APPEND,
  O_NOFOLLOW,
  O_NONBLOCK,
  O_DIRECTORY,
} = constants;

const PINNED_MAX = 64;
/**
 * This process's descriptors under /proc, by the pid that /proc gives it
 * (read once from the `/proc/self` link): through `self`, every call
 * would have the kernel follow that link again, three times for each file
 * a run writes (~0.35 µs each).
 */
const PROC_FD = procFd();

function procFd(): string | undefined {
  try {
    const pid = readlinkSync("/proc/self");
    if (/^\d+$/.test(pid) && existsSync(`/proc/${pid}/fd`)) return `/proc/${pid}/fd`;
  } catch {
    // No /proc, or one that has no `self`: as below.
  }
  return existsSync("/proc/self/fd") ? "/proc/self/fd" : undefined;
}

interface Pinned {
  readonly fd: number;
  /** Whether its walk found it held by root and this user (walkDirectory): see checkedDirectory. */
  readonly held: boolean;
  /** The trustEpoch of its walk. */
  readonly epoch: number;
  readonly dev: number;
  readonly ino: number;
  /** The generation in which its path was last seen to lead to it. */
  seen: number;
}

/** Checked directories by path, oldest first (a Map keeps insertion order). */
const pinned = new Map<string, Pinned>();

/** Counts the moments something may have replaced a directory; see checkedDirectory. */
let generation = 0;
/**
 * Counts the moments something may have changed who can write to a
 * directory (a command, a mode or owner changed, a rename): a directory
 * found held by root and this user before is walked again (checkedDirectory).
 * Each also counts as a generation.
 */
let trustEpoch = 0;

function trustMayHaveChanged(): void {
  generation++;
  trustEpoch++;
}
/** How many catalog runs (reuseCheckedDirectories) are under way. */
let reusing = 0;

/**
 * Says that a directory may have been replaced since the checked ones were
 * last looked at: a command ran, a resource of a kind that does not go
 * through this module was applied. Each is looked at again on its next use.
 */
export function directoriesMayHaveChanged(): void {
  trustMayHaveChanged();
}

/**
 * Runs `fn`, in which a checked directory whose path was seen to lead to
 * it is used without looking again until directoriesMayHaveChanged (or a
 * change through this module) says something may have replaced it. For
 * the applier, which says so around everything it runs but file
 * resources; outside, every use of a checked directory looks again.
 */
export async function reuseCheckedDirectories<T>(fn: () => Promise<T>): Promise<T> {
  trustMayHaveChanged();
  reusing++;
  try {
    return await fn();
  } finally {
    reusing--;
    trustMayHaveChanged();
    if (reusing === 0) listings.clear();
  }
}

/**
 * The names directories held when tend last read them in a catalog run, by
 * the directory's path, and the generation they were read in: knownAbsent.
 */
const listings = new Map<string, { readonly names: Set<string>; readonly generation: number }>();

/**
 * Records the names just read from `dir` (the first write into a directory
 * reads it anyway, for leftovers: stray-temporaries.ts). In a catalog run
 * only; forgotten when anything is removed or may have changed.
 */
export function rememberListing(dir: string, names: Iterable<string>): void {
  if (reusing > 0) listings.set(dir, { names: new Set(names), generation });
}

/** Records that tend made `leaf` in `dir` (see knownAbsent). */
export function rememberCreated(dir: string, leaf: string): void {
  listings.get(dir)?.names.add(leaf);
}

/**
 * Whether `path` (absolute) is known to hold nothing without looking at it:
 * its directory was read in this run, nothing was removed nor may have
 * changed since, and neither was the name there nor did tend make it. A
 * thousand new files in one directory cost no lstat each. Another
 * process (root's: see heldByUs) may still have made it since: a caller
 * acting on the answer creates the file only if nothing is there (link(2),
 * see atomic.ts's `replacing: "nothing"`) and looks again if something is.
 */
export function knownAbsent(path: string): boolean {
  if (reusing === 0 || listings.size === 0) return false;
  const slash = path.lastIndexOf("/");
  // Paths as the kernel would walk them differently (`//`, `.`, `..`) are looked at.
  if (slash <= 0 || path.includes("//") || path.includes("/.")) return false;
  const listing = listings.get(path.slice(0, slash));
  if (listing === undefined || listing.generation !== generation) return false;
  const leaf = path.slice(slash + 1);
  return leaf !== "" && !listing.names.has(leaf);
}

/** The error of a link that may not be followed, shaped as node:fs errors are. */
export function severedLinkError(syscall: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOLINK: link has been severed, ${syscall} '${path}'`), {
    code: "ENOLINK",
    errno: -67,
    syscall,
    path,
  });
}

function effectiveUid(): number {
  return process.geteuid?.() ?? -1;
}

/**
 * Whether the link lstat saw (`before`) may be followed to what it leads
 * to (`after`): cf-agent's rule. (A component that is not a link must be
 * the very object opened: see openSeen.)
 */
function mayFollow(before: Stats, after: Stats): boolean {
  if (before.uid === 0 || before.uid === effectiveUid()) return true;
  return before.uid === after.uid && before.gid === after.gid;
}

/**
 * Whether the link lstat saw at `path` as `link` may be followed to where
 * it leads now (a dangling link leads nowhere to write to: it may).
 */
export function mayFollowLinkAt(path: string, link: Stats): boolean {
  const reached = statSync(path, { throwIfNoEntry: false });
  return !reached || mayFollow(link, reached);
}

/**
 * Opens `at`, which lstat saw as `before`, and makes sure the object
 * opened is the one allowed: a link is followed only as mayFollow says;
 * anything else is opened without following (O_NOFOLLOW) and must be the
 * very object lstat saw. Otherwise someone swapped it in between: a
 * directory of root's made here, say, replaced by a link to another of
 * root's, which the owner rule alone would let through.
 */
function openSeen(at: string, before: Stats, flags: number, syscall: string, reported: string): number {
  const link = before.isSymbolicLink();
  let fd: number;
  try {
    fd = openByPath(at, link ? flags : flags | O_NOFOLLOW);
  } catch (error) {
    // It became a link since lstat (or a link that cannot be a directory).
    if ((error as NodeJS.ErrnoException).code === "ELOOP") throw severedLinkError(syscall, reported);
    throw error;
  }
  const after = fstatSync(fd);
  const allowed = link ? mayFollow(before, after) : before.dev === after.dev && before.ino === after.ino;
  if (allowed) return fd;
  closeSync(fd);
  throw severedLinkError(syscall, reported);
}

/** The components of an absolute or relative path, as the kernel walks them. */
function componentsOf(path: string): string[] {
  const absolute = path.startsWith("/") ? path : `${process.cwd()}/${path}`;
  return absolute.split("/").filter((p) => p !== "" && p !== ".");
}

/**
 * Whether no one but root and this user can put something else at the
 * entry `child` saw in the directory `parent` saw: the entry is not a
 * link, the directory is theirs and nobody else may write to it — or it
 * is sticky (/tmp) and the entry is theirs, which others may then neither
 * rename nor remove. (Write access an ACL gives shows in the group bits.)
 */
function heldByUs(parent: Stats, child: Stats): boolean {
  if (child.isSymbolicLink() || !ownedByUs(parent)) return false;
  return (parent.mode & 0o022) === 0 || ((parent.mode & 0o1000) !== 0 && ownedByUs(child));
}

function ownedByUs(stats: Stats): boolean {
  return stats.uid === 0 || stats.uid === effectiveUid();
}

/**
 * Opens the directory `dir` through checked components; the caller closes
 * the descriptor. `held`: whether its absolute path, walked by the
 * kernel, leads to the same directory for as long as root and this user
 * leave it so (see heldByUs): calls may then use the path itself.
 */
function walkDirectory(dir: string, syscall: string, reported: string): { fd: number; held: boolean } {
  const parts = componentsOf(dir);
  let fd = openByPath("/", O_RDONLY | O_DIRECTORY);
  try {
    let held = dir.charCodeAt(0) === 0x2f;
    let parent = held ? fstatSync(fd) : undefined;
    for (const part of parts) {
      const at = `${PROC_FD}/${fd}/${part}`;
      const before = lstatSync(at);
      if (parent !== undefined) {
        held = part !== ".." && heldByUs(parent, before);
        parent = held ? before : undefined;
      }
      const next = openSeen(at, before, O_RDONLY | O_DIRECTORY, syscall, reported);
      closeSync(fd);
      fd = next;
    }
    return { fd, held };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Without /proc: the same checks by path (no descriptor to hold the result). */
function checkDirectoryByPath(dir: string, syscall: string, reported: string): void {
  const parts = componentsOf(dir);
  let prefix = "";
  for (const part of parts) {
    prefix += `/${part}`;
    const before = lstatSync(prefix);
    if (!before.isSymbolicLink()) continue;
    if (!mayFollow(before, statSync(prefix))) throw severedLinkError(syscall, reported);
  }
}

function samePlace(a: Pinned, b: Stats | undefined): boolean {
  return b !== undefined && b.dev === a.dev && b.ino === a.ino;
}

/**
 * A path through which `dir` can be reached as it was checked: the
 * checked directory's descriptor under /proc, or `dir` itself without
 * /proc. Throws ENOLINK (a refused link), ENOENT, ENOTDIR...
 *
 * In a catalog run, a directory whose walk found it held by root and this
 * user alone (walkDirectory's `held`) is given as `dir` itself, until
 * something may have changed: the kernel then has no /proc link to follow
 * at each call (1,000 new files: ~8 ms less CPU under load, ~3 ms on a
 * quiet machine). That finding is only as old as its walk: once anything
 * may have changed (a command, a change of mode or owner through this
 * module), the directory is walked again rather than looked at.
 */
export function checkedDirectory(dir: string, syscall = "open", reported = dir): string {
  const key = dir === "" ? "." : dir;
  if (!PROC_FD) {
    checkDirectoryByPath(key, syscall, reported);
    return key;
  }
  const known = pinned.get(key);
  if (known) {
    // What a walk found about who may write is as old as the walk: in a
    // run, a directory found held by us is walked again once that may have changed.
    const again = reusing > 0 && known.held && known.epoch !== trustEpoch;
    if (
      // (A relative path depends on the working directory too: looked at every time.)
      (reusing > 0 && known.seen === generation && key.charCodeAt(0) === 0x2f) ||
      (!again && samePlace(known, statSync(key, { throwIfNoEntry: false })))
    ) {
      known.seen = generation;
      pinned.delete(key);
      pinned.set(key, known);
      return reachedBy(key, known);
    }
    pinned.delete(key);
    closeSync(known.fd);
  }
  const { fd, held } = walkDirectory(key, syscall, reported);
  const stats = fstatSync(fd);
  const entry = { fd, held, epoch: trustEpoch, dev: stats.dev, ino: stats.ino, seen: generation };
  pinned.set(key, entry);
  if (pinned.size > PINNED_MAX) evictOldest();
  return reachedBy(key, entry);
}

function reachedBy(key: string, entry: Pinned): string {
  return reusing > 0 && entry.held && entry.epoch === trustEpoch ? key : `${PROC_FD}/${entry.fd}`;
}

function evictOldest(): void {
  for (const [key, entry] of pinned) {
    pinned.delete(key);
    closeSync(entry.fd);
    return;
  }
}

/** `path` split into its directory and last component (trailing slashes dropped). */
function splitLeaf(path: string): { dir: string; leaf: string } {
  let trimmed = path;
  while (trimmed.length > 1 && trimmed.endsWith("/")) trimmed = trimmed.slice(0, -1);
  const slash = trimmed.lastIndexOf("/");
  if (slash < 0) return { dir: ".", leaf: trimmed };
  return { dir: slash === 0 ? "/" : trimmed.slice(0, slash), leaf: trimmed.slice(slash + 1) };
}

/**
 * The path through which the object `path` itself (not followed) is
 * reached in its checked directory. For `x/.` and `x/..` the object is
 * the directory reached, opened through the checks.
 */
export function checkedPath(path: string, syscall = "open"): string {
  const { dir, leaf } = splitLeaf(path);
  if (isSelf(leaf)) return checkedDirectory(path, syscall, path);
  return `${checkedDirectory(dir, syscall, path)}/${leaf}`;
}

/**
 * Opens the object at `path` following a trusted link at the leaf (as
 * cf-agent's safe_open does); the caller closes the descriptor. A FIFO
 * is opened without blocking. Throws ENOLINK for a refused link.
 */
export function openChecked(path: string, flags: number, syscall: string): number {
  const at = checkedPath(path, syscall);
  return openSeen(at, lstatSync(at), flags | O_NONBLOCK, syscall, path);
}

/**
 * Runs `onFd` on the object at `path`, opened through the checks. Sockets
 * cannot be opened, nor can a file this user may not read: `byPath` then
 * changes it through its checked directory, once the leaf is seen not to
 * be a link (root reads everything, so only sockets take this way).
 */
function onDescriptor(
  path: string,
  syscall: string,
  onFd: (fd: number) => void,
  byPath: (checked: string) => void,
  flags = O_RDONLY,
): void {
  let fd: number;
  try {
    fd = openChecked(path, flags, syscall);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENXIO" && code !== "EACCES") throw error;
    const at = checkedPath(path, syscall);
    if (lstatSync(at).isSymbolicLink()) throw error;
    byPath(at);
    return;
  }
  try {
    onFd(fd);
  } finally {
    closeSync(fd);
  }
}

/** chmod(2) through the checks, following a trusted link at the leaf. */
export function chmodSync(path: string, mode: number): void {
  onDescriptor(
    path,
    "chmod",
    (fd) => {
      fchmodSync(fd, mode);
      changedIfDirectory(fstatSync(fd));
    },
    (at) => {
      chmodByPath(at, mode);
      trustMayHaveChanged();
    },
  );
}

/**
 * Called with what a change of mode or owner left (`stats`): a directory
 * that others may now write to decides that the directories below it may
 * no longer be reached by their paths (checkedDirectory). One left to root
 * and this user alone changes nothing there (a recursive copy sets the
 * mode of each directory it makes).
 */
function changedIfDirectory(stats: Stats | undefined): void {
  if (stats === undefined) trustMayHaveChanged();
  else if (stats.isDirectory() && !(ownedByUs(stats) && (stats.mode & 0o022) === 0)) trustMayHaveChanged();
}

/** chown(2) through the checks, following a trusted link at the leaf. */
export function chownSync(path: string, uid: number, gid: number): void {
  onDescriptor(
    path,
    "chown",
    (fd) => {
      fchownSync(fd, uid, gid);
      changedIfDirectory(fstatSync(fd));
    },
    (at) => {
      lchownByPath(at, uid, gid);
      trustMayHaveChanged();
    },
  );
}

/** lchown(2) in the checked directory: a link at the leaf is changed itself. */
export function lchownSync(path: string, uid: number, gid: number): void {
  const at = checkedPath(path, "lchown");
  lchownByPath(at, uid, gid);
  changedIfDirectory(lstatSync(at, { throwIfNoEntry: false }));
}

/** utimes(2) through the checks, following a trusted link at the leaf. */
export function utimesSync(path: string, atime: number | Date, mtime: number | Date): void {
  onDescriptor(
    path,
    "utime",
    (fd) => futimesSync(fd, atime, mtime),
    (at) => utimesByPath(at, atime, mtime),
  );
}

/** truncate(2) through the checks, following a trusted link at the leaf. */
export function truncateSync(path: string, length = 0): void {
  onDescriptor(
    path,
    "open",
    (fd) => ftruncateSync(fd, length),
    (at) => truncateByPath(at, length),
    O_WRONLY,
  );
}

export function unlinkSync(path: string): void {
  generation++;
  unlinkByPath(checkedPath(path, "unlink"));
}

export function rmdirSync(path: string): void {
  generation++;
  rmdirByPath(checkedPath(path, "rmdir"));
}

export function renameSync(from: string, to: string): void {
  trustMayHaveChanged();
  const [source, destination] = checkedPair(from, to, "rename");
  renameByPath(source, destination);
}

/**
 * Two checked paths at once. One directory named twice is checked once:
 * checking it again could find it changed and close the descriptor the
 * first path names.
 */
function checkedPair(a: string, b: string, syscall: string): [string, string] {
  const first = splitLeaf(a);
  const second = splitLeaf(b);
  if (first.dir !== second.dir || isSelf(first.leaf) || isSelf(second.leaf)) {
    return [checkedPath(a, syscall), checkedPath(b, syscall)];
  }
  const dir = checkedDirectory(first.dir, syscall, a);
  return [`${dir}/${first.leaf}`, `${dir}/${second.leaf}`];
}

function isSelf(leaf: string): boolean {
  return leaf === "" || leaf === "." || leaf === "..";
}

/** link(2): the existing object is not followed (as Linux's link does not). */
export function linkSync(existing: string, path: string): void {
  const [source, destination] = checkedPair(existing, path, "link");
  linkByPath(source, destination);
}

export function symlinkSync(target: string, path: string): void {
  symlinkByPath(target, checkedPath(path, "symlink"));
}

/** mkdir(2) in the checked directory; `recursive` makes each missing level the same way. */
export function mkdirSync(path: string, options?: number | { mode?: number; recursive?: boolean }): void {
  const mode = typeof options === "number" ? options : (options?.mode ?? 0o777);
  if (typeof options === "object" && options.recursive) {
    makeDirectories(path, mode);
    return;
  }
  mkdirByPath(checkedPath(path, "mkdir"), mode);
}

function makeDirectories(path: string, mode: number): void {
  const { dir, leaf } = splitLeaf(path);
  if (isSelf(leaf)) return;
  try {
    checkedDirectory(dir, "mkdir", path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT" || dir === path) throw error;
    makeDirectories(dir, mode);
  }
  const at = checkedPath(path, "mkdir");
  try {
    mkdirByPath(at, mode);
  } catch (error) {
    // Already there as a directory (or a link to one): as node:fs's recursive mkdir.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST" || !statSync(at).isDirectory()) throw error;
  }
}

/** node:fs flag strings of the forms the file code uses. */
function numericFlags(flags: string | number): number {
  if (typeof flags === "number") return flags;
  const table: Record<string, number> = {
    r: O_RDONLY,
    "r+": O_RDWR,
    w: O_WRONLY | O_CREAT | O_TRUNC,
    wx: O_WRONLY | O_CREAT | O_EXCL,
    "w+": O_RDWR | O_CREAT | O_TRUNC,
    a: O_WRONLY | O_CREAT | O_APPEND,
    ax: O_WRONLY | O_CREAT | O_APPEND | O_EXCL,
  };
  const value = table[flags];
  if (value === undefined) throw new TypeError(`unsupported open flags '${flags}'`);
  return value;
}

/**
 * open(2) through the checks. A new file is created exclusively and
 * never through a link; an existing one is opened following a trusted
 * link, and truncated only after the check (as cf-agent's safe_open).
 */
export function openSync(path: string, flags: string | number, mode = 0o666): number {
  const wanted = numericFlags(flags);
  const at = checkedPath(path, "open");
  const exists = lstatSync(at, { throwIfNoEntry: false }) !== undefined;
  if (!exists && wanted & O_CREAT) return openByPath(at, wanted | O_EXCL | O_NOFOLLOW, mode);
  if (exists && wanted & O_CREAT && wanted & O_EXCL) {
    throw Object.assign(new Error(`EEXIST: file already exists, open '${path}'`), {
      code: "EEXIST",
      syscall: "open",
      path,
    });
  }
  const fd = openChecked(path, wanted & ~(O_CREAT | O_EXCL | O_TRUNC), "open");
  if (wanted & O_TRUNC) ftruncateSync(fd, 0);
  return fd;
}

/**
 * copyFile(3): the destination opened through the checks (created, or
 * replaced in place following a trusted link), the source read as given.
 */
export function copyFileSync(source: string, destination: string, mode = 0): void {
  const exclusive = (mode & constants.COPYFILE_EXCL) !== 0;
  const fd = openSync(destination, exclusive ? "wx" : "w", 0o666);
  try {
    copyFileByPath(source, `${PROC_FD ?? "/dev/fd"}/${fd}`);
  } finally {
    closeSync(fd);
  }
}

/**
 * Removes `path` and, for a directory (never a link to one), everything
 * in it, each level through a checked directory. `force`: a missing
 * path is no error.
 */
export function rmSync(path: string, options?: { recursive?: boolean; force?: boolean }): void {
  generation++;
  const at = checkedPath(path, "rm");
  const stats = lstatSync(at, { throwIfNoEntry: false });
  if (!stats) {
    if (options?.force) return;
    lstatSync(at);
    return;
  }
  if (!stats.isDirectory()) {
    unlinkByPath(at);
    return;
  }
  if (options?.recursive) {
    for (const name of readdirSync(at)) rmSync(`${path}/${name}`, options);
  }
  rmdirByPath(checkedPath(path, "rm"));
}
