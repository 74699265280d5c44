/**
 * Where the software inventory lives in the state directory, and how it is
 * read. Two kinds, as in 3.21:
 *
 * - package modules (v2): per module, the installed packages and the
 *   available updates. cf-agent keeps them in LMDB files
 *   (`packages_installed_<module>.lmdb`); tend keeps the same list, one
 *   `name,version,arch` line per package, in `packages_installed_<module>.csv`
 *   and `packages_updates_<module>.csv`.
 * - package_method bodies (v1): `software_packages.csv` (installed) and
 *   `software_patches_avail.csv` (updates), `name,version,arch,method` lines.
 *
 * Reading never fails: a missing file is an empty (or absent) inventory.
 */
import { readFileSync } from "node:fs";
import { posix } from "node:path";

export type InventoryKind = "installed" | "updates";

/** One package as a module lists it. */
export interface InventoryEntry {
  readonly name: string;
  readonly version: string;
  readonly arch: string;
}

/** The file holding a module's inventory of `kind`. */
export function moduleInventoryPath(statedir: string, kind: InventoryKind, module: string): string {
  return posix.join(statedir, `packages_${kind}_${module}.csv`);
}

/** The file holding the v1 (package_method) inventory of `kind`. */
export function legacyInventoryPath(statedir: string, kind: InventoryKind): string {
  return posix.join(statedir, kind === "installed" ? "software_packages.csv" : "software_patches_avail.csv");
}

/** The lines of a file, without empty ones; undefined when it cannot be read. */
export function readInventoryLines(path: string): string[] | undefined {
  try {
    return readFileSync(path, "utf8")
      .split("\n")
      .filter((line) => line !== "");
  } catch {
    return undefined;
  }
}

/** A module's inventory; undefined when it was never written. */
export function readModuleInventory(
  statedir: string,
  kind: InventoryKind,
  module: string,
): InventoryEntry[] | undefined {
  const lines = readInventoryLines(moduleInventoryPath(statedir, kind, module));
  return lines?.map(parseEntry);
}

function parseEntry(line: string): InventoryEntry {
  // Names and versions hold no commas; the architecture is the rest.
  const [name = "", version = "", ...arch] = line.split(",");
  return { name, version, arch: arch.join(",") };
}

/** The line of an entry in a module's inventory file. */
export function formatEntry(entry: InventoryEntry): string {
  return `${entry.name},${entry.version},${entry.arch}`;
}

/** A CSV field as 3.21's CSV writer writes it: quoted when it holds a quote, comma or line end. */
export function formatCsvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
