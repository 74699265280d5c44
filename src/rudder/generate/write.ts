/**
 * Writes a node's generated policy directory at once: the files go to a
 * temporary sibling directory, which then replaces the target by rename, so
 * an agent reading the target sees the old policy or the new one, never a
 * mix. Throws the system error when it cannot; the target is then as it was.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

/** Replaces directory `outDir` with `files` (relative path → content). */
export function writePolicyDirectory(outDir: string, files: ReadonlyMap<string, string>): void {
  const target = resolve(outDir);
  const parent = dirname(target);
  mkdirSync(parent, { recursive: true });
  const stamp = `${process.pid}-${Date.now()}`;
  const temporary = join(parent, `.${basename(target)}.tend-new-${stamp}`);
  const old = join(parent, `.${basename(target)}.tend-old-${stamp}`);
  try {
    for (const [path, content] of files) {
      const full = join(temporary, path);
      if (!full.startsWith(`${temporary}/`))
        throw new Error(`refusing to write outside the policy directory: ${path}`);
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, content, { mode: 0o600 });
    }
    mkdirSync(temporary, { recursive: true });
    let moved = false;
    try {
      renameSync(target, old);
      moved = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    try {
      renameSync(temporary, target);
    } catch (error) {
      if (moved) renameSync(old, target);
      throw error;
    }
    if (moved) rmSync(old, { recursive: true, force: true });
  } finally {
    rmSync(temporary, { recursive: true, force: true });
  }
}
