/**
 * An existing account against the promise: what differs (cf-agent 3.21's
 * VerifyIfUserNeedsModifs) and the changes that bring it in line
 * (DoModifyUser): the password first, then the lock, then one `usermod`
 * for the other properties.
 *
 * Secondary groups: gids in the list are turned into group names (a
 * group named by the digits wins); groups that do not exist are left out
 * silently, as 3.21 does.
 */
import type { GroupEntry, PasswdEntry } from "./accounts.js";
import type { UserChange, UserSpec, UsersRun } from "./context.js";
import { executeUserCommand } from "./context.js";
import {
  changePassword,
  isAccountLocked,
  isPasswordCorrect,
  passwordHash,
  setAccountLocked,
} from "./passwords.js";
import { ToolCommand, USERMOD } from "./tools.js";

export type UserProperty =
  | "uid"
  | "password"
  | "description"
  | "group_primary"
  | "groups_secondary"
  | "home_dir"
  | "shell"
  | "locked";

/** The secondary groups as the promise wants them and as the account has them. */
export interface SecondaryGroups {
  /** The wanted groups that exist, by name, in the group file's order. */
  readonly toSet: readonly string[];
  /** The groups that list the account as a member. */
  readonly current: readonly string[];
}

const DIGITS = /^[0-9]+$/;

/** A wanted group's name: a gid becomes the name of its group, unless a group has the digits as name. */
export function groupName(wanted: string, groups: readonly GroupEntry[]): string {
  if (!DIGITS.test(wanted) || groups.some((g) => g.name === wanted)) return wanted;
  return groups.find((g) => g.gid === Number(wanted))?.name ?? wanted;
}

export function secondaryGroups(
  user: string,
  wanted: readonly string[],
  groups: readonly GroupEntry[],
): SecondaryGroups {
  const names = new Set(wanted.map((w) => groupName(w, groups)));
  const toSet: string[] = [];
  const current: string[] = [];
  for (const group of groups) {
    if (group.members.includes(user)) current.push(group.name);
    if (names.has(group.name) && !toSet.includes(group.name)) toSet.push(group.name);
  }
  return { toSet, current };
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((x) => right.has(x));
}

/** Whether the primary group differs; logs a group that does not exist (3.21 tries usermod anyway). */
function primaryGroupDiffers(
  run: UsersRun,
  wanted: string,
  entry: PasswdEntry,
  groups: readonly GroupEntry[],
): boolean {
  const byName = groups.find((g) => g.name === wanted);
  if (byName) return byName.gid !== entry.gid;
  if (DIGITS.test(wanted)) return Number(wanted) !== entry.gid;
  run.log("error", `No such group '${wanted}'.`);
  return true;
}

/** The properties that differ, in the order 3.21 checks them (its messages follow that order). */
export function propertiesToChange(
  run: UsersRun,
  entry: PasswdEntry,
  groups: readonly GroupEntry[],
  secondary: SecondaryGroups,
): Set<UserProperty> {
  const u = run.spec;
  const diff = new Set<UserProperty>();
  if (u.description !== undefined && u.description !== entry.gecos) diff.add("description");
  if (u.uid !== undefined && (!DIGITS.test(u.uid) || Number(u.uid) !== entry.uid)) diff.add("uid");
  if (u.homeDir !== undefined && u.homeDir !== entry.dir) diff.add("home_dir");
  if (u.shell !== undefined && u.shell !== entry.shell) diff.add("shell");
  if (isAccountLocked(run, entry) !== (u.policy === "locked")) diff.add("locked");
  // A password does not matter for an account that is to be locked.
  if (
    u.password &&
    u.password.data !== "" &&
    u.policy !== "locked" &&
    !isPasswordCorrect(run, entry, u.password)
  )
    diff.add("password");
  if (u.groupsSecondary !== undefined && !sameSet(secondary.toSet, secondary.current))
    diff.add("groups_secondary");
  if (u.groupPrimary && primaryGroupDiffers(run, u.groupPrimary, entry, groups)) diff.add("group_primary");
  return diff;
}

/** The change records for what differs, old and new values as data. */
export function describeChanges(
  spec: UserSpec,
  entry: PasswdEntry,
  diff: ReadonlySet<UserProperty>,
  secondary: SecondaryGroups,
  applied: boolean,
): UserChange[] {
  const values: Record<UserProperty, [string | undefined, string | undefined]> = {
    uid: [String(entry.uid), spec.uid],
    password: [undefined, undefined],
    description: [entry.gecos, spec.description],
    group_primary: [String(entry.gid), spec.groupPrimary],
    groups_secondary: [secondary.current.join(","), secondary.toSet.join(",")],
    home_dir: [entry.dir, spec.homeDir],
    shell: [entry.shell, spec.shell],
    locked: [String(spec.policy !== "locked"), String(spec.policy === "locked")],
  };
  return [...diff].map((property) => {
    const [old, now] = values[property];
    const message =
      property === "password"
        ? "password changed"
        : `${property} changed from '${old ?? ""}' to '${now ?? ""}'`;
    return { property, old, new: now, message, applied };
  });
}

/** The usermod command for the properties it changes (`-G` last, with 3.21's stray spaces). */
function usermodCommand(
  run: UsersRun,
  diff: ReadonlySet<UserProperty>,
  secondary: SecondaryGroups,
): ToolCommand {
  const u = run.spec;
  const command = new ToolCommand(USERMOD, run.root);
  if (diff.has("uid")) command.option("-u", u.uid ?? "");
  if (diff.has("description")) command.option("-c", u.description ?? "");
  if (diff.has("group_primary")) command.option("-g", u.groupPrimary ?? "");
  if (diff.has("home_dir")) command.option("-d", u.homeDir ?? "");
  if (diff.has("shell")) command.option("-s", u.shell ?? "");
  if (diff.has("groups_secondary")) command.option("-G", secondary.toSet.join(",")).shown(" ");
  return command.word(u.name);
}

/** cf-agent's DoModifyUser; false when a step failed or, in a dry run, at the first change needed. */
export function modifyUser(
  run: UsersRun,
  entry: PasswdEntry,
  diff: ReadonlySet<UserProperty>,
  secondary: SecondaryGroups,
): boolean {
  const u = run.spec;
  if (diff.has("password")) {
    if (run.dryRun) {
      run.log("warning", `Need to change password for user '${u.name}'.`);
      return false;
    }
    if (u.password && !changePassword(run, u.password)) return false;
  }
  if (diff.has("locked")) {
    const lock = u.policy === "locked";
    if (run.dryRun) {
      run.log("warning", `Need to ${lock ? "lock" : "unlock"} account for user '${u.name}'.`);
      return false;
    }
    // A password just set is unlocked already; the hash read before is stale.
    const hash = diff.has("password") ? undefined : passwordHash(run, entry);
    if (!diff.has("password") && hash === undefined) return false;
    if (!setAccountLocked(run, hash, lock)) return false;
  }
  const command = usermodCommand(run, diff, secondary);
  if (run.dryRun) {
    run.log("warning", `Need to update user attributes (command '${command.text}').`);
    return false;
  }
  const rest = [...diff].filter((p) => p !== "password" && p !== "locked");
  return rest.length === 0 || executeUserCommand(run, command, "modifying", "Modifying");
}
