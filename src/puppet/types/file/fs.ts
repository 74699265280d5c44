/**
 * The acting primitives the Puppet file types use, with the signatures of
 * the shared files provider (src/providers/files). TEMPORARY: until that
 * provider lands on main this file carries minimal stand-ins; then it
 * becomes re-exports of the provider and nothing here acts on its own.
 */
import {
  chmodSync,
  cpSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  type Stats,
  statSync,
  symlinkSync,
  unlinkSync,
} from "node:fs";
import { join } from "node:path";
import type { Change, ProviderResult } from "../../../providers/change.js";
import { writeFileAtomically } from "../../../system/atomic.js";

export type FileKind = "file" | "directory" | "link" | "other" | "absent";

export interface FileState {
  readonly path: string;
  readonly kind: FileKind;
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly target?: string;
  readonly stats?: Stats;
}

export interface FileResult extends ProviderResult {
  readonly cause?: NodeJS.ErrnoException;
}

function kindOf(stats: Stats | undefined): FileKind {
  if (!stats) return "absent";
  if (stats.isFile()) return "file";
  if (stats.isDirectory()) return "directory";
  if (stats.isSymbolicLink()) return "link";
  return "other";
}

export function inspectPath(path: string, options: { readonly follow?: boolean } = {}): FileState {
  let stats: Stats | undefined;
  try {
    stats = options.follow
      ? statSync(path, { throwIfNoEntry: false })
      : lstatSync(path, { throwIfNoEntry: false });
  } catch {
    stats = undefined;
  }
  const kind = kindOf(stats);
  if (!stats) return { path, kind, mode: 0, uid: 0, gid: 0, size: 0, mtimeMs: 0 };
  const target = kind === "link" ? readlinkSync(path) : undefined;
  return {
    path,
    kind,
    mode: stats.mode & 0o7777,
    uid: stats.uid,
    gid: stats.gid,
    size: stats.size,
    mtimeMs: stats.mtimeMs,
    target,
    stats,
  };
}

export interface Ownership {
  readonly uid?: number;
  readonly gid?: number;
}

export function replaceContent(
  path: string,
  data: string | Uint8Array,
  options: { readonly mode?: number; readonly owner?: Ownership } = {},
  known?: Stats | null,
): void {
  const found = known === undefined ? inspectPath(path, { follow: true }).stats : (known ?? undefined);
  const mode = options.mode ?? (found ? found.mode & 0o7777 : 0o644);
  const uid = options.owner?.uid ?? found?.uid;
  const gid = options.owner?.gid ?? found?.gid;
  const owner = uid === undefined && gid === undefined ? undefined : { uid: uid ?? 0, gid: gid ?? 0 };
  writeFileAtomically(path, data, mode, owner);
}

export function createSymlink(path: string, target: string): void {
  symlinkSync(target, path);
}

function failed(error: unknown, what: string): FileResult {
  const cause = error as NodeJS.ErrnoException;
  return { status: "failed", changes: [], error: `${what}: ${cause.message}`, cause };
}

function made(changes: Change[]): FileResult {
  return changes.length ? { status: "changed", changes } : { status: "unchanged", changes: [] };
}

export function removePath(path: string, options: { readonly recursive?: boolean } = {}): FileResult {
  const found = inspectPath(path);
  if (found.kind === "absent") return made([]);
  try {
    if (found.kind !== "directory") unlinkSync(path);
    else rmSync(path, { recursive: options.recursive ?? false });
  } catch (error) {
    return failed(error, "unlink");
  }
  return made([{ property: "ensure", old: found.kind, message: `removed ${found.kind}`, applied: true }]);
}

export function makeDirectory(path: string, mode: number): void {
  mkdirSync(path, mode);
  chmodSync(path, mode);
}

export function setMode(path: string, wanted: number): FileResult {
  try {
    chmodSync(path, wanted & 0o7777);
  } catch (error) {
    return failed(error, "chmod");
  }
  return made([{ property: "mode", new: wanted.toString(8), message: "mode changed", applied: true }]);
}

export function setOwner(path: string, wanted: Ownership): FileResult {
  try {
    lchownSync(path, wanted.uid ?? -1, wanted.gid ?? -1);
  } catch (error) {
    return failed(error, "lchown");
  }
  return made([{ property: "owner", message: "owner changed", applied: true }]);
}

/** Copies a file, link or tree, keeping modes and times (Puppet's `.puppet-bak` copies). */
export function copyPreserving(from: string, to: string): void {
  cpSync(from, to, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
}

type Database = ReadonlyMap<string, number>;

function readDatabase(file: string): Database {
  const ids = new Map<string, number>();
  try {
    for (const line of readFileSync(file, "utf8").split("\n")) {
      const [name, , id] = line.split(":");
      if (name && id !== undefined && /^\d+$/.test(id) && !ids.has(name)) ids.set(name, Number(id));
    }
  } catch {
    // No database: only numeric ids resolve.
  }
  return ids;
}

export class AccountDatabase {
  private users?: Database;
  private groups?: Database;
  constructor(private readonly root = "/") {}
  userId(name: string): number | undefined {
    this.users ??= readDatabase(join(this.root, "etc/passwd"));
    return /^\d+$/.test(name) ? Number(name) : this.users.get(name);
  }
  groupId(name: string): number | undefined {
    this.groups ??= readDatabase(join(this.root, "etc/group"));
    return /^\d+$/.test(name) ? Number(name) : this.groups.get(name);
  }
  userName(uid: number): string | undefined {
    this.users ??= readDatabase(join(this.root, "etc/passwd"));
    for (const [name, id] of this.users) if (id === uid) return name;
    return undefined;
  }
  groupName(gid: number): string | undefined {
    this.groups ??= readDatabase(join(this.root, "etc/group"));
    for (const [name, id] of this.groups) if (id === gid) return name;
    return undefined;
  }
}
