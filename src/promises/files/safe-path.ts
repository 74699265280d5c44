/**
 * Symbolic links cf-agent refuses to follow when it opens, creates or
 * changes into a path (its safe_open): a link that is neither owned by
 * root nor by the user running the agent, and whose target has another
 * owner or group than the link itself — a link someone else planted to
 * make the agent write where they could not. tend refuses the same links,
 * with cf-agent's messages, wherever it creates or writes files and when
 * it checks an object's directory.
 *
 * Directories are checked once per run (a policy has many files in few
 * directories); the leaf is checked each time.
 */
import { type Stats, statSync } from "node:fs";
import type { EvalContext } from "../../eval/context.js";
import type { PromiseEnvironment } from "../contract.js";
import { chopLastNode } from "./paths.js";
import { lstatOrUndefined } from "./stat.js";

/** cf-agent's text for ENOLINK, the error a refused link gives. */
export const SEVERED = "Link has been severed";

const trustedDirs = new WeakMap<EvalContext, Map<string, boolean>>();

/** Whether the link at `path` (lstat `link`) may be followed. */
function trustedLink(path: string, link: Stats): boolean {
  if (link.uid === 0 || link.uid === process.getuid?.()) return true;
  let target: Stats;
  try {
    target = statSync(path);
  } catch {
    // A dangling link leads nowhere to write to.
    return true;
  }
  return target.uid === link.uid && target.gid === link.gid;
}

/** Whether every link among the parts of `path` may be followed (uncached). */
function trustedParts(path: string): boolean {
  let prefix = "";
  for (const part of path.split("/")) {
    if (part === "") continue;
    prefix += `/${part}`;
    const stats = lstatOrUndefined(prefix);
    if (!stats) return true;
    if (stats.isSymbolicLink() && !trustedLink(prefix, stats)) return false;
  }
  return true;
}

function trustedDirectory(env: PromiseEnvironment, dir: string): boolean {
  let cache = trustedDirs.get(env.ctx);
  if (!cache) {
    cache = new Map();
    trustedDirs.set(env.ctx, cache);
  }
  let trusted = cache.get(dir);
  if (trusted === undefined) {
    trusted = trustedParts(dir);
    cache.set(dir, trusted);
  }
  return trusted;
}

/**
 * Whether cf-agent would open `path` (as a whole: its directories, then
 * the leaf itself when it is a link). When it would not, logs its error
 * naming `path` and returns false; the caller reports the failure with
 * `SEVERED` as the system's reason.
 */
export function mayOpen(env: PromiseEnvironment, path: string): boolean {
  const leaf = lstatOrUndefined(path);
  const trusted =
    trustedDirectory(env, chopLastNode(path)) && !(leaf?.isSymbolicLink() && !trustedLink(path, leaf));
  if (!trusted) {
    env.log.error(
      `Cannot follow symlink '${path}'; it is not owned by root or the user running this process, and the target owner and/or group differs from that of the symlink itself.`,
    );
  }
  return trusted;
}

/** Whether cf-agent could change into directory `dir` (logs its error when not). */
export function mayEnter(env: PromiseEnvironment, dir: string): boolean {
  if (trustedDirectory(env, dir)) return true;
  env.log.error(
    `Cannot follow symlink '${dir}'; it is not owned by root or the user running this process, and the target owner and/or group differs from that of the symlink itself.`,
  );
  return false;
}
