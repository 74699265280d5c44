/**
 * Users and groups by name, read from /etc/passwd and /etc/group (Node has
 * no getpwnam); numbers are taken as ids directly.
 */
import { readFileSync } from "node:fs";

type Database = ReadonlyMap<string, number>;

const cache = new Map<string, Database>();

function readDatabase(file: string): Database {
  const cached = cache.get(file);
  if (cached) return cached;
  const ids = new Map<string, number>();
  try {
    for (const line of readFileSync(file, "utf8").split("\n")) {
      const [name, , id] = line.split(":");
      if (name && id !== undefined && /^\d+$/.test(id) && !ids.has(name)) ids.set(name, Number(id));
    }
  } catch {
    // No database: only numeric ids resolve.
  }
  cache.set(file, ids);
  return ids;
}

function lookup(file: string, name: string): number | undefined {
  if (/^\d+$/.test(name)) return Number(name);
  return readDatabase(file).get(name);
}

/** A user's id, or undefined when there is no such user. */
export function userId(name: string): number | undefined {
  return lookup("/etc/passwd", name);
}

/** A group's id, or undefined when there is no such group. */
export function groupId(name: string): number | undefined {
  return lookup("/etc/group", name);
}

function reverse(file: string, id: number): string | undefined {
  for (const [name, value] of readDatabase(file)) if (value === id) return name;
  return undefined;
}

/** The name of the user with this id, or undefined when none has it. */
export function userName(uid: number): string | undefined {
  return reverse("/etc/passwd", uid);
}

/** The name of the group with this id, or undefined when none has it. */
export function groupName(gid: number): string | undefined {
  return reverse("/etc/group", gid);
}
