/**
 * Policy release tagging, as 3.21's cf-promises `-T DIR` and cf-agent's
 * policy check do it: `cf_promises_validated` (`{"timestamp": N}`) marks
 * when a policy was last found valid, and `cf_promises_release_id`
 * (`{"releaseId": "..."}`) names the policy release: the commit a git
 * checkout's HEAD points to, else a SHA-1 computed from the directory.
 *
 * That SHA-1 is 3.21's, quirks included: it hashes as many zero bytes as
 * the policy files (`.cf`, `.dat`, `.txt`, `.conf`, `.mustache`, `.json`,
 * `.yaml`) of the directory hold, not their contents, and it does not
 * really descend into subdirectories (it looks for the top directory's
 * names below them). So it changes when a policy file's size changes.
 */
import { createHash } from "node:crypto";
import { lstatSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomically } from "../system/atomic.js";
import { makeDirectoriesSync } from "../system/make-directories.js";

const POLICY_EXTENSIONS = [".cf", ".dat", ".txt", ".conf", ".mustache", ".json", ".yaml"];

/** The commit of a git checkout in `dir` (`.git/HEAD`, following a branch ref); undefined otherwise. */
export function gitReleaseId(dir: string): string | undefined {
  let head: string;
  try {
    head = readFileSync(join(dir, ".git", "HEAD"), "utf8");
  } catch {
    return undefined;
  }
  const ref = /^ref: (\S{1,127})/.exec(head);
  if (!ref) return /^\S{1,40}/.exec(head)?.[0];
  try {
    return /^\S{1,40}/.exec(readFileSync(join(dir, ".git", ref[1]), "utf8"))?.[0];
  } catch {
    return undefined;
  }
}

/** Sizes of the files 3.21's tree walk hashes, from `current` (it reads `base` at every level). */
function policyBytes(base: string, current: string): number {
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return 0;
  }
  let total = 0;
  for (const name of names) {
    const path = `${current}/${name}`;
    let stats: ReturnType<typeof lstatSync>;
    try {
      stats = lstatSync(path);
    } catch {
      continue;
    }
    if (stats.isDirectory()) total += policyBytes(base, path);
    else if (POLICY_EXTENSIONS.some((ext) => path.endsWith(ext))) total += stats.size;
  }
  return total;
}

/** The release ID 3.21 computes for a policy directory. */
export function policyReleaseId(dir: string): string {
  return (
    gitReleaseId(dir) ??
    createHash("sha1")
      .update(Buffer.alloc(policyBytes(dir, dir)))
      .digest("hex")
  );
}

/** 3.21's JsonWrite of a one-member object. */
function jsonObject(key: string, value: string | number): string {
  return `{\n  "${key}": ${JSON.stringify(value)}\n}`;
}

function readReleaseId(dir: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(join(dir, "cf_promises_release_id"), "utf8"));
    const id = (parsed as { releaseId?: unknown })?.releaseId;
    return typeof id === "string" ? id : undefined;
  } catch {
    return undefined;
  }
}

export interface TagOptions {
  /** Write `cf_promises_validated` with the current time. */
  readonly validated: boolean;
  /** Write `cf_promises_release_id` when missing (or when git says otherwise). */
  readonly release: boolean;
  readonly now?: () => number;
}

/**
 * Tags `dir` as 3.21's GenericAgentTagReleaseDirectory does; false when a
 * file could not be written (the caller says so).
 */
export function tagReleaseDirectory(dir: string, options: TagOptions): boolean {
  try {
    if (options.release) {
      const current = readReleaseId(dir);
      const git = gitReleaseId(dir);
      if (current === undefined || (git !== undefined && git !== current)) {
        writeFileAtomically(
          join(dir, "cf_promises_release_id"),
          jsonObject("releaseId", policyReleaseId(dir)),
          0o600,
        );
      }
    }
    if (options.validated) {
      makeDirectoriesSync(dir, 0o700);
      const seconds = Math.floor((options.now ?? Date.now)() / 1000);
      writeFileAtomically(join(dir, "cf_promises_validated"), jsonObject("timestamp", seconds), 0o600);
    }
    return true;
  } catch {
    return false;
  }
}
