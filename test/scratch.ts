/**
 * Temporary directories for tests, removed when the test process ends: the
 * suite runs many times a day, and per-case directories left in /tmp pile up
 * by the hundred thousand.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];

process.on("exit", () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A new directory under the system's temporary directory, gone at exit. */
export function scratchDirectory(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
