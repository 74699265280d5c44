/**
 * The files provider: the one place that acts on files, for every front
 * end (CFEngine's `files` promises, Puppet's `file` resources, recipes).
 * It knows nothing of any front end's attributes or wording.
 *
 * Every acting operation follows the provider contract
 * (src/providers/change.ts): it inspects the path, compares it with what
 * is wanted, changes it unless `noop`, and returns a FileResult: a
 * ProviderResult (`unchanged`, `changed` or `failed`, with the Change of
 * each property as data: `ensure`, `content`, `mode`, `owner`, `group`,
 * `target`) plus the node:fs error behind a failure (`cause`, with its
 * `code` and `syscall`) so a front end can word it its own way. In noop
 * the changes are reported with `applied: false` and nothing is touched.
 * Operations never throw for a system error; they fail as data.
 *
 * Every change goes through system/safe-fs.ts: no link another user
 * controls is followed on the way, and content is written atomically
 * (system/atomic.ts: temporary file + rename).
 *
 * What is there
 *   inspectPath(path, { digest?, follow? })  kind file/directory/link/other/absent,
 *     mode, uid, gid, size, mtimeMs, link target, content digest (md5, sha256...)
 *   fileDigest, dataDigest, lstatOrUndefined, statOrUndefined, readLinkOrUndefined
 *
 * Ensure operations (inspect, diff, change unless noop)
 *   ensureContent(path, data, { mode, owner, keepAcl, replace, force, backup, digest, noop })
 *     a regular file with this content; `replace: false` only creates
 *   ensureCopy(source, dest, { preserve, mode, owner, replace, force, backup, digest, noop })
 *     a copy of a regular file, compared byte by byte, holes kept
 *   ensureDirectory(path, { mode, owner, parents, backup, noop })
 *   ensureSymlink(path, target, { force, backup, noop })  replaces a wrong link or a
 *     file; a directory only with `force`
 *   removePath(path, { recursive, backup, noop })
 *   setMode(path, mode, { current, noop })      numeric; parseModeString/applyMode read
 *     `"0644"`, `"644"`, `"u+rwx,go-w"` into the bits to set
 *   setOwner(path, { uid, gid }, { current, noop })  never through a link (lchown)
 *   renamePath(from, to, { noop }), touchPath(path, { when, noop })
 *   AccountDatabase: user and group names to ids and back (passwd, group files)
 *   walkTree(root, { maxDepth, followLinks, skip, order, digest })  entries under a root,
 *     depth first, for recursion and purging (remove each extra with removePath)
 *
 * A front end managing a whole file composes them: ensureContent or
 * ensureCopy (or ensureDirectory, ensureSymlink, removePath) for `ensure`
 * and content, then setMode and setOwner with the state inspectPath gives
 * afterwards, and concatenates the changes (combineResults).
 *
 * Primitives (throw the system error; for front ends that word each step)
 *   replaceContent, contentMatches, contentsDiffer, copyFileSparse,
 *   createDirectories, makeDirectory, followedKind, createSymlink, createHardLink,
 *   copyPreserving (a file, link or tree with modes, times and owners: backups),
 *   truncateFile, rotateFile (numbered copies `path.1`..., as log rotation),
 *   createEmptyFile (O_EXCL), createFifo, resolveLinkChain (trusted links only)
 *
 * Backups: a BackupHook is called with the FileState of what is about to
 * be replaced or removed; what it throws stops the operation (failed).
 * CFEngine's `.cfsaved` copies and repository, Puppet's filebucket, are
 * each front end's own hook.
 */
export * from "./accounts.js";
export * from "./content.js";
export * from "./copy.js";
export * from "./directory.js";
export * from "./errors.js";
export * from "./inspect.js";
export * from "./link.js";
export * from "./mode.js";
export * from "./owner.js";
export * from "./remove.js";
export * from "./rename.js";
export * from "./special.js";
export * from "./result.js";
export * from "./walk.js";
