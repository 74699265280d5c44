/**
 * Setting the owner and group of a path. Never through a link: a link
 * gets the owner itself (lchown), as cf-agent's safe_chown does and as
 * Puppet does for links it manages; the directories on the way are
 * checked as safe-fs checks them.
 */
import { lchownSync } from "../../system/safe-fs.js";
import { lstatOrUndefined } from "./inspect.js";
import { missing } from "./mode.js";
import { type ActOptions, change, changedWith, type FileResult, failedWith, UNCHANGED } from "./result.js";

/** The ids wanted; an id left out is not changed. */
export interface Ownership {
  readonly uid?: number;
  readonly gid?: number;
}

/**
 * Gives `path` the owner and group wanted. `current` (the ids found)
 * saves a second lstat when the caller has them. The changes are `owner`
 * then `group`, with ids as text. Fails with the lchown error.
 */
export function setOwner(
  path: string,
  wanted: Ownership,
  options: ActOptions & { readonly current?: { readonly uid: number; readonly gid: number } } = {},
): FileResult {
  let current = options.current;
  if (!current) {
    const stats = lstatOrUndefined(path);
    if (!stats) return failedWith(missing(path, "lchown"), "lchown");
    current = stats;
  }
  const uid = wanted.uid !== undefined && wanted.uid !== current.uid ? wanted.uid : -1;
  const gid = wanted.gid !== undefined && wanted.gid !== current.gid ? wanted.gid : -1;
  if (uid === -1 && gid === -1) return UNCHANGED;
  const made = [];
  if (uid !== -1)
    made.push(
      change("owner", `${current.uid}`, `${uid}`, `owner changed '${current.uid}' to '${uid}'`, options.noop),
    );
  if (gid !== -1)
    made.push(
      change("group", `${current.gid}`, `${gid}`, `group changed '${current.gid}' to '${gid}'`, options.noop),
    );
  if (options.noop) return changedWith(made);
  try {
    lchownSync(path, uid, gid);
  } catch (error) {
    return failedWith(error, "lchown");
  }
  return changedWith(made);
}
