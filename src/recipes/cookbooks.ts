/**
 * Cookbooks found on the cookbook path (chef-client's `--cookbook-path`,
 * one or several directories): each child directory is a cookbook, named
 * by its metadata.json. The same cookbook in two paths is an error (Chef
 * removed cookbook merging). Each cookbook's user files are listed by kind,
 * sorted as Chef sorts them (byte order of the path; `attributes/default`
 * first).
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { readManifest } from "./metadata.js";
import type { Cookbook, CookbookFile, FileKind, RecipesDiagnostic } from "./model.js";
import { LOAD_KINDS, RecipesError } from "./model.js";

/** Extensions of user files, TypeScript and JavaScript. */
const SOURCE = /\.(?:ts|mts|js|mjs)$/;
const DECLARATION = /\.d\.(?:ts|mts)$/;

/** Cookbooks by name, from every directory of the cookbook path. */
export function discoverCookbooks(paths: readonly string[]): Map<string, Cookbook> {
  const found = new Map<string, Cookbook>();
  const problems: RecipesDiagnostic[] = [];
  for (const root of paths) {
    if (!existsSync(root)) {
      problems.push(at(root, "unknown-cookbook", "the cookbook path does not exist"));
      continue;
    }
    for (const entry of readdirSync(root, { withFileTypes: true }).sort(byName)) {
      if (!entry.isDirectory() && !(entry.isSymbolicLink() && isDirectory(join(root, entry.name)))) continue;
      if (entry.name.startsWith(".")) continue;
      const cookbook = readCookbook(join(root, entry.name));
      const other = found.get(cookbook.name);
      if (other) {
        problems.push(
          at(
            cookbook.metadataFile ?? cookbook.directory,
            "duplicate-cookbook",
            `cookbook '${cookbook.name}' is also at ${other.directory}; each cookbook must be in one place`,
          ),
        );
        continue;
      }
      found.set(cookbook.name, cookbook);
    }
  }
  if (problems.length > 0) throw new RecipesError(problems);
  return found;
}

function at(file: string, code: RecipesDiagnostic["code"], message: string): RecipesDiagnostic {
  return { code, severity: "error", message, file, line: 1, column: 1 };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function byName(a: { name: string }, b: { name: string }): number {
  return compareBytes(a.name, b.name);
}

/** Byte order, as Ruby's `sort` orders paths (not the locale's). */
export function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A cookbook's manifest and its files by kind. */
export function readCookbook(directory: string): Cookbook {
  const manifest = readManifest(directory);
  const files = {} as Record<FileKind, CookbookFile[]>;
  for (const kind of [...LOAD_KINDS, "recipes"] as const)
    files[kind] = listFiles(manifest.name, directory, kind);
  return { ...manifest, files };
}

/**
 * The files of one kind: libraries at any depth, the others at the top of
 * their folder; resources and providers whose name starts with `_` are
 * partials, not loaded (as Chef's). Attribute files put `default` first.
 */
function listFiles(cookbook: string, directory: string, kind: FileKind): CookbookFile[] {
  const base = join(directory, kind);
  if (!isDirectory(base)) return [];
  const paths = kind === "libraries" ? walk(base) : topLevel(base);
  const files = paths
    .filter((path) => SOURCE.test(path) && !DECLARATION.test(path))
    .map((path) => ({ cookbook, kind, name: relative(base, path).replace(SOURCE, ""), path }))
    .filter((file) => !((kind === "resources" || kind === "providers") && file.name.startsWith("_")))
    .sort((a, b) => compareBytes(a.path, b.path));
  if (kind !== "attributes") return files;
  const first = files.filter((f) => f.name === "default");
  return [...first, ...files.filter((f) => f.name !== "default")];
}

function topLevel(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() || (e.isSymbolicLink() && !isDirectory(join(dir, e.name))))
    .map((e) => join(dir, e.name));
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return walk(path);
    return e.isFile() || e.isSymbolicLink() ? [path] : [];
  });
}
