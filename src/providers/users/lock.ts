/**
 * Locking an account's password (`usermod -L`) and unlocking it
 * (`usermod -U`), as Chef's user resource's `lock` and `unlock` actions:
 * an account is locked when its shadow password starts with `!`. Nothing
 * runs when the account is already as wanted, or in a dry run.
 */
import type { ProviderResult } from "../change.js";
import { readGroups, readPasswd, readShadow } from "./accounts.js";
import { runChecked } from "./groups.js";
import { runTool, ToolCommand, type ToolRunner, USERMOD } from "./tools.js";

export interface LockOptions {
  readonly dryRun: boolean;
  readonly root?: string;
  readonly run?: ToolRunner;
}

export interface LockResult extends ProviderResult {
  /** False when there is no such account (then `status` is `failed`). */
  readonly exists: boolean;
}

/** Locks (`locked` true) or unlocks an account's password. */
export function lockAccount(name: string, locked: boolean, options: LockOptions): LockResult {
  const root = options.root ?? "/";
  const passwd = readPasswd(root);
  if (!passwd.ok) return { status: "failed", changes: [], exists: false, error: passwd.error };
  if (!passwd.entries.some((e) => e.name === name))
    return { status: "failed", changes: [], exists: false, error: `no user ${name}` };
  const shadow = readShadow(root);
  if (!shadow.ok) return { status: "failed", changes: [], exists: true, error: shadow.error };
  const password = shadow.entries.find((e) => e.name === name)?.hash ?? "";
  const now = password.startsWith("!");
  if (now === locked) return { status: "unchanged", changes: [], exists: true };
  const change = {
    property: "locked",
    old: String(now),
    new: String(locked),
    message: locked ? "locked" : "unlocked",
    applied: false,
  };
  if (options.dryRun) return { status: "changed", changes: [change], exists: true };
  const command = new ToolCommand(USERMOD, root).word(locked ? "-L" : "-U").word(name);
  const said = runChecked(options.run ?? runTool, command);
  if (said !== undefined) return { status: "failed", changes: [change], exists: true, error: said };
  return { status: "changed", changes: [{ ...change, applied: true }], exists: true };
}

/** Whether `root`'s /etc/passwd has the account (read now, not cached: an earlier resource may have made it). */
export function accountExists(name: string, root = "/"): boolean {
  const passwd = readPasswd(root);
  return passwd.ok && passwd.entries.some((e) => e.name === name);
}

/** Whether `root`'s /etc/group has the group (read now). */
export function groupExists(name: string, root = "/"): boolean {
  const groups = readGroups(root);
  return groups.ok && groups.entries.some((g) => g.name === name);
}
