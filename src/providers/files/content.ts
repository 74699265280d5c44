/**
 * A file's content: compared without reading more of the file than the
 * wanted content and one byte, and replaced atomically (a temporary file
 * beside it, renamed over it: see system/atomic.ts) with the replaced
 * file's mode, owner and POSIX ACL kept unless others are given.
 */
import { closeSync, openSync, readSync, type Stats, statSync } from "node:fs";
import { writeFileAtomically } from "../../system/atomic.js";
import { copyAcl } from "../acl/posix-acl.js";
import { dataDigest, type DigestAlgorithm, type FileState, inspectPath } from "./inspect.js";
import type { Ownership } from "./owner.js";
import { removePath } from "./remove.js";
import { type ActOptions, change, changedWith, type FileResult, failedWith, UNCHANGED } from "./result.js";

/**
 * Called with what is there before it is replaced or removed (Puppet's
 * filebucket, CFEngine's `.cfsaved` copies and repository). What it
 * throws stops the operation, which then fails with that error.
 */
export type BackupHook = (found: FileState) => void;

/** Whether the file at `path` holds exactly `expected`. Throws the system error. */
export function contentMatches(path: string, expected: Uint8Array): boolean {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(expected.length + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const n = readSync(fd, buffer, filled, buffer.length - filled, filled);
      filled += n;
      // A short read of a regular file is its end: no second call to learn it.
      if (n === 0 || filled < buffer.length) break;
    }
    return filled === expected.length && buffer.subarray(0, filled).equals(expected);
  } finally {
    closeSync(fd);
  }
}

export interface ReplaceOptions {
  /** Mode of the new file; default: the replaced file's, else 0644. */
  readonly mode?: number;
  /** Owner of the new file; default: the replaced file's, else the running user. */
  readonly owner?: Ownership;
  /** Give the new file the replaced file's POSIX ACL (as cf-agent keeps extended attributes). */
  readonly keepAcl?: boolean;
  /**
   * Called with the written temporary file before it replaces `path`
   * (Puppet's `validate_cmd`); what it throws leaves `path` as it was.
   */
  readonly validate?: (temporary: string) => void;
  /**
   * With `found` null (the caller found nothing there): create the file
   * only, never over something that appeared since; the call then throws
   * EEXIST from `link` (atomic.ts's Replacing "nothing").
   */
  readonly createOnly?: boolean;
}

/**
 * Writes `data` to `path` atomically (see system/atomic.ts), following no
 * untrusted link on the way. Throws the system error; `path` is then as
 * it was. `found` is the replaced file's stat when the caller has it,
 * null when the caller knows there is none (undefined: it is looked up).
 */
export function replaceContent(
  path: string,
  data: string | Uint8Array,
  options: ReplaceOptions = {},
  known?: Stats | null,
): void {
  const found = known === undefined ? statOrNothing(path) : (known ?? undefined);
  const mode = options.mode ?? (found ? found.mode & 0o7777 : 0o644);
  const owner = ownerOf(options.owner, found);
  const keepAcl = options.keepAcl && found !== undefined;
  const beforeRename =
    options.validate || keepAcl
      ? (temporary: string) => {
          options.validate?.(temporary);
          if (!keepAcl) return;
          const copied = copyAcl(path, temporary);
          if (copied.error !== undefined) throw new Error(`setfacl: ${copied.error}`);
        }
      : undefined;
  // What was there is known when the caller looked (`known`): a replaced file's size says whether to flush.
  const replacing =
    known === undefined
      ? undefined
      : known === null && options.createOnly
        ? "nothing"
        : found !== undefined && (found.size > 0 || !found.isFile());
  writeFileAtomically(path, data, mode, owner, beforeRename, replacing);
}

function ownerOf(
  wanted: Ownership | undefined,
  found: Stats | undefined,
): { uid: number; gid: number } | undefined {
  const uid = wanted?.uid ?? found?.uid;
  const gid = wanted?.gid ?? found?.gid;
  if (uid === undefined && gid === undefined) return undefined;
  return { uid: uid ?? process.getuid?.() ?? 0, gid: gid ?? process.getgid?.() ?? 0 };
}

function statOrNothing(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

export interface ContentOptions extends ActOptions, ReplaceOptions {
  /** Only create the file: an existing file's content is left alone (Puppet's `replace => false`). */
  readonly replace?: boolean;
  /** Replace a directory in the way (removed recursively); without it that fails with EISDIR. */
  readonly force?: boolean;
  /** Called before an existing object is replaced. */
  readonly backup?: BackupHook;
  /** Name content in changes by this digest (`{md5}…`); without it, old and new are left out. */
  readonly digest?: DigestAlgorithm;
  /** What the caller has just found at the path (inspectPath, not following): not looked at again. */
  readonly found?: FileState;
}

/**
 * Makes `path` a regular file holding `data`: created when absent (with
 * `mode` and `owner` at once: no separate mode change), replaced when its
 * content differs (keeping its mode, owner and, with `keepAcl`, ACL unless
 * given). A link or other object in the way is replaced by the file, a
 * directory only with `force`. Changes: `ensure` (absent or another kind
 * to `file`) or `content`.
 */
export function ensureContent(
  path: string,
  data: string | Uint8Array,
  options: ContentOptions = {},
): FileResult {
  const found = options.found ?? inspectPath(path);
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  if (found.kind === "file") return updateContent(found, bytes, options);
  if (found.kind === "directory" && !options.force) {
    return failedWith(
      Object.assign(new Error(`EISDIR: is a directory, open '${path}'`), { code: "EISDIR" }),
      "open",
    );
  }
  const made =
    found.kind === "absent"
      ? change("ensure", "absent", "file", "created", options.noop)
      : change("ensure", found.kind, "file", `replaced ${found.kind} with a file`, options.noop);
  if (options.noop) return changedWith([made]);
  if (found.kind !== "absent") {
    const removed = removePath(path, { recursive: true, backup: options.backup });
    if (removed.status === "failed") return removed;
  }
  try {
    replaceContent(path, bytes, options, null);
  } catch (error) {
    return failedWith(error, "open");
  }
  return changedWith([made]);
}

function updateContent(found: FileState, bytes: Uint8Array, options: ContentOptions): FileResult {
  if (options.replace === false) return UNCHANGED;
  try {
    if (contentMatches(found.path, bytes)) return UNCHANGED;
  } catch (error) {
    return failedWith(error, "open");
  }
  const algorithm = options.digest;
  const old = algorithm
    ? `{${algorithm}}${inspectPath(found.path, { digest: algorithm }).digest ?? ""}`
    : undefined;
  const wanted = algorithm ? `{${algorithm}}${dataDigest(bytes, algorithm)}` : undefined;
  const message = old ? `content changed '${old}' to '${wanted}'` : "content changed";
  const made = change("content", old, wanted, message, options.noop);
  if (options.noop) return changedWith([made]);
  try {
    options.backup?.(found);
    replaceContent(found.path, bytes, options, found.stats);
  } catch (error) {
    return failedWith(error, "open");
  }
  return changedWith([made]);
}
