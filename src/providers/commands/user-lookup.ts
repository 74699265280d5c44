/**
 * The user and group databases, read through `getent` (so NSS sources count,
 * as for 3.21's getpwent) with /etc/passwd and /etc/group as fallback.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

export interface PasswdEntry {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
  readonly gecos: string;
  readonly home: string;
  readonly shell: string;
}

export interface GroupEntry {
  readonly name: string;
  readonly gid: number;
}

function getent(database: string, key?: string): string | undefined {
  const run = spawnSync("getent", key === undefined ? [database] : [database, key], {
    encoding: "utf8",
    timeout: 30_000,
  });
  if (run.error) return undefined;
  // Exit 2 means "not found": an empty answer, not a failure to ask.
  return run.status === 0 || run.status === 2 ? run.stdout : undefined;
}

function readDatabase(database: "passwd" | "group", key?: string): string[][] {
  let textOut = getent(database, key);
  if (textOut === undefined) {
    try {
      textOut = readFileSync(`/etc/${database}`, "utf8");
    } catch {
      textOut = "";
    }
  }
  return textOut
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => line.split(":"));
}

function toPasswd(fields: string[]): PasswdEntry {
  const [name, , uid, gid, gecos = "", home = "", shell = ""] = fields;
  return { name, uid: Number(uid), gid: Number(gid), gecos, home, shell };
}

/** Every user, in database order. */
export function listUsers(): PasswdEntry[] {
  return readDatabase("passwd").map(toPasswd);
}

/** A user by name, or by number where no user has that name (as `getent` answers). */
export function findUser(nameOrId: string): PasswdEntry | undefined {
  if (nameOrId === "") return undefined;
  const byKey = readDatabase("passwd", nameOrId).map(toPasswd);
  return byKey.find((u) => u.name === nameOrId) ?? byKey.find((u) => String(u.uid) === nameOrId);
}

export function findUserById(uid: number): PasswdEntry | undefined {
  return findUser(String(uid));
}

/** A group by name, or by number where no group has that name. */
export function findGroup(nameOrId: string): GroupEntry | undefined {
  if (nameOrId === "") return undefined;
  const groups = readDatabase("group", nameOrId).map(([name, , gid]) => ({ name, gid: Number(gid) }));
  return groups.find((g) => g.name === nameOrId) ?? groups.find((g) => String(g.gid) === nameOrId);
}
