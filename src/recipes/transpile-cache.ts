/**
 * Transpiled user files kept across runs, so that a run whose cookbooks did
 * not change starts no esbuild at all (loading esbuild and its service was
 * ~75-100 ms of a run here, more than the rest of the load phase). An entry
 * is keyed by a hash of esbuild's version, the transform options' version,
 * the file's path and its whole text: a changed file is a miss, never a
 * stale hit. Entries are written atomically (mode 0600 in a 0700
 * directory); a cache that cannot be read or written is passed over, never
 * an error.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { writeFileAtomically } from "../system/atomic.js";

/** Bump when the transform options (or what is stored) change. */
const FORMAT = "tend-recipes-transpile-1";

export interface CachedTranspile {
  readonly code: string;
  readonly map: string;
}

let esbuildVersion: string | undefined;

/** esbuild's version, read from its package.json without loading esbuild. */
function versionOfEsbuild(): string {
  if (esbuildVersion === undefined) {
    try {
      const main = createRequire(import.meta.url).resolve("esbuild");
      const pkg = JSON.parse(readFileSync(join(dirname(main), "..", "package.json"), "utf8")) as {
        version?: string;
      };
      esbuildVersion = pkg.version ?? "unknown";
    } catch {
      esbuildVersion = "unknown";
    }
  }
  return esbuildVersion;
}

/** The entry file of `path` with `text` under `directory`. */
function entryOf(directory: string, path: string, text: string): string {
  const hash = createHash("sha256")
    .update(`${FORMAT}\0${versionOfEsbuild()}\0${path}\0`)
    .update(text)
    .digest("hex");
  return join(directory, `${hash}.json`);
}

/** The cached transpile of `path` with this `text`, if any. */
export function readCachedTranspile(
  directory: string,
  path: string,
  text: string,
): CachedTranspile | undefined {
  try {
    const entry = JSON.parse(
      readFileSync(entryOf(directory, path, text), "utf8"),
    ) as Partial<CachedTranspile>;
    return typeof entry.code === "string" && typeof entry.map === "string"
      ? { code: entry.code, map: entry.map }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps a transpile for later runs (best effort). */
export function writeCachedTranspile(
  directory: string,
  path: string,
  text: string,
  value: CachedTranspile,
): void {
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    writeFileAtomically(entryOf(directory, path, text), JSON.stringify(value), 0o600);
  } catch {
    // A cache that cannot be written only costs the next run a transpile.
  }
}
