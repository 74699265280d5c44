/**
 * The users provider: one local account brought to its promised state,
 * as cf-agent 3.21 does it on Linux (VerifyOneUsersPromise) — created
 * with useradd, changed with usermod and chpasswd, locked with a `!`
 * and an expiry date, removed with userdel — with 3.21's messages, its
 * dry-run warnings, and the changes handed back as data.
 *
 * If a step fails the account may be left half-changed (as with 3.21):
 * the result is `failed`, and the changes of a modification that failed
 * are all marked as not applied (some steps before the failure may have
 * been).
 */
import { readGroups, readPasswd } from "./accounts.js";
import type { PasswdEntry } from "./accounts.js";
import type { UserResult, UserSpec, UsersOptions, UsersRun, UserStatus } from "./context.js";
import { executeUserCommand } from "./context.js";
import { describeChanges, modifyUser, propertiesToChange, secondaryGroups } from "./modify.js";
import { changePassword, setAccountLocked } from "./passwords.js";
import { runTool, ToolCommand, USERADD, USERDEL, USERMOD } from "./tools.js";

export function ensureUser(spec: UserSpec, options: UsersOptions): UserResult {
  const run: UsersRun = {
    spec,
    root: options.root ?? "/",
    dryRun: options.dryRun,
    run: options.run ?? runTool,
    log: options.log,
    onCreate: options.onCreate,
    changes: [],
    aborted: false,
  };
  return { status: converge(run), changes: run.changes };
}

function converge(run: UsersRun): UserStatus {
  const passwd = readPasswd(run.root);
  if (!passwd.ok) {
    run.log("error", `Could not open '/etc/passwd': ${passwd.error}`);
    run.log("error", "Could not get information from user database.");
    return "failed";
  }
  const entry = passwd.entries.find((e) => e.name === run.spec.name);
  if (run.spec.policy === "absent") return entry ? finish(run, removeUser(run), "Removed", "remove") : "kept";
  if (entry) return verifyExisting(run, entry);
  return finish(run, createUser(run), "Created", "create");
}

/** The message and status after creating or removing (or modifying) an account. */
function finish(run: UsersRun, done: boolean, past: string, verb: string): UserStatus {
  if (run.aborted) return "failed";
  if (done) {
    run.log("info", `${past} user '${run.spec.name}'`);
    return "changed";
  }
  run.log("error", `Failed to ${verb} user '${run.spec.name}'`);
  return "failed";
}

function verifyExisting(run: UsersRun, entry: PasswdEntry): UserStatus {
  const groups = readGroups(run.root);
  if (!groups.ok) {
    run.log("error", `Could not open '/etc/group': ${groups.error}`);
    return "failed";
  }
  const secondary = secondaryGroups(run.spec.name, run.spec.groupsSecondary ?? [], groups.entries);
  const diff = propertiesToChange(run, entry, groups.entries, secondary);
  if (diff.size === 0) return "kept";
  const done = modifyUser(run, entry, diff, secondary);
  run.changes.push(...describeChanges(run.spec, entry, diff, secondary, done));
  return finish(run, done, "Modified", "modify");
}

/** useradd's command line: every property given, and `-M` (home_bundle makes the home directory). */
function useraddCommand(run: UsersRun): ToolCommand {
  const u = run.spec;
  const command = new ToolCommand(USERADD, run.root);
  if (u.uid) command.option("-u", u.uid);
  if (u.description !== undefined) command.option("-c", u.description);
  if (u.groupPrimary) command.option("-g", u.groupPrimary);
  if (u.groupsSecondary !== undefined) command.option("-G", u.groupsSecondary.join(","));
  if (u.homeDir) command.option("-d", u.homeDir);
  if (u.shell) command.option("-s", u.shell);
  return command.word("-M").word(u.name);
}

/** cf-agent's DoCreateUser: useradd, secondary groups again, the `x` hash, the lock, home_bundle, the password. */
function createUser(run: UsersRun): boolean {
  const u = run.spec;
  const command = useraddCommand(run);
  if (run.dryRun) {
    run.log("warning", `Need to create user '${u.name}'.`);
    run.changes.push({
      property: "ensure",
      old: "absent",
      new: "present",
      message: "account created",
      applied: false,
    });
    return false;
  }
  if (!executeUserCommand(run, command, "creating", "Creating")) return false;
  run.changes.push({
    property: "ensure",
    old: "absent",
    new: "present",
    message: "account created",
    applied: true,
  });
  if (u.groupsSecondary !== undefined) {
    const again = new ToolCommand(USERMOD, run.root).option("-G", u.groupsSecondary.join(",")).word(u.name);
    if (!executeUserCommand(run, again, "modifying", "Modifying")) return false;
  }
  // useradd leaves `!`, which would read as locked: `x` matches no password.
  if (!changePassword(run, { format: "hash", data: "x" })) return false;
  if (u.policy === "locked" && !setAccountLocked(run, "x", true)) return false;
  if (run.onCreate && !run.onCreate()) {
    run.aborted = true;
    return false;
  }
  if (u.policy !== "locked" && u.password && u.password.data !== "") {
    if (!changePassword(run, u.password)) return false;
    run.changes.push({ property: "password", message: "password set", applied: true });
  }
  return true;
}

function removeUser(run: UsersRun): boolean {
  const command = new ToolCommand(USERDEL, run.root).word(run.spec.name);
  if (run.dryRun) {
    run.log("warning", `Need to remove user '${run.spec.name}'.`);
    run.changes.push({
      property: "ensure",
      old: "present",
      new: "absent",
      message: "account removed",
      applied: false,
    });
    return false;
  }
  const done = executeUserCommand(run, command, "removing", "Removing");
  run.changes.push({
    property: "ensure",
    old: "present",
    new: "absent",
    message: "account removed",
    applied: done,
  });
  return done;
}
