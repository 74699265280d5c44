/**
 * Walking a directory tree (Puppet's `recurse`, `purge`): each entry
 * under a root, depth first, names in code-point order (or the order the
 * system gives them), with what inspectPath finds there. A link is not descended into
 * unless `followLinks` says so (and never twice into the same directory).
 */
import { readdirSync } from "node:fs";
import { type DigestAlgorithm, type FileState, inspectPath } from "./inspect.js";

export interface WalkEntry {
  readonly path: string;
  /** The path below the root (`a/b`), never empty. */
  readonly relative: string;
  /** 1 for the root's own entries. */
  readonly depth: number;
  readonly state: FileState;
}

export interface WalkOptions {
  /** Deepest level walked (1: the root's entries only); default: no limit. */
  readonly maxDepth?: number;
  /** Descend into links to directories (the entry's state is then the followed one). */
  readonly followLinks?: boolean;
  /** Leave out an entry (and what is under it) for which this is true. */
  readonly skip?: (name: string, relative: string) => boolean;
  /** `system`: names in the order readdir gives them (as cf-agent walks); default `sorted`. */
  readonly order?: "sorted" | "system";
  /** Digest of regular files' content, as inspectPath's option. */
  readonly digest?: DigestAlgorithm;
  /** Told of a directory that could not be read (its entries are then not walked). */
  readonly onError?: (path: string, error: NodeJS.ErrnoException) => void;
}

/** The entries under `root` (not `root` itself). */
export function* walkTree(root: string, options: WalkOptions = {}): Generator<WalkEntry> {
  const base = root.length > 1 ? root.replace(/\/+$/, "") : root;
  const seen = new Set<string>();
  const top = inspectPath(base, { follow: true });
  if (top.stats) seen.add(`${top.stats.dev}:${top.stats.ino}`);
  yield* walkLevel(base, "", 1, options, seen);
}

function* walkLevel(
  dir: string,
  prefix: string,
  depth: number,
  options: WalkOptions,
  seen: Set<string>,
): Generator<WalkEntry> {
  if (depth > (options.maxDepth ?? Number.POSITIVE_INFINITY)) return;
  let names: string[];
  try {
    names = readdirSync(dir);
    if (options.order !== "system") names.sort();
  } catch (error) {
    options.onError?.(dir, error as NodeJS.ErrnoException);
    return;
  }
  for (const name of names) {
    const relative = prefix === "" ? name : `${prefix}/${name}`;
    if (options.skip?.(name, relative)) continue;
    const path = dir === "/" ? `/${name}` : `${dir}/${name}`;
    let state = inspectPath(path, { digest: options.digest });
    if (state.kind === "link" && options.followLinks) {
      const followed = inspectPath(path, { follow: true, digest: options.digest });
      if (followed.kind !== "absent") state = followed;
    }
    yield { path, relative, depth, state };
    if (state.kind !== "directory" || !state.stats) continue;
    const key = `${state.stats.dev}:${state.stats.ino}`;
    if (seen.has(key)) continue;
    seen.add(key);
    yield* walkLevel(path, relative, depth + 1, options, seen);
  }
}
