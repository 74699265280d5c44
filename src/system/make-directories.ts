/**
 * Creating a directory and its missing parents. Node's own
 * `mkdirSync(path, { recursive: true })` never returns where a parent
 * exists but refuses new entries with ENOENT (anything under /proc: it
 * retries the parent, finds it, and tries the child again, forever); this
 * creates each missing component once, from the top, and throws the first
 * failure as node:fs does (an Error with `code`, `syscall` and `path`).
 */
import { mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";

/** Creates `path` and the directories above it that are missing, with `mode` (umask applies). */
export function makeDirectoriesSync(path: string, mode = 0o777): void {
  const missing: string[] = [];
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    if (statSync(dir, { throwIfNoEntry: false }) !== undefined || dirname(dir) === dir) break;
    missing.push(dir);
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir, { mode });
    } catch (error) {
      // Made by someone else meanwhile: fine if it is a directory.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || !statSync(dir).isDirectory()) throw error;
    }
  }
}
