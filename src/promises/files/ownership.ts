/**
 * Owner and group of a file (`owners`, `groups` of a perms body) and the
 * watch on setuid/setgid root programs, as cf-agent 3.21 does them: the
 * file keeps its owner when it is any promised one, else gets the first
 * promised owner that exists; a root-owned setuid program not seen before
 * is announced once and remembered in the state directory.
 */
import { type Stats, appendFileSync, readFileSync } from "node:fs";
import { mkdirSync } from "../../system/safe-fs.js";
import { setOwner } from "../../providers/files/owner.js";
import { join } from "node:path";
import type { AccountId, PermsSpec } from "./perms.js";
import { accountsOf, stateDir } from "./run-state.js";
import { errorText, type FileStep } from "./step.js";

type Wanted = number | "same";

function wantedId(
  step: FileStep,
  ids: readonly AccountId[],
  current: number,
  file: string,
  what: "Owner" | "Group",
): Wanted {
  for (const id of ids) {
    if (id === "same") return "same";
    if (id === current) {
      step.kept(`${what} of '${file}' as promised (${current})`);
      return "same";
    }
  }
  const first = ids.find((id): id is number => typeof id === "number");
  if (first !== undefined) return first;
  const plural = what === "Owner" ? "owners" : "groups";
  step.failed(`None of the promised ${plural} for '${file}' exist -- see INFO logs for more`);
  return "same";
}

/** Brings the owner and group of `file` (lstat `stats`) to what is promised. */
export function verifyOwner(step: FileStep, file: string, stats: Stats, perms: PermsSpec): void {
  const uid = wantedId(step, perms.owners, stats.uid, file, "Owner");
  const gid = wantedId(step, perms.groups, stats.gid, file, "Group");
  if (uid === "same" && gid === "same") return;
  const accounts = accountsOf(step.env);
  if (accounts.userName(stats.uid) === undefined)
    step.warned(`File '${file}' is not owned by anybody in the passwd database (uid = ${stats.uid})`);
  if (accounts.groupName(stats.gid) === undefined)
    step.warned(`File '${file}' is not owned by any group in group database  (gid = ${stats.gid})`);
  const what =
    uid !== "same" && gid !== "same"
      ? `change owner and group of '${file}' to '${uid}:${gid}'`
      : uid !== "same"
        ? `change owner of '${file}' to '${uid}'`
        : `change group of '${file}' to '${gid}'`;
  if (!step.makingChanges(what)) return;
  const link = stats.isSymbolicLink();
  // Never through a link, as cf-agent's safe_chown: `stats` may be the
  // target's (a followed link), but the link itself gets the owner.
  const wanted = { uid: uid === "same" ? undefined : uid, gid: gid === "same" ? undefined : gid };
  const result = setOwner(file, wanted, { current: stats });
  if (result.status === "failed") {
    const reason = errorText(result.cause);
    if (link) step.failed(`Cannot set ownership on link '${file}'. (lchown: ${reason})`);
    else step.denied(`Cannot set ownership on file '${file}'. (chown: ${reason})`);
    return;
  }
  const of = link ? "of link " : "of ";
  if (uid !== "same") step.changed(`Owner ${of}'${file}' was ${stats.uid}, set to ${uid}`);
  if (gid !== "same") step.changed(`Group ${of}'${file}' was ${stats.gid}, set to ${gid}`);
}

const SETUID = 0o4000;
const SETGID = 0o2000;

function setxidListPath(step: FileStep): string | undefined {
  const dir = stateDir(step.env);
  return dir === undefined ? undefined : join(dir, "setxid-programs.log");
}

function knownSetxid(step: FileStep, file: string): boolean {
  const path = setxidListPath(step);
  if (!path) return false;
  try {
    return readFileSync(path, "utf8").split("\n").includes(file);
  } catch {
    return false;
  }
}

function rememberSetxid(step: FileStep, file: string): void {
  const path = setxidListPath(step);
  if (!path) return;
  try {
    mkdirSync(join(path, ".."), { recursive: true, mode: 0o700 });
    appendFileSync(path, `${file}\n`, { mode: 0o600 });
  } catch {
    // The list only keeps the notice from repeating; a failure costs a repeat.
  }
}

/** Root-owned setuid/setgid bits: announced when new, reported when the mode drops them. */
export function verifySetUidGid(step: FileStep, file: string, stats: Stats, wanted: number): void {
  if (stats.uid !== 0) return;
  if (stats.mode & SETUID) checkBit(step, file, wanted & SETUID, "setuid", "SETUID");
  if (stats.mode & SETGID && !(wanted & SETGID && stats.isDirectory()))
    checkBit(step, file, wanted & SETGID, "setgid", "SETGID");
}

function checkBit(step: FileStep, file: string, kept: number, name: string, upper: string): void {
  if (kept) {
    if (knownSetxid(step, file)) return;
    if (process.getuid?.() === 0) step.env.log.notice(`NEW ${upper} root PROGRAM '${file}' `);
    rememberSetxid(step, file);
  } else if (step.makingChanges(`remove ${name} (root) flag from '${file}'`)) {
    step.changed(`Removed ${name} (root) flag from '${file}'`);
  }
}
