/**
 * POSIX ACLs of files, through the system's ACL tools (`getfacl` and
 * `setfacl` of the acl package): Node cannot reach the extended attributes
 * where they live. An ACL is a list of entries, each a tag, for named
 * users and groups a numeric id, and `rwx` bits; the access ACL of every
 * file and the default ACL of a directory (empty when it has none).
 *
 * On failure (the tools are missing, the file system has no ACLs) the
 * functions return `{ error }` and change nothing more.
 */
import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";

export type AclTag = "user_obj" | "user" | "group_obj" | "group" | "mask" | "other";
export type AclKind = "access" | "default";

export interface AclEntry {
  readonly tag: AclTag;
  /** The uid or gid of a named user or group entry. */
  readonly id?: number;
  /** r=4, w=2, x=1. */
  readonly perms: number;
}

export interface RunResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a program (argv, no shell). */
export type Runner = (argv: readonly string[]) => RunResult;

export const runProgram: Runner = (argv) => {
  const run = spawnSync(argv[0], argv.slice(1), { encoding: "utf8" });
  if (run.error) return { status: null, stdout: "", stderr: run.error.message };
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
};

const ORDER: readonly AclTag[] = ["user_obj", "user", "group_obj", "group", "mask", "other"];

/** Entries in the order libacl keeps them: by tag, then by id. */
export function sortEntries(entries: readonly AclEntry[]): AclEntry[] {
  return [...entries].sort(
    (a, b) => ORDER.indexOf(a.tag) - ORDER.indexOf(b.tag) || (a.id ?? 0) - (b.id ?? 0),
  );
}

function parseLine(line: string): AclEntry | undefined {
  const m = /^(?:default:)?(user|group|mask|other):([^:]*):([r-][w-][x-])/.exec(line);
  if (!m) return undefined;
  const perms = (m[3][0] === "r" ? 4 : 0) | (m[3][1] === "w" ? 2 : 0) | (m[3][2] === "x" ? 1 : 0);
  const [, kind, qualifier] = m;
  if (kind === "mask" || kind === "other") return { tag: kind, perms };
  const tag: AclTag = qualifier === "" ? (kind === "user" ? "user_obj" : "group_obj") : (kind as AclTag);
  return qualifier === "" ? { tag, perms } : { tag, id: Number(qualifier), perms };
}

/** The ACL of `path` (numeric ids); the default ACL of a file that has none is empty. */
export function readAcl(
  path: string,
  kind: AclKind,
  run: Runner = runProgram,
): AclEntry[] | { error: string } {
  const flag = kind === "access" ? "--access" : "--default";
  const result = run(["getfacl", "--absolute-names", "--omit-header", "--numeric", flag, "--", path]);
  if (result.status !== 0) return { error: toolError("getfacl", result) };
  const entries: AclEntry[] = [];
  for (const line of result.stdout.split("\n")) {
    const entry = parseLine(line.trim());
    if (entry) entries.push(entry);
  }
  return sortEntries(entries);
}

/** Sets the ACL of `path`; an empty default ACL removes it. */
export function writeAcl(
  path: string,
  kind: AclKind,
  entries: readonly AclEntry[],
  run: Runner = runProgram,
): { error?: string } {
  const argv =
    kind === "default" && entries.length === 0
      ? ["setfacl", "--remove-default", "--", path]
      : [
          "setfacl",
          ...(kind === "default" ? ["--default"] : []),
          "--set",
          aclText(entries, String),
          "--",
          path,
        ];
  const result = run(argv);
  return result.status === 0 ? {} : { error: toolError("setfacl", result) };
}

function toolError(tool: string, result: RunResult): string {
  if (result.status === null)
    return `${tool} could not be run (${result.stderr.trim()}); install the acl package`;
  return result.stderr.trim().split("\n")[0] || `${tool} exited with code ${result.status}`;
}

function permsText(perms: number): string {
  return `${perms & 4 ? "r" : "-"}${perms & 2 ? "w" : "-"}${perms & 1 ? "x" : "-"}`;
}

/** The ACL as text, `user::rw-,user:alice:r--,...`, with ids shown by `name`. */
export function aclText(entries: readonly AclEntry[], name: (id: number, tag: AclTag) => string): string {
  return entries
    .map((e) => {
      const kind = e.tag === "user_obj" ? "user" : e.tag === "group_obj" ? "group" : e.tag;
      const qualifier = e.id === undefined ? "" : name(e.id, e.tag);
      return `${kind}:${qualifier}:${permsText(e.perms)}`;
    })
    .join(",");
}

/**
 * The mask entry set to what the named entries and the owning group may
 * have (libacl's acl_calc_mask: added when missing).
 */
export function withCalculatedMask(entries: readonly AclEntry[]): AclEntry[] {
  let perms = 0;
  for (const e of entries)
    if (e.tag === "user" || e.tag === "group" || e.tag === "group_obj") perms |= e.perms;
  return sortEntries([...entries.filter((e) => e.tag !== "mask"), { tag: "mask", perms }]);
}

/** Whether two ACLs have the same entries (3.21's ACLEquals). */
export function sameAcl(a: readonly AclEntry[], b: readonly AclEntry[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((x) => b.some((y) => y.tag === x.tag && y.id === x.id && y.perms === x.perms));
}

/**
 * What libacl's acl_check finds wrong with a complete ACL, at which entry:
 * the owner, owning group and other entries are required, and a mask once
 * there is a named entry.
 */
export function checkAcl(entries: readonly AclEntry[]): { index: number; message: string } | undefined {
  const sorted = sortEntries(entries);
  const has = (tag: AclTag) => sorted.some((e) => e.tag === tag);
  const seen = new Set<string>();
  for (const [index, e] of sorted.entries()) {
    const key = `${e.tag}:${e.id ?? ""}`;
    if (seen.has(key)) return { index, message: "Duplicate entries" };
    seen.add(key);
  }
  const named = sorted.some((e) => e.tag === "user" || e.tag === "group");
  const missing = ORDER.find((tag) =>
    tag === "mask" ? named && !has(tag) : !has(tag) && !/^(user|group)$/.test(tag),
  );
  if (missing === undefined) return undefined;
  const index = Math.max(
    0,
    sorted.findIndex((e) => ORDER.indexOf(e.tag) > ORDER.indexOf(missing)),
  );
  return { index, message: "Missing or wrong entry" };
}

/** Whether the ACL is only the owner, owning group and other entries (the mode bits). */
export function isMinimal(entries: readonly AclEntry[]): boolean {
  return entries.every((e) => e.tag === "user_obj" || e.tag === "group_obj" || e.tag === "other");
}

/**
 * Gives `destination` the extended ACLs of `source` (its access ACL when
 * it has entries beyond the mode bits, its default ACL when it has one), as
 * copying their extended attributes would: a source with no extended ACL
 * (or on a file system or system without ACLs) changes nothing. Returns
 * whether the destination changed, or the error that kept it from it.
 */
export function copyAcl(
  source: string,
  destination: string,
  run: Runner = runProgram,
): { changed: boolean; error?: string } {
  let changed = false;
  const directory = statSync(source, { throwIfNoEntry: false })?.isDirectory() ?? false;
  for (const kind of directory ? (["access", "default"] as const) : (["access"] as const)) {
    const wanted = readAcl(source, kind, run);
    if ("error" in wanted) return { changed };
    if (kind === "access" ? isMinimal(wanted) : wanted.length === 0) continue;
    const current = readAcl(destination, kind, run);
    if (!("error" in current) && sameAcl(current, wanted)) continue;
    const written = writeAcl(destination, kind, wanted, run);
    if (written.error !== undefined) return { changed, error: written.error };
    changed = true;
  }
  return { changed };
}
