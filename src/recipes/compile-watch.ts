/**
 * The compile-time trap, caught. Chef's best-known bug is recipe code that
 * reads the system while compiling (`if File.exist?('/foo')`) about a
 * resource that only changes it at converge: the read sees the machine as
 * it was before the run. While recipes compile, tend wraps node:fs's
 * reading functions (sync, callback and promise forms: exists, stat,
 * lstat, access, open, read, readdir, readlink, realpath) and, when recipe
 * code itself (the function's direct caller is a recipe's file, not tend)
 * touches a path that a resource already in the collection manages (a
 * file, template, directory or link, or anything under a managed
 * directory), records a warning with both locations, telling the author to
 * use a guard or `lazy()`.
 *
 * Design: the wrapping is a module-level hook, installed by `watchCompileReads`
 * and removed by the function it returns (at the end of compile, whatever
 * happened); ES-module named imports of node:fs see it through
 * `syncBuiltinESMExports`. Only one watch is active at a time (a second
 * start nests and is a no-op). The cost outside compile is nothing; during
 * compile, a Map lookup per call, and a stack trace only for managed paths.
 */
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Declaration, ResourceCollection } from "./collection.js";
import { callerLocation, formatLocation, type SourceLocation } from "./location.js";

const SYNC = [
  "existsSync",
  "statSync",
  "lstatSync",
  "accessSync",
  "openSync",
  "readFileSync",
  "readdirSync",
  "readlinkSync",
  "realpathSync",
  "opendirSync",
] as const;
const CALLBACK = [
  "exists",
  "stat",
  "lstat",
  "access",
  "open",
  "readFile",
  "readdir",
  "readlink",
  "realpath",
  "opendir",
] as const;
const PROMISES = [
  "stat",
  "lstat",
  "access",
  "open",
  "readFile",
  "readdir",
  "readlink",
  "realpath",
  "opendir",
] as const;

function pathArgument(value: unknown): string | undefined {
  if (typeof value === "string") return resolve(value);
  if (value instanceof URL && value.protocol === "file:") return fileURLToPath(value);
  if (Buffer.isBuffer(value)) return resolve(value.toString("utf8"));
  return undefined;
}

interface Watch {
  readonly collection: ResourceCollection;
  readonly isUserFile?: (file: string) => boolean;
  readonly mapLocation?: (location: SourceLocation) => SourceLocation;
  readonly seen: Set<string>;
}

let active: Watch | undefined;
const THIS_FILE = safeFileName();

function safeFileName(): string {
  try {
    return fileURLToPath(import.meta.url);
  } catch {
    return "";
  }
}

/** The declaration managing `path` (the path itself or a directory above it), if any. */
function managerOf(collection: ResourceCollection, path: string): Declaration | undefined {
  const index = collection.managedPaths;
  if (index.size === 0) return undefined;
  for (let at = path; ; ) {
    const found = index.get(at);
    if (found && (at === path || found.type === "directory")) return found;
    const slash = at.lastIndexOf("/");
    if (slash <= 0) return at === path ? undefined : index.get("/");
    at = at.slice(0, slash);
  }
}

function noticeRead(name: string, arg: unknown): void {
  const watch = active;
  if (!watch) return;
  const path = pathArgument(arg);
  if (path === undefined) return;
  const manager = managerOf(watch.collection, path);
  if (!manager) return;
  const found = callerLocation(watch.isUserFile, THIS_FILE);
  // Reads made by tend for the recipe (loading a file it includes) are not the recipe's.
  if (!found) return;
  const location = watch.mapLocation ? watch.mapLocation(found) : found;
  const key = `${location.file}:${location.line} ${path}`;
  if (watch.seen.has(key)) return;
  watch.seen.add(key);
  const ref = `${manager.type}[${manager.name}]`;
  watch.collection.warn(
    `compile-time read of ${path} (${name}) while ${ref}, declared at ${formatLocation(manager.location)}, manages it: ` +
      "the read sees the system as it was before converge, not as the resource will make it. " +
      "Use a guard (onlyIf/notIf) or lazy() so it is evaluated at converge time.",
    location,
  );
}

type AnyFunction = (...args: unknown[]) => unknown;

function wrapAll(target: Record<string, unknown>, names: readonly string[], prefix: string): () => void {
  const saved: [string, unknown][] = [];
  for (const name of names) {
    const original = target[name];
    if (typeof original !== "function") continue;
    const wrapped = function (this: unknown, ...args: unknown[]): unknown {
      noticeRead(`${prefix}${name}`, args[0]);
      return (original as AnyFunction).apply(this, args);
    };
    Object.assign(wrapped, original);
    saved.push([name, original]);
    target[name] = wrapped;
  }
  return () => {
    for (const [name, original] of saved) target[name] = original;
  };
}

/**
 * Starts watching recipe code's reads for `collection`; returns the
 * function that stops it. Warnings go to `collection.warnings`.
 */
export function watchCompileReads(
  collection: ResourceCollection,
  options: Pick<Watch, "isUserFile" | "mapLocation"> = {},
): () => void {
  if (active) return () => undefined;
  active = { collection, ...options, seen: new Set() };
  const target = fs as unknown as Record<string, unknown>;
  const undo = [
    wrapAll(target, SYNC, ""),
    wrapAll(target, CALLBACK, ""),
    wrapAll(fs.promises as unknown as Record<string, unknown>, PROMISES, "promises."),
  ];
  syncBuiltinESMExports();
  return () => {
    for (const u of undo) u();
    syncBuiltinESMExports();
    active = undefined;
  };
}
