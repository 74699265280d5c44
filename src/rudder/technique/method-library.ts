/**
 * Loads an ncf method library from disk, as rudder-commons 8.3 does: every
 * `*.cf` file under the given directories (an ncf tree, its
 * `30_generic_methods`, or one file), skipping `10_ncf_internals`,
 * `20_cfe_basics` and files whose name starts with `_`. A file whose
 * annotations are broken is skipped with a warning, as rudderc does.
 * A `.json` file is read as a library of method facts (method-json.ts).
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseMethodLibraryJson } from "./method-json.js";
import { type MethodInfo, type MethodLibrary, parseMethodFile } from "./methods.js";

const NON_METHOD_DIRS = ["10_ncf_internals", "20_cfe_basics"];

export interface LibraryLoad {
  readonly methods: MethodLibrary;
  /** Files skipped, with the reason (rudderc prints these as warnings). */
  readonly skipped: readonly { readonly file: string; readonly reason: string }[];
  /** Set when nothing could be loaded: the path is missing or holds no method. */
  readonly error?: string;
}

export function loadMethodLibrary(paths: readonly string[]): LibraryLoad {
  const methods = new Map<string, MethodInfo>();
  const skipped: { file: string; reason: string }[] = [];
  for (const path of paths) {
    if (!exists(path)) return { methods, skipped, error: `could not open method library ${path}` };
    if (path.endsWith(".json") && statSync(path).isFile()) {
      const read = parseMethodLibraryJson(readFileSync(path, "utf8"));
      if ("error" in read) return { methods, skipped, error: `${path}: ${read.error}` };
      for (const [name, method] of read.methods) methods.set(name, method);
      continue;
    }
    for (const file of methodFiles(path)) {
      const parsed = parseMethodFile(readFileSync(file, "utf8"), file);
      if (parsed.ok) methods.set(parsed.method.bundleName, parsed.method);
      else skipped.push({ file, reason: parsed.reason });
    }
  }
  if (methods.size === 0)
    return { methods, skipped, error: `no methods were loaded from ${paths.join(", ")}` };
  return { methods, skipped };
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

function methodFiles(path: string): string[] {
  if (NON_METHOD_DIRS.some((dir) => path.includes(dir))) return [];
  const stat = statSync(path);
  if (stat.isFile()) return isMethodFile(path) ? [path] : [];
  if (!stat.isDirectory()) return [];
  const out: string[] = [];
  for (const name of readdirSync(path).sort()) out.push(...methodFiles(join(path, name)));
  return out;
}

function isMethodFile(path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return name.endsWith(".cf") && !name.startsWith("_");
}
