/**
 * The file type's properties (`ensure`, `content`, `target`, `owner`,
 * `group`, `mode`) as Puppet 7.23 retrieves, compares and shows them:
 * each has a current value read from the path, an in-sync test and the
 * text its change message and noop message use.
 */
import type { ParamValue } from "../../../catalog/model.js";
import { contentMatches } from "../../../providers/files/content.js";
import { checksumOfFile, digestsWholeContent } from "./checksum.js";
import type { Desired } from "./desired.js";
import type { AccountDatabase, FileState } from "../../../providers/files/index.js";
import { directoryMask, displayMode, modeInSync, modeOfStat } from "./mode.js";
import type { FileSpec } from "./params.js";

/** Ruby's display of a value in Puppet messages: strings in single quotes, numbers bare. */
export function show(value: string | number): string {
  if (typeof value === "number") return String(value);
  return value.includes("'") ? JSON.stringify(value) : `'${value}'`;
}

/** Puppet's ftype of what is at the path, or `absent`. */
export function ensureOf(state: FileState): string {
  if (state.kind !== "other") return state.kind;
  const stats = state.stats;
  if (stats?.isFIFO()) return "fifo";
  if (stats?.isSocket()) return "socket";
  return stats?.isCharacterDevice() ? "characterSpecial" : "blockSpecial";
}

export function ensureInSync(spec: FileSpec, wanted: string, current: string): boolean {
  if (current !== "absent" && !spec.replace) return true;
  if (wanted === "present") return current !== "absent";
  return current === wanted;
}

/** Whether Puppet treats the resource as a regular file (content only syncs then). */
export function shouldBeFile(desired: Desired, state: FileState): boolean {
  if (desired.ensure === "file") return true;
  if (desired.ensure && desired.ensure !== "present") return false;
  if (desired.ensure === "present") return state.kind === "absent" || state.kind === "file";
  return desired.content !== undefined || state.kind === "file";
}

/** The file's `{type}sum`; absent for a missing path, undefined for a directory or link. */
export function currentContent(spec: FileSpec, state: FileState): string | undefined {
  if (state.kind === "absent") return "absent";
  if (state.kind !== "file") return undefined;
  return checksumOfFile(spec.path, spec.checksum);
}

/** A property found out of sync: its values for the event and its messages. */
export interface Drift {
  readonly property: "ensure" | "content" | "target" | "owner" | "group" | "mode";
  readonly previous: ParamValue;
  readonly desired: ParamValue;
  /** The message of the change once made. */
  readonly message: string;
  /** `current_value X, should be Y (noop)`. */
  readonly noop: string;
  readonly event: string;
  /** Set when the change cannot be made (an owner naming nobody): its failure text. */
  readonly fails?: string;
}

function noopText(is: string, should: string): string {
  return `current_value ${is}, should be ${should} (noop)`;
}

/**
 * Whether the file holds exactly `bytes`, read no further than their length:
 * in sync without digesting the file. Unreadable: false, and the digest
 * path reports the error.
 */
function holds(path: string, bytes: Uint8Array): boolean {
  try {
    return contentMatches(path, bytes);
  } catch {
    return false;
  }
}

export function contentDrift(spec: FileSpec, desired: Desired, state: FileState): Drift | undefined {
  const want = desired.content;
  if (!want || !shouldBeFile(desired, state)) return undefined;
  if (
    want.bytes &&
    state.kind === "file" &&
    digestsWholeContent(spec.checksum) &&
    holds(spec.path, want.bytes)
  )
    return undefined;
  const is = currentContent(spec, state);
  if (is !== "absent" && !spec.replace) return undefined;
  if (is === want.sum) return undefined;
  const message =
    is === "absent" ? `defined content as '${want.sum}'` : `content changed '${is}' to '${want.sum}'`;
  return {
    property: "content",
    previous: is ?? null,
    // Puppet's content should is a binary string, which Psych writes as
    // base64 (!binary); its value is the checksum text, as here.
    desired: want.sum,
    message,
    noop: noopText(show(is ?? "nil"), show(want.sum)),
    event: "content_changed",
  };
}

export function targetDrift(spec: FileSpec, desired: Desired, state: FileState): Drift | undefined {
  const want = desired.target;
  if (want === undefined || desired.ensure !== "link" || spec.recurse) return undefined;
  if (!spec.replace && state.kind !== "absent") return undefined;
  const is = state.kind === "absent" ? "absent" : state.kind === "link" ? (state.target ?? "") : "notlink";
  if (is === want) return undefined;
  const message =
    is === "absent" ? `defined 'target' as ${show(want)}` : `target changed ${show(is)} to ${show(want)}`;
  return {
    property: "target",
    previous: is,
    desired: want,
    message,
    noop: noopText(show(is), show(want)),
    event: "target_changed",
  };
}

function idDrift(
  property: "owner" | "group",
  wanted: string | undefined,
  current: number,
  lookup: (name: string) => number | undefined,
  name: (id: number) => string | undefined,
  noop: boolean,
): Drift | undefined {
  if (wanted === undefined) return undefined;
  const id = lookup(wanted);
  const is = name(current) ?? current;
  if (id === undefined) {
    // Puppet fails the change (in noop it only shows it): no such account.
    const fails = noop ? undefined : `Could not find ${property === "owner" ? "user" : "group"} ${wanted}`;
    return {
      property,
      previous: current,
      desired: wanted,
      message: "",
      noop: noopText(show(is), show(wanted)),
      event: `${property}_changed`,
      fails,
    };
  }
  if (id === current) return undefined;
  const should = name(id) ?? id;
  return {
    property,
    previous: current,
    desired: id,
    message: `${property} changed ${show(is)} to ${show(should)}`,
    noop: noopText(show(is), show(should)),
    event: `${property}_changed`,
  };
}

export function ownerDrift(
  desired: Desired,
  state: FileState,
  accounts: AccountDatabase,
  noop: boolean,
): Drift | undefined {
  return idDrift(
    "owner",
    desired.owner,
    state.uid,
    (n) => accounts.userId(n),
    (i) => accounts.userName(i),
    noop,
  );
}

export function groupDrift(
  desired: Desired,
  state: FileState,
  accounts: AccountDatabase,
  noop: boolean,
): Drift | undefined {
  return idDrift(
    "group",
    desired.group,
    state.gid,
    (n) => accounts.groupId(n),
    (i) => accounts.groupName(i),
    noop,
  );
}

/** The mode wanted for what is there: a directory's numeric mode gains search where it has read. */
export function wantedMode(mode: string, state: FileState): string {
  return state.kind === "directory" ? directoryMask(mode) : mode;
}

export function modeDrift(
  spec: FileSpec,
  desired: Desired,
  state: FileState,
  newMode: (m: string) => string,
): Drift | undefined {
  if (desired.mode === undefined || state.kind === "absent") return undefined;
  if (state.kind === "link" && spec.links !== "follow") return undefined;
  const should = wantedMode(desired.mode, state);
  const is = modeOfStat(state.mode);
  if (modeInSync(should, is, state.kind === "directory")) return undefined;
  const numeric = /^\d+$/.test(should);
  const message = numeric
    ? `mode changed ${show(is)} to ${show(displayMode(should))}`
    : `mode changed ${show(is)} to ${show(displayMode(newMode(should)))} (${should})`;
  return {
    property: "mode",
    previous: is,
    // The report shows a numeric mode as Puppet's unmunge does: four digits.
    desired: numeric ? displayMode(should) : should,
    message,
    noop: noopText(show(is), show(displayMode(should))),
    event: "mode_changed",
  };
}
