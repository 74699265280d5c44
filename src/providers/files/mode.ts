/**
 * File modes: mode strings (`"644"`, `"0644"`, `"u+rwx,go-w"`) read into
 * the bits to add and the bits to remove, as CFEngine 3.21 reads a perms
 * body's mode: an octal number sets every bit; a symbolic clause `who op
 * perms` adds (`+`), removes (`-`) or sets (`=`) bits for `u`, `g`, `o`
 * or `a`. And setting a path's mode (`setMode`).
 */
import { chmodSync } from "../../system/safe-fs.js";
import { lstatOrUndefined } from "./inspect.js";
import { type ActOptions, change, changedWith, type FileResult, failedWith, UNCHANGED } from "./result.js";

/** Bits a mode string adds and removes. */
export interface ModeMasks {
  readonly plus: number;
  readonly minus: number;
}

const WHO: Readonly<Record<string, number>> = { a: 0o7777, u: 0o4700, g: 0o2070, o: 0o0007 };
const WHAT: Readonly<Record<string, number>> = { r: 0o444, w: 0o222, x: 0o111, s: 0o6000 };

/** Mode strings read so far (a policy names a few modes many times). */
const parsedModes = new Map<string, ModeMasks | undefined>();

/** The masks of a mode string, or undefined when 3.21 would reject it. */
export function parseModeString(text: string): ModeMasks | undefined {
  const known = parsedModes.get(text);
  if (known !== undefined || parsedModes.has(text)) return known;
  const masks = readModeString(text);
  if (parsedModes.size < 1000) parsedModes.set(text, masks);
  return masks;
}

function readModeString(text: string): ModeMasks | undefined {
  let plus = 0;
  let minus = 0;
  for (const clause of text.split(",")) {
    const masks = /^[0-7]+$/.test(clause) ? parseOctal(clause) : parseSymbolic(clause);
    if (!masks) return undefined;
    plus |= masks.plus;
    minus |= masks.minus;
  }
  if (plus === 0 && minus === 0 && text !== "000" && text !== "0000") return undefined;
  return { plus, minus };
}

function parseOctal(clause: string): ModeMasks | undefined {
  // File-type bits cannot be set; like stat's mode, they are dropped.
  const value = Number.parseInt(clause, 8) & ~0o170000;
  if (value > 0o7777) return undefined;
  return { plus: value, minus: ~value & 0o7777 };
}

function parseSymbolic(clause: string): ModeMasks | undefined {
  const match = /^([augo]*)([-+=])([rwxst]*)$/.exec(clause);
  if (!match) return undefined;
  const [, who, op, what] = match;
  const affected = [...who].reduce((bits, c) => bits | WHO[c], 0);
  let value = 0;
  for (const c of what) value |= c === "t" ? 0o1000 : WHAT[c] & affected;
  if (op === "+") return { plus: value, minus: 0 };
  if (op === "-") return { plus: 0, minus: value };
  return { plus: value, minus: ~value & 0o7777 & affected };
}

/** The mode a file of `current` mode gets; `rxdirs` adds x where r is set (directories). */
export function applyMode(current: number, masks: ModeMasks, rxdirs: boolean): number {
  let mode = ((current & 0o7777) | masks.plus) & ~masks.minus;
  if (rxdirs) {
    for (const [r, x] of [
      [0o400, 0o100],
      [0o040, 0o010],
      [0o004, 0o001],
    ]) {
      if (mode & r) mode |= x;
    }
  }
  return mode & 0o7777;
}

/** A mode as cf-agent prints it: four octal digits. */
export function formatMode(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, "0");
}

/**
 * Gives `path` the permission bits `wanted` (chmod through a trusted link
 * at the leaf, as safe-fs does; a link itself has no mode to set and is
 * left alone). `current` saves a second lstat when the caller has one.
 * Fails with the chmod error; a path that is absent fails with ENOENT.
 */
export function setMode(
  path: string,
  wanted: number,
  options: ActOptions & { readonly current?: number } = {},
): FileResult {
  let current = options.current;
  if (current === undefined) {
    const stats = lstatOrUndefined(path);
    if (!stats) return failedWith(missing(path, "chmod"), "chmod");
    if (stats.isSymbolicLink()) return UNCHANGED;
    current = stats.mode & 0o7777;
  }
  wanted &= 0o7777;
  if (current === wanted) return UNCHANGED;
  const [from, to] = [formatMode(current), formatMode(wanted)];
  const made = [change("mode", from, to, `mode changed '${from}' to '${to}'`, options.noop)];
  if (options.noop) return changedWith(made);
  try {
    chmodSync(path, wanted);
  } catch (error) {
    return failedWith(error, "chmod");
  }
  return changedWith(made);
}

/** An ENOENT error shaped as node:fs gives it. */
export function missing(path: string, syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOENT: no such file or directory, ${syscall} '${path}'`), {
    code: "ENOENT",
    errno: -2,
    syscall,
    path,
  });
}
