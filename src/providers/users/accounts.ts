/**
 * The local account databases as the users provider reads them: the
 * passwd, shadow and group files under a root directory (`/` for the
 * running system), parsed the way glibc's fgetpwent/fgetspent/fgetgrent
 * read them. Only local files are read, never NSS (LDAP and the like), as
 * cf-agent 3.21 does. Parsing is pure; reading returns a failure as data.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface PasswdEntry {
  readonly name: string;
  readonly passwd: string;
  readonly uid: number;
  readonly gid: number;
  readonly gecos: string;
  readonly dir: string;
  readonly shell: string;
}

export interface ShadowEntry {
  readonly name: string;
  readonly hash: string;
  /** The expiry date field, in days since 1970-01-01 ("" when the account does not expire). */
  readonly expire: string;
}

export interface GroupEntry {
  readonly name: string;
  readonly gid: number;
  readonly members: readonly string[];
}

/** The numeric field of an entry, or undefined when it is not a plain number. */
function numberField(text: string): number | undefined {
  return /^\d+$/.test(text) ? Number(text) : undefined;
}

/** The lines of a database that hold entries (blank lines and comments skipped, as glibc does). */
function entryLines(text: string): string[] {
  return text.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("#"));
}

/** Entries of a passwd file, in order; lines that do not parse are skipped. */
export function parsePasswd(text: string): PasswdEntry[] {
  const entries: PasswdEntry[] = [];
  for (const line of entryLines(text)) {
    const f = line.split(":");
    if (f.length < 7) continue;
    const uid = numberField(f[2] as string);
    const gid = numberField(f[3] as string);
    if (uid === undefined || gid === undefined) continue;
    const [name, passwd, , , gecos, dir] = f as [string, string, string, string, string, string];
    entries.push({ name, passwd, uid, gid, gecos, dir, shell: f.slice(6).join(":") });
  }
  return entries;
}

/** Entries of a shadow file: the name and the password hash of each. */
export function parseShadow(text: string): ShadowEntry[] {
  const entries: ShadowEntry[] = [];
  for (const line of entryLines(text)) {
    const f = line.split(":");
    if (f.length < 2) continue;
    entries.push({ name: f[0] as string, hash: f[1] as string, expire: f[7] ?? "" });
  }
  return entries;
}

/** Entries of a group file, in order; lines that do not parse are skipped. */
export function parseGroup(text: string): GroupEntry[] {
  const entries: GroupEntry[] = [];
  for (const line of entryLines(text)) {
    const f = line.split(":");
    if (f.length < 4) continue;
    const gid = numberField(f[2] as string);
    if (gid === undefined) continue;
    const members = f
      .slice(3)
      .join(":")
      .split(",")
      .filter((m) => m !== "");
    entries.push({ name: f[0] as string, gid, members });
  }
  return entries;
}

/** A database read, or why it could not be. */
export type ReadResult<T> =
  | { readonly ok: true; readonly entries: T[] }
  | { readonly ok: false; readonly error: string };

/** The path of a database under the root, and the path messages name (as on the system). */
export function databasePath(root: string, name: "passwd" | "shadow" | "group"): string {
  return join(root, "etc", name);
}

function readDatabase<T>(
  root: string,
  name: "passwd" | "shadow" | "group",
  parse: (text: string) => T[],
): ReadResult<T> {
  try {
    return { ok: true, entries: parse(readFileSync(databasePath(root, name), "utf8")) };
  } catch (error) {
    return { ok: false, error: describeError(error) };
  }
}

/** An error of a system call as strerror words it ("No such file or directory"). */
export function describeError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const known: Record<string, string> = {
    ENOENT: "No such file or directory",
    EACCES: "Permission denied",
    EISDIR: "Is a directory",
    ENOTDIR: "Not a directory",
  };
  return (code && known[code]) ?? (error instanceof Error ? error.message : String(error));
}

export const readPasswd = (root: string): ReadResult<PasswdEntry> =>
  readDatabase(root, "passwd", parsePasswd);
export const readShadow = (root: string): ReadResult<ShadowEntry> =>
  readDatabase(root, "shadow", parseShadow);
export const readGroups = (root: string): ReadResult<GroupEntry> => readDatabase(root, "group", parseGroup);
