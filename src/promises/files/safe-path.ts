/**
 * Symbolic links cf-agent refuses to follow when it opens, creates or
 * changes into a path (its safe_open): a link that is neither owned by
 * root nor by the user running the agent, and whose target has another
 * owner or group than the link itself — a link someone else planted to
 * make the agent write where they could not. tend refuses the same links,
 * with cf-agent's messages, wherever it creates or writes files and when
 * it checks an object's directory.
 *
 * The checks are safe-fs.ts's, which every change to a file goes through
 * as well: these only tell beforehand, to log and fail as cf-agent does.
 */
import { lstatSync } from "node:fs";
import { checkedDirectory, checkedPath, mayFollowLinkAt } from "../../system/safe-fs.js";
import type { PromiseEnvironment } from "../contract.js";
import { chopLastNode } from "./paths.js";

/** cf-agent's text for ENOLINK, the error a refused link gives. */
export const SEVERED = "Link has been severed";

function refused(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === "ENOLINK";
}

/** Whether the directory `dir` can be reached through links that may be followed. */
function trustedDirectory(dir: string): boolean {
  try {
    checkedDirectory(dir);
    return true;
  } catch (error) {
    // A missing directory is the caller's to report (as cf-agent's open would).
    return !refused(error);
  }
}

/** Whether a link at `path` (already in a checked directory) may be followed. */
function trustedLeaf(path: string): boolean {
  let at: string;
  try {
    at = checkedPath(path);
  } catch (error) {
    return !refused(error);
  }
  const link = lstatSync(at, { throwIfNoEntry: false });
  return !link?.isSymbolicLink() || mayFollowLinkAt(at, link);
}

function logRefusal(env: PromiseEnvironment, path: string): void {
  env.log.error(
    `Cannot follow symlink '${path}'; it is not owned by root or the user running this process, and the target owner and/or group differs from that of the symlink itself.`,
  );
}

/**
 * Whether cf-agent would open `path` (as a whole: its directories, then
 * the leaf itself when it is a link). When it would not, logs its error
 * naming `path` and returns false; the caller reports the failure with
 * `SEVERED` as the system's reason.
 */
export function mayOpen(env: PromiseEnvironment, path: string): boolean {
  const trusted = trustedDirectory(chopLastNode(path)) && trustedLeaf(path);
  if (!trusted) logRefusal(env, path);
  return trusted;
}

/** Whether cf-agent could change into directory `dir` (logs its error when not). */
export function mayEnter(env: PromiseEnvironment, dir: string): boolean {
  if (trustedDirectory(dir)) return true;
  logRefusal(env, dir);
  return false;
}
