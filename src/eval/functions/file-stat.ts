/**
 * `filestat()` fields and the executable test 3.21 applies before running
 * commands, from `lstat` (links are not followed unless a field says so).
 */
import { type BigIntStats, lstatSync, readlinkSync, statSync } from "node:fs";
import { chopLastNode, compressPath, readLastNode } from "./paths.js";

/** `lstat` with big integers (inode and device numbers exceed 2^53); undefined when it fails. */
export function lstatBig(path: string): BigIntStats | undefined {
  try {
    return lstatSync(path, { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

const S_IFMT = 0o170000n;
const TYPES: Record<string, string> = {
  [String(0o060000)]: "block device",
  [String(0o020000)]: "character device",
  [String(0o040000)]: "directory",
  [String(0o010000)]: "FIFO/pipe",
  [String(0o120000)]: "symlink",
  [String(0o100000)]: "regular file",
  [String(0o140000)]: "socket",
};

function permissionString(mode: bigint): string {
  const bits = "rwxrwxrwx";
  let out = (mode & S_IFMT) === 0o040000n ? "d" : "-";
  for (let i = 0; i < 9; i++) out += mode & (1n << BigInt(8 - i)) ? bits[i] : "-";
  return out;
}

/** glibc's `major()` / `minor()` of a device number. */
function deviceMajor(dev: bigint): bigint {
  return ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
}
function deviceMinor(dev: bigint): bigint {
  return (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
}

const FIELDS: Record<string, (s: BigIntStats, path: string) => string> = {
  // Extended attributes cannot be read from Node without a native module;
  // a file without any gives "" in 3.21 too.
  xattr: () => "",
  size: (s) => String(s.size),
  gid: (s) => String(s.gid),
  uid: (s) => String(s.uid),
  ino: (s) => String(s.ino),
  nlink: (s) => String(s.nlink),
  ctime: (s) => String(s.ctimeNs / 1_000_000_000n),
  mtime: (s) => String(s.mtimeNs / 1_000_000_000n),
  atime: (s) => String(s.atimeNs / 1_000_000_000n),
  permstr: (s) => permissionString(s.mode),
  permoct: (s) => (s.mode & 0o777n).toString(8),
  modeoct: (s) => s.mode.toString(8),
  mode: (s) => String(s.mode),
  type: (s) => TYPES[String(s.mode & S_IFMT)] ?? "unknown",
  dev_minor: (s) => String(deviceMinor(s.dev)),
  dev_major: (s) => String(deviceMajor(s.dev)),
  devno: (s) => String(s.dev),
  dirname: (_s, path) => chopLastNode(path),
  basename: (_s, path) => readLastNode(path),
  linktarget: (s, path) => linkTarget(s, path, true),
  linktarget_shallow: (s, path) => linkTarget(s, path, false),
};

/**
 * One `filestat()` field. Undefined when the path cannot be `lstat`ed; an
 * unknown field gives "" as in 3.21.
 */
export function fileStatField(path: string, field: string): string | undefined {
  const stat = lstatBig(path);
  if (!stat) return undefined;
  return Object.hasOwn(FIELDS, field) ? FIELDS[field](stat, path) : "";
}

/** Follows a chain of links (up to 31), or one hop for the shallow form. */
function linkTarget(initial: BigIntStats, path: string, recurse: boolean): string {
  let stat: BigIntStats | undefined = initial;
  let current = path;
  for (let cycles = 0; stat?.isSymbolicLink() && cycles <= 30; cycles++) {
    let target: string;
    try {
      target = readlinkSync(current);
    } catch {
      return "";
    }
    if (!target.startsWith("/") && recurse) target = compressPath(`${chopLastNode(current)}/${target}`);
    current = target;
    if (!recurse) break;
    stat = lstatBig(current);
  }
  return current;
}

/**
 * 3.21's `IsExecutable`: the file exists, is not world-writable, and has the
 * execute bit that applies to this process (root counts as the owner).
 * `report` gets 3.21's error messages for a missing or world-writable file.
 */
export function isExecutable(path: string, report?: (message: string) => void): boolean {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(path);
  } catch {
    report?.(`Proposed executable file '${path}' doesn't exist`);
    return false;
  }
  if (stat.mode & 0o002) {
    report?.(`SECURITY ALERT: promised executable '${path}' is world writable! `);
    report?.("SECURITY ALERT: CFEngine will not execute this - requires human inspection");
    return false;
  }
  const uid = process.getuid?.() ?? 0;
  if (uid === stat.uid || uid === 0) return (stat.mode & 0o100) !== 0;
  if ((process.getgid?.() ?? 0) === stat.gid) return (stat.mode & 0o010) !== 0;
  if (stat.mode & 0o001) return true;
  return (process.getgroups?.() ?? []).includes(stat.gid) && (stat.mode & 0o010) !== 0;
}
