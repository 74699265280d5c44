/**
 * Safe writes, for promised files and the agent's own state alike: the
 * new content goes to a temporary file
 * in the same directory and is renamed over the target, so a reader (and
 * the file after a crash of the agent) has the old file or the new one,
 * never half of one.
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
import { checkedDirectory, directoriesMayHaveChanged, unlinkSync as unlinkChecked } from "./safe-fs.js";
import { sweepStrayTemporaries } from "./stray-temporaries.js";

let counter = 0;

/** The temporary name of a file named `leaf`. */
function temporaryName(leaf: string): string {
  counter += 1;
  return `.${leaf}.tend-${process.pid}-${counter}`;
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
  replacing?: boolean,
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
 * As writeFileAtomically, with the content written by `fill` into the
 * temporary file's descriptor (a copy streamed from another file, say).
 * `replacing`: whether a non-empty file is being replaced (its content is
 * then flushed first), when the caller has just looked; else it is looked up.
 */
export function fillFileAtomically(
  path: string,
  fill: (fd: number) => void,
  mode: number,
  owner?: { readonly uid: number; readonly gid: number },
  beforeRename?: (temporary: string) => void,
  replacing?: boolean,
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
}

function stage(
  path: string,
  fill: (fd: number) => void,
  mode: number,
  owner: { readonly uid: number; readonly gid: number } | undefined,
  replacing: boolean | undefined,
): Staged & { readonly fd: number } {
  const { parent, leaf } = splitPath(path);
  sweepStrayTemporaries(parent);
  // Both names in the directory as it was checked (no link another user
  // controls on the way), however the path changes meanwhile.
  const dir = checkedDirectory(parent, "open", path);
  const target = `${dir}/${leaf}`;
  const found = replacing === undefined ? lstatSync(target, { throwIfNoEntry: false }) : undefined;
  const flush = replacing ?? (found?.size ?? 0) > 0;
  // `replacing` false: the caller saw nothing or an empty file (replaceContent), or
  // wants no flush (writeFilesAtomically: a run's records, written after the run).
  const overFile =
    replacing === false || (replacing === undefined && (found === undefined || found.isFile()));
  const { fd, temporary } = createTemporary(dir, leaf);
  const staged = { fd, temporary, target, flush, overFile };
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
  removeTemporary(staged.temporary);
}

function commit(staged: Staged, beforeRename?: (temporary: string) => void): void {
  if (staged.fd !== undefined) closeSync(staged.fd);
  try {
    // A path other processes can use too (the directory is held open by this one).
    beforeRename?.(staged.temporary.replace(/^\/proc\/self\//, `/proc/${process.pid}/`));
    if (!staged.overFile) directoriesMayHaveChanged();
    renameSync(staged.temporary, staged.target);
  } catch (error) {
    removeTemporary(staged.temporary);
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
      const temporary = `${dir}/${temporaryName(leaf)}`;
      try {
        linkSync(of.temporary, temporary);
        return {
          fd: undefined,
          temporary,
          target: `${dir}/${leaf}`,
          flush: false,
          overFile: false,
        };
      } catch (error) {
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
function createTemporary(dir: string, leaf: string): { fd: number; temporary: string } {
  for (let attempt = 1; ; attempt++) {
    const temporary = `${dir}/${temporaryName(leaf)}`;
    try {
      return { fd: openSync(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600), temporary };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= NAME_ATTEMPTS) throw error;
    }
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}

/** Removes our temporary file (already a path in the checked directory). */
function removeTemporary(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone: nothing to clean up.
  }
}

/** Removes a file if it is there, through a checked directory; a failure is ignored. */
export function unlinkQuietly(path: string): void {
  try {
    unlinkChecked(path);
  } catch {
    // Already gone, or behind a refused link: nothing to clean up.
  }
}
