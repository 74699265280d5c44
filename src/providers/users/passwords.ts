/**
 * Password hashes and account locks, as cf-agent 3.21 handles them on
 * Linux: the hash is read from shadow (when the passwd field is a stub),
 * a hash is set with `chpasswd -e`, a plaintext password through PAM
 * (cf-agent calls pam_chauthtok; tend runs `chpasswd`, which goes through
 * the same common-password stack), and an account is locked by a `!`
 * before its hash and an expiry date in 1970.
 *
 * Checking a plaintext password: cf-agent asks PAM (`login`); tend hashes
 * the password with the stored hash as setting (libcrypt's crypt(), via
 * perl, which Debian always has) and compares, so a wrong password costs
 * no PAM fail delay. An empty stored hash never matches (pam_unix with
 * `nullok` takes any password for it).
 */
import { existsSync } from "node:fs";
import { type PasswdEntry, databasePath, readShadow } from "./accounts.js";
import type { PasswordSpec, UsersRun } from "./context.js";
import { executeUserCommand } from "./context.js";
import { CHPASSWD, ToolCommand, USERMOD, toolFailed, toolOutput } from "./tools.js";

/** cf-agent's GetPasswordHash: the account's hash, logging where it came from; undefined on failure. */
export function passwordHash(run: UsersRun, entry: PasswdEntry): string | undefined {
  const user = run.spec.name;
  if (entry.passwd.length <= 4 && existsSync(databasePath(run.root, "shadow"))) {
    run.log("verbose", `Getting user '${user}' password hash from shadow database.`);
    const shadow = readShadow(run.root);
    if (!shadow.ok) {
      run.log("error", `Could not open '/etc/shadow': ${shadow.error}`);
      run.log("error", `Could not get information from user shadow database: ${shadow.error}`);
      return undefined;
    }
    const found = shadow.entries.find((e) => e.name === user);
    if (found) return found.hash;
    run.log("error", "Could not find user when checking password.");
    return undefined;
  }
  run.log("verbose", `Getting user '${user}' password hash from passwd database.`);
  return entry.passwd;
}

/** The stored hash without messages (for checking a plaintext password). */
function storedHash(run: UsersRun, entry: PasswdEntry): string | undefined {
  if (entry.passwd.length > 4 || !existsSync(databasePath(run.root, "shadow"))) return entry.passwd;
  const shadow = readShadow(run.root);
  return shadow.ok ? shadow.entries.find((e) => e.name === run.spec.name)?.hash : undefined;
}

export function isHashLocked(hash: string): boolean {
  return hash.startsWith("!");
}

export function isAccountLocked(run: UsersRun, entry: PasswdEntry): boolean {
  const hash = passwordHash(run, entry);
  return hash !== undefined && isHashLocked(hash);
}

/** Hashes `password` with `hash` as the setting, through libcrypt; undefined if that failed. */
function cryptMatches(run: UsersRun, password: string, hash: string): boolean | undefined {
  const script =
    'local $/; my $in = <STDIN>; my ($h, $p) = split(/\\n/, $in, 2); my $c = crypt($p, $h); print(defined($c) && $c eq $h ? "1" : "0");';
  const result = run.run(["perl", "-e", script], `${hash}\n${password}`);
  if (toolFailed(result)) return undefined;
  return result.stdout === "1";
}

/** cf-agent's IsPasswordCorrect. */
export function isPasswordCorrect(run: UsersRun, entry: PasswdEntry, password: PasswordSpec): boolean {
  const user = run.spec.name;
  if (password.format === "hash") {
    const hash = passwordHash(run, entry);
    if (hash === undefined) return false;
    const correct = password.data === hash;
    run.log("verbose", `Verifying password hash for user '${user}': ${correct ? "correct" : "incorrect"}.`);
    return correct;
  }
  const hash = storedHash(run, entry) ?? "";
  const matches = hash === "" ? false : cryptMatches(run, password.data, hash);
  if (matches === undefined) {
    run.log("error", `Could not check password for user '${user}' against stored password. (crypt failed)`);
    return false;
  }
  run.log(
    "verbose",
    `Verifying plaintext password for user '${user}': ${matches ? "correct" : "incorrect"}.`,
  );
  return matches;
}

function changeHash(run: UsersRun, hash: string): boolean {
  const user = run.spec.name;
  const text = `${CHPASSWD} -e`;
  run.log("verbose", `Changing password hash for user '${user}'. (command: '${text}')`);
  const argv = run.root === "/" ? [CHPASSWD, "-e"] : [CHPASSWD, "-R", run.root, "-e"];
  const result = run.run(argv, `${user}:${hash}\n`);
  for (const line of toolOutput(result)) run.log("notice", line);
  if (result.error !== undefined && result.status === null) {
    run.log("error", `Could not launch password changing command '${text}': ${result.error}.`);
    return false;
  }
  if (!toolFailed(result)) return true;
  run.log("error", `'${text}' returned non-zero status: ${result.status ?? -1}`);
  return false;
}

function changePlaintext(run: UsersRun, password: string): boolean {
  const user = run.spec.name;
  run.log("verbose", `Changing password for user '${user}'.`);
  const argv = run.root === "/" ? [CHPASSWD] : [CHPASSWD, "-R", run.root];
  const result = run.run(argv, `${user}:${password}\n`);
  if (!toolFailed(result)) return true;
  const reason = toolOutput(result)[0] ?? `exit status ${result.status ?? -1}`;
  run.log("error", `Could not change password for user '${user}'. (chpasswd: '${reason}')`);
  return false;
}

/** cf-agent's ChangePassword. */
export function changePassword(run: UsersRun, password: PasswordSpec): boolean {
  return password.format === "plaintext"
    ? changePlaintext(run, password.data)
    : changeHash(run, password.data);
}

/** The expiry date that locks an account (the 2nd of January 1970), or none. */
function setLockExpiration(run: UsersRun, lock: boolean): boolean {
  const command = new ToolCommand(USERMOD, run.root)
    .option("-e", lock ? "1970-01-02" : "")
    .word(run.spec.name);
  const verb = lock ? "Locking" : "Unlocking";
  return executeUserCommand(run, command, verb.toLowerCase(), verb, "by setting expiry date");
}

/**
 * cf-agent's SetAccountLocked: `!` before the hash (or taken away), then
 * the expiry date. Unlike 3.21, an account whose hash is a bare `!` (as
 * useradd leaves a new account) is unlocked to `x`, a hash nothing
 * matches, not to an empty password that lets anyone in.
 */
export function setAccountLocked(run: UsersRun, hash: string | undefined, lock: boolean): boolean {
  if (hash !== undefined) {
    if (lock && !isHashLocked(hash)) {
      if (!changePassword(run, { format: "hash", data: `!${hash}` })) return false;
    } else if (!lock && isHashLocked(hash)) {
      const unlocked = hash.slice(1);
      if (!changePassword(run, { format: "hash", data: unlocked === "" ? "x" : unlocked })) return false;
    }
  }
  return setLockExpiration(run, lock);
}
