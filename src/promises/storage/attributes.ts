/**
 * The attributes of a `storage` promise as cf-agent 3.21 reads them
 * (GetStorageAttributes): the `mount` and `volume` bodies, booleans true
 * only for "true" or "yes", numbers through 3.21's IntFromString (units,
 * a percentage kept as a negative number) with its defaults.
 */
import type { Logger } from "../../system/logger.js";
import { CF_INT_MULTIPLIERS } from "../../eval/numbers.js";
import type { ActivePromise } from "../contract.js";
import { asStrings, asText } from "../values.js";

/** 3.21's marker for "no number given". */
export const CF_NOINT = -678;

export interface MountAttributes {
  readonly type?: string;
  readonly source?: string;
  readonly server?: string;
  /** Undefined when not given (or empty). */
  readonly options?: readonly string[];
  readonly editFstab: boolean;
  readonly unmount: boolean;
}

export interface VolumeAttributes {
  readonly checkForeign: boolean;
  /** Bytes, or a percentage as a negative number; CF_NOINT when not given. */
  readonly freespace: number;
  readonly sensibleSize: number;
  readonly sensibleCount: number;
  readonly scanArrivals: boolean;
}

export interface StorageAttributes {
  readonly haveMount: boolean;
  readonly haveVolume: boolean;
  readonly mount: MountAttributes;
  readonly volume: VolumeAttributes;
}

/** 3.21's PromiseGetConstraintAsBoolean: only "true" and "yes" are true ("on" is not). */
function flag(text: string | undefined): boolean {
  return text === "true" || text === "yes";
}

/**
 * 3.21's IntFromString: a number with an optional unit (k, K, m, M, g, G;
 * `%` gives minus the percentage); CF_NOINT, with 3.21's error, when the
 * text is not one.
 */
export function intFromString(text: string | undefined, log: Logger): number {
  if (text === undefined) return CF_NOINT;
  if (text === "inf") return 999999999;
  const match = /^\s*([+-]?\d+)([\s\S])?\s*(\S)?/.exec(text);
  if (!match || Number(match[1]) === CF_NOINT) {
    if (text.includes("$"))
      log.verbose(`Ignoring failed to parse integer '${text}' because of possibly unexpanded variable`);
    else log.error(`Failed to parse integer number: ${text}`);
    return CF_NOINT;
  }
  const value = Number(match[1]);
  const unit = match[2];
  if (match[3] !== undefined) {
    if (unit === "$")
      log.verbose(`Ignoring failed to parse integer '${text}' because of possibly unexpanded variable`);
    else log.error(`Anomalous ending '${unit}${match[3]}' while parsing integer number: ${text}`);
    return CF_NOINT;
  }
  if (unit === undefined || unit === " ") return value;
  if (unit === "%") {
    if (value < 0 || value > 100) {
      log.error(`Percentage out of range: ${value}`);
      return CF_NOINT;
    }
    return value === 0 ? 0 : -value;
  }
  const factor = CF_INT_MULTIPLIERS[unit];
  if (factor === undefined) {
    log.verbose(`Ignoring bad quantifier '${unit}' in integer: ${text}`);
    return value;
  }
  return value * factor;
}

/** A C `(int)` cast of a long: the low 32 bits, signed. */
function toInt32(value: number): number {
  return Number(BigInt.asIntN(32, BigInt(Math.trunc(value))));
}

function readMount(promise: ActivePromise): MountAttributes {
  const text = (name: string) => asText(promise.bodyValue("mount", name));
  const options = asStrings(promise.bodyValue("mount", "mount_options"));
  return {
    type: text("mount_type"),
    source: text("mount_source"),
    server: text("mount_server"),
    options: options.length > 0 ? options : undefined,
    editFstab: flag(text("edit_fstab")),
    unmount: flag(text("unmount")),
  };
}

function readVolume(promise: ActivePromise, log: Logger): VolumeAttributes {
  const text = (name: string) => asText(promise.bodyValue("volume", name));
  const size = toInt32(intFromString(text("sensible_size"), log));
  const count = toInt32(intFromString(text("sensible_count"), log));
  return {
    checkForeign: flag(text("check_foreign")),
    freespace: intFromString(text("freespace"), log),
    sensibleSize: size === CF_NOINT ? 1000 : size,
    sensibleCount: count === CF_NOINT ? 2 : count,
    scanArrivals: flag(text("scan_arrivals")),
  };
}

/** Reads the promise's storage attributes (3.21 reads both bodies, given or not). */
export function readStorageAttributes(promise: ActivePromise, log: Logger): StorageAttributes {
  return {
    haveMount: promise.body("mount") !== undefined,
    haveVolume: promise.body("volume") !== undefined,
    mount: readMount(promise),
    volume: readVolume(promise, log),
  };
}
