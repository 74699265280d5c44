/**
 * Safe writes, for promised files and the agent's own state alike: the
 * new content goes to a temporary file
 * in the same directory and is renamed over the target, so a reader (and
 * the file after a crash of the agent) has the old file or the new one,
 * never half of one. A file the caller found absent can instead be linked
 * to its name and its temporary name removed: nothing that appeared there
 * since is replaced (see Replacing).
 *
 * The new content is flushed to disk before the rename only when it
 * replaces a non-empty file: then a crash of the whole system cannot
 * leave an empty file where there was content. A file created or filled
 * from empty needs no flush (after a system crash it is at worst as it
 * was), and the directory is not flushed (an unflushed rename leaves the
 * old file). cf-agent flushes none of these; flushing every file made
 * creating many files several times slower.
 *
 * A run killed between the write and the rename leaves its temporary
 * file; the next run writing into that directory removes it (see
 * stray-temporaries.ts).
 */
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fsync,
  fsyncSync,
  linkSync,
  lstatSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { basename, dirname } from "node:path";
import {
  checkedDirectory,
  directoriesMayHaveChanged,
  rememberCreated,
  unlinkSync as unlinkChecked,
} from "./safe-fs.js";
import { sweepStrayTemporaries } from "./stray-temporaries.js";

/**
 * Temporary names are `.tend-<pid>-<n>`, and a number is used again once
 * its file has been renamed or removed: a run writing a thousand files in
 * one directory creates and renames the same name each time. On ext4 that
 * costs ~12% less than a new name per file (`.<leaf>.tend-<pid>-<n>` until
 * session 18): the entry freed by the rename is the one the next create
 * takes again, so the directory's blocks are not touched anew each time.
 * Numbers in use (files staged together, a name someone planted) are not
 * handed out until they are given back.
 */
const freeNumbers: number[] = [];
let lastNumber = 0;

function takeNumber(): number {
  const reused = freeNumbers.pop();
  if (reused !== undefined) return reused;
  lastNumber += 1;
  return lastNumber;
}

/** Gives back `staged`'s number, its temporary file renamed or removed. */
function giveBack(staged: Staged): void {
  freeNumbers.push(staged.number);
}

function temporaryName(number: number): string {
  return `.tend-${process.pid}-${number}`;
}

/**
 * `path`'s directory and name, as dirname and basename give them; an
 * absolute path with a name after its last slash (what the providers
 * write) without their walk over each character, a thousand times a run.
 */
function splitPath(path: string): { parent: string; leaf: string } {
  const slash = path.lastIndexOf("/");
  if (
    slash > 0 &&
    slash < path.length - 1 &&
    path.charCodeAt(0) === 0x2f &&
    path.charCodeAt(slash - 1) !== 0x2f
  )
    return { parent: path.slice(0, slash), leaf: path.slice(slash + 1) };
  return { parent: dirname(path), leaf: basename(path) };
}

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;

/**
 * Replaces `path` with `data`, created with `mode`. Throws the system error
 * (ENOENT, EACCES...) when it cannot; the target is then left as it was and
 * the temporary file is removed. `beforeRename` gets the written temporary
 * file (to give it more of the old file's attributes); what it throws
 * aborts the replacement the same way.
 */
export function writeFileAtomically(
  path: string,
  data: string | Uint8Array,
  mode: number,
  owner?: { readonly uid: number; readonly gid: number },
  beforeRename?: (temporary: string) => void,
  replacing?: Replacing,
): void {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  fillFileAtomically(path, (fd) => writeAll(fd, bytes), mode, owner, beforeRename, replacing);
}

/** As writeFileAtomically, with the content given as pieces written one after the other. */
export function writeChunksAtomically(
  path: string,
  chunks: readonly Uint8Array[],
  mode: number,
  owner?: { readonly uid: number; readonly gid: number },
): void {
  fillFileAtomically(
    path,
    (fd) => {
      for (const chunk of chunks) writeAll(fd, chunk);
    },
    mode,
    owner,
  );
}

/**
 * What the caller knows is at the target: true, a non-empty file (its
 * replacement is flushed first); false, nothing or an empty file;
 * "nothing", nothing at all — the file is then only created, never put
 * over something that appeared since (link(2), not rename(2); which also
 * costs the kernel less): the call throws EEXIST from `link` instead, the
 * target as it was. Undefined: looked up.
 */
export type Replacing = boolean | "nothing";

/**
 * As writeFileAtomically, with the content written by `fill` into the
 * temporary file's descriptor (a copy streamed from another file, say).
 * `replacing`: see Replacing.
 */
export function fillFileAtomically(
  path: string,
  fill: (fd: number) => void,
  mode: number,
  owner?: { readonly uid: number; readonly gid: number },
  beforeRename?: (temporary: string) => void,
  replacing?: Replacing,
): void {
  const staged = stage(path, fill, mode, owner, replacing);
  if (staged.flush) {
    try {
      fsyncSync(staged.fd);
    } catch (error) {
      abandon(staged);
      throw error;
    }
  }
  commit(staged, beforeRename);
}

/** A file written to its temporary name, not yet renamed over its target. */
interface Staged {
  /** The temporary file, open; undefined for a link to another staged file (see stageLink). */
  readonly fd: number | undefined;
  readonly temporary: string;
  readonly target: string;
  /** Whether it replaces a non-empty file: its content is then flushed before the rename. */
  readonly flush: boolean;
  /**
   * Whether its target is known to be nothing or a regular file: else the
   * rename may replace a link on the way to a checked directory, which
   * safe-fs is then told (directoriesMayHaveChanged).
   */
  readonly overFile: boolean;
  /** The number in its temporary name, given back once that name is free again. */
  readonly number: number;
  /** Whether it is only to be created: see Replacing's "nothing". */
  readonly create: boolean;
  /** Its target's directory as the caller named it, and its name there (safe-fs's rememberCreated). */
  readonly parent: string;
  readonly leaf: string;
}

function stage(
  path: string,
  fill: (fd: number) => void,
  mode: number,
  owner: { readonly uid: number; readonly gid: number } | undefined,
  replacing: Replacing | undefined,
): Staged & { readonly fd: number } {
  const { parent, leaf } = splitPath(path);
  sweepStrayTemporaries(parent);
  // Both names in the directory as it was checked (no link another user
  // controls on the way), however the path changes meanwhile.
  const dir = checkedDirectory(parent, "open", path);
  const target = `${dir}/${leaf}`;
  const found = replacing === undefined ? lstatSync(target, { throwIfNoEntry: false }) : undefined;
  const create = replacing === "nothing";
  const flush = replacing === true || (replacing === undefined && (found?.size ?? 0) > 0);
  // `replacing` false: the caller saw nothing or an empty file (replaceContent), or
  // wants no flush (writeFilesAtomically: a run's records, written after the run).
  const overFile =
    replacing === false || create || (replacing === undefined && (found === undefined || found.isFile()));
  const { fd, temporary, number } = createTemporary(dir);
  const staged = { fd, temporary, target, flush, overFile, number, create, parent, leaf };
  try {
    // The mode exactly, whatever the umask; the owner of the file replaced.
    if (owner && (owner.uid !== process.getuid?.() || owner.gid !== process.getgid?.()))
      fchownSync(fd, owner.uid, owner.gid);
    fchmodSync(fd, mode);
    fill(fd);
  } catch (error) {
    abandon(staged);
    throw error;
  }
  return staged;
}

function abandon(staged: Staged): void {
  if (staged.fd !== undefined) closeSync(staged.fd);
  removeTemporary(staged);
}

function commit(staged: Staged, beforeRename?: (temporary: string) => void): void {
  if (staged.fd !== undefined) closeSync(staged.fd);
  let linked = false;
  try {
    // A path other processes can use too (the directory is held open by this one).
    beforeRename?.(staged.temporary.replace(/^\/proc\/self\//, `/proc/${process.pid}/`));
    if (!staged.overFile) directoriesMayHaveChanged();
    linked = staged.create && linkedInPlace(staged);
    if (!linked) renameSync(staged.temporary, staged.target);
  } catch (error) {
    removeTemporary(staged);
    throw error;
  }
  if (linked) removeTemporary(staged);
  else giveBack(staged);
  rememberCreated(staged.parent, staged.leaf);
}

/**
 * Links the staged file to its target's name: throws EEXIST when something
 * is there; false when the file system makes no hard links (vfat: EPERM),
 * for the rename instead.
 */
function linkedInPlace(staged: Staged): boolean {
  try {
    linkSync(staged.temporary, staged.target);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EPERM" || code === "ENOTSUP" || code === "EOPNOTSUPP" || code === "EMLINK") return false;
    throw error;
  }
}

/** One of the files writeFilesAtomically writes. */
export interface AtomicFile {
  readonly path: string;
  readonly chunks: readonly Uint8Array[];
  readonly mode: number;
  /**
   * false: never flushed, even when it replaces a non-empty file. For a
   * record rewritten at every run (a run report) that nothing depends on:
   * a crash of the system may leave it empty (on ext4, with its default
   * auto_da_alloc, the old one or the new one), and the next run writes
   * it again. A flush of a report of ten thousand resources costs more
   * than applying them does.
   */
  readonly flush?: false;
  /**
   * The index of an earlier file of the same call with the same content
   * and mode: this one is made a hard link to it (to its temporary file,
   * under a temporary name of its own, renamed over `path`), not written
   * again. Where no link can be made (another file system), it is written.
   * Later runs replace either name by a rename, never the shared file in
   * place, so the two never change together. For a report kept twice.
   */
  readonly sameAs?: number;
}

/**
 * Writes several files, each as writeChunksAtomically does (unless
 * `flush: false`), with their flushes made together: every file goes to its temporary name first, the
 * flushes they need run at once (on libuv's threads: a slow disk is waited
 * for once, not once per file), then each is renamed over its target.
 * Resolves with each file's error, undefined for a file written; a file
 * that fails is left as it was. Never rejects.
 */
export async function writeFilesAtomically(files: readonly AtomicFile[]): Promise<(Error | undefined)[]> {
  const staged: (Staged | Error)[] = [];
  files.forEach((file, i) => {
    const same = file.sameAs !== undefined && file.sameAs < i ? staged[file.sameAs] : undefined;
    const linked = same === undefined || same instanceof Error ? undefined : stageLink(file.path, same);
    staged.push(linked ?? stageFile(file));
  });
  const flushed = await Promise.all(
    staged.map((s) => {
      const fd = s instanceof Error || !s.flush ? undefined : s.fd;
      return fd === undefined
        ? undefined
        : new Promise<Error | undefined>((resolve) => fsync(fd, (error) => resolve(error ?? undefined)));
    }),
  );
  return staged.map((s, i) => {
    if (s instanceof Error) return s;
    // A link shares its file's flush.
    const error = flushed[s.fd === undefined ? (files[i]?.sameAs ?? i) : i];
    if (error) {
      abandon(s);
      return error;
    }
    try {
      commit(s);
      return undefined;
    } catch (failure) {
      return failure as Error;
    }
  });
}

function stageFile(file: AtomicFile): Staged | Error {
  try {
    return stage(
      file.path,
      (fd) => {
        for (const chunk of file.chunks) writeAll(fd, chunk);
      },
      file.mode,
      undefined,
      file.flush === false ? false : undefined,
    );
  } catch (error) {
    return error as Error;
  }
}

/**
 * `path` staged as a hard link to the staged file `of`: a temporary name
 * in `path`'s checked directory, renamed over it by commit. Undefined
 * when no link can be made (the caller then writes the file).
 */
function stageLink(path: string, of: Staged): Staged | undefined {
  try {
    const { parent, leaf } = splitPath(path);
    sweepStrayTemporaries(parent);
    const dir = checkedDirectory(parent, "link", path);
    for (let attempt = 1; ; attempt++) {
      const number = takeNumber();
      const temporary = `${dir}/${temporaryName(number)}`;
      try {
        linkSync(of.temporary, temporary);
        return {
          fd: undefined,
          temporary,
          target: `${dir}/${leaf}`,
          flush: false,
          overFile: false,
          number,
          create: false,
          parent,
          leaf,
        };
      } catch (error) {
        // A name taken is not handed out again; another failure left it free.
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") freeNumbers.push(number);
        if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= NAME_ATTEMPTS) throw error;
      }
    }
  } catch {
    return undefined;
  }
}

/** Attempts at a temporary name before giving up: names someone planted are passed over. */
const NAME_ATTEMPTS = 8;

/**
 * Creates a new temporary file in the checked directory `dir`: O_EXCL and
 * O_NOFOLLOW, so nothing another process put there (a file, a link to a
 * file of root's) is ever opened; a name taken is passed over for the next.
 */
function createTemporary(dir: string): { fd: number; temporary: string; number: number } {
  for (let attempt = 1; ; attempt++) {
    const number = takeNumber();
    const temporary = `${dir}/${temporaryName(number)}`;
    try {
      return { fd: openSync(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600), temporary, number };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") freeNumbers.push(number);
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= NAME_ATTEMPTS) throw error;
    }
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}

/** Removes a staged temporary file (a path in the checked directory) and gives back its number. */
function removeTemporary(staged: Staged): void {
  try {
    unlinkSync(staged.temporary);
  } catch (error) {
    // Still there: its name stays taken.
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") return;
  }
  giveBack(staged);
}

/** Removes a file if it is there, through a checked directory; a failure is ignored. */
export function unlinkQuietly(path: string): void {
  try {
    unlinkChecked(path);
  } catch {
    // Already gone, or behind a refused link: nothing to clean up.
  }
}
