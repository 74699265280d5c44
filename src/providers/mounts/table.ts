/**
 * The mount table as the kernel shows it (`/proc/self/mounts`, the format
 * of fstab(5) with octal escapes), parsed into entries. Reading it is
 * the provider's "inspect" step for mounts; the path may be given so
 * tests can point it at a file of their own.
 */
import { readFileSync } from "node:fs";

/** One mounted file system. */
export interface MountEntry {
  /** What is mounted: a device, `host:/path`, `//host/share`, a name (`tmpfs`). */
  readonly source: string;
  /** Where it is mounted. */
  readonly target: string;
  readonly fstype: string;
  readonly options: readonly string[];
}

export const DEFAULT_MOUNT_TABLE = "/proc/self/mounts";

/** Decodes the `\ooo` escapes the kernel writes for spaces, tabs, newlines and backslashes. */
export function decodeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/** Parses mount table text; lines with fewer than three fields are passed over. */
export function parseMountTable(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of text.split("\n")) {
    const fields = line.trim().split(/\s+/);
    const [source, target, fstype, options] = fields;
    if (source === undefined || target === undefined || fstype === undefined || source.startsWith("#"))
      continue;
    entries.push({
      source: decodeMountField(source),
      target: decodeMountField(target),
      fstype,
      options: options === undefined ? [] : options.split(","),
    });
  }
  return entries;
}

/** Reads and parses the mount table; throws the system error when it cannot be read. */
export function readMountTable(path: string = DEFAULT_MOUNT_TABLE): MountEntry[] {
  return parseMountTable(readFileSync(path, "utf8"));
}

/** File system types served by another host. */
const FOREIGN_TYPES: ReadonlySet<string> = new Set(["nfs", "nfs4", "cifs", "smb3", "smbfs", "panfs"]);

/** Whether an entry is a network file system (by its type). */
export function isForeignType(entry: MountEntry): boolean {
  return FOREIGN_TYPES.has(entry.fstype) || entry.fstype.startsWith("nfs");
}

/**
 * The line `mount` (util-linux) prints for an entry, which some agents
 * parse instead of the table: `SOURCE on TARGET type TYPE (OPTIONS)`.
 */
export function mountCommandLine(entry: MountEntry): string {
  return `${entry.source} on ${entry.target} type ${entry.fstype} (${entry.options.join(",")})`;
}

/** The entries mounted on `target`, oldest first. */
export function mountsOn(table: readonly MountEntry[], target: string): MountEntry[] {
  return table.filter((entry) => entry.target === target);
}
