/**
 * File status without exceptions: undefined when the object is absent or
 * cannot be looked at (the callers treat both alike, as cf-agent's
 * `lstat() == -1` checks do).
 */
import { lstatSync, realpathSync, type Stats, statSync } from "node:fs";

export function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

export function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

export function realpathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
