/**
 * Users and groups by name, read from the passwd and group files (Node
 * has no getpwnam), as cf-agent reads local accounts; numbers are taken
 * as ids directly. An AccountDatabase reads each file once, when first
 * asked: make one per run (a run that adds a user then sees it in the
 * next run).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

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

  /** `root`: the directory whose etc/passwd and etc/group are read (`/` for this system). */
  constructor(private readonly root = "/") {}

  private passwd(): Database {
    this.users ??= readDatabase(join(this.root, "etc/passwd"));
    return this.users;
  }

  private group(): Database {
    this.groups ??= readDatabase(join(this.root, "etc/group"));
    return this.groups;
  }

  /** A user's id (a number is its own id), or undefined when there is no such user. */
  userId(name: string): number | undefined {
    return /^\d+$/.test(name) ? Number(name) : this.passwd().get(name);
  }

  /** A group's id (a number is its own id), or undefined when there is no such group. */
  groupId(name: string): number | undefined {
    return /^\d+$/.test(name) ? Number(name) : this.group().get(name);
  }

  /** The name of the user with this id, or undefined when none has it. */
  userName(uid: number): string | undefined {
    return reverse(this.passwd(), uid);
  }

  /** The name of the group with this id, or undefined when none has it. */
  groupName(gid: number): string | undefined {
    return reverse(this.group(), gid);
  }
}

function reverse(database: Database, id: number): string | undefined {
  for (const [name, value] of database) if (value === id) return name;
  return undefined;
}
