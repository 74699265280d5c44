/**
 * Events of the account, cron and host types, built the way Puppet's
 * properties word them: `ip changed '10.0.0.5' to '10.0.0.6'`, `defined
 * 'weekday' as ['1']`, `undefined 'hour' from ['2']`, `created`,
 * `removed`, and in noop `current_value 'a', should be 'b' (noop)`. Each
 * property says how its current and desired values read (some of
 * Puppet's list properties show the current value joined and unquoted).
 */
import type { ParamValue } from "../../catalog/model.js";
import type { ResourceEvent } from "../../catalog/resource-type.js";
import { formatValue } from "../format.js";

/** A value as Puppet's format_value_for_display shows it (strings quoted, arrays bracketed). */
export const displayValue = formatValue;

/** One property out of sync: its values as the report holds them and as messages show them. */
export interface PropertyDiff {
  readonly property: string;
  readonly previous: ParamValue;
  readonly desired: ParamValue;
  /** How the values read in messages; `displayValue` of each unless told. */
  readonly previousText?: string;
  readonly desiredText?: string;
}

/** The message of a synced change, as Puppet's Property#change_to_s. */
export function changeMessage(diff: PropertyDiff): string {
  const is = diff.previousText ?? displayValue(diff.previous);
  const should = diff.desiredText ?? displayValue(diff.desired);
  if (diff.previous === "absent") return `defined '${diff.property}' as ${should}`;
  if (diff.desired === "absent") return `undefined '${diff.property}' from ${is}`;
  return `${diff.property} changed ${is} to ${should}`;
}

/** The event of a property: synced, pending in noop, or failed with the reason. */
export function propertyEvent(
  diff: PropertyDiff,
  status: ResourceEvent["status"],
  failure?: string,
): ResourceEvent {
  const base = {
    property: diff.property,
    previousValue: diff.previous,
    desiredValue: diff.desired,
    name: `${diff.property}_changed`,
    status,
  };
  const is = diff.previousText ?? displayValue(diff.previous);
  const should = diff.desiredText ?? displayValue(diff.desired);
  if (status === "noop") return { ...base, message: `current_value ${is}, should be ${should} (noop)` };
  if (status === "failure")
    return { ...base, message: `change from ${is} to ${should} failed: ${failure ?? "unknown error"}` };
  return { ...base, message: changeMessage(diff) };
}

/** The `ensure` event of a resource created (`created`) or removed (`removed`). */
export function ensureEvent(
  type: string,
  desired: "present" | "absent",
  status: ResourceEvent["status"],
  failure?: string,
): ResourceEvent {
  const previous = desired === "present" ? "absent" : "present";
  const diff = { property: "ensure", previous, desired };
  const base = {
    property: "ensure",
    previousValue: previous,
    desiredValue: desired,
    name: `${type}_${desired === "present" ? "created" : "removed"}`,
    status,
  };
  if (status === "success") return { ...base, message: desired === "present" ? "created" : "removed" };
  return { ...propertyEvent(diff, status, failure), name: base.name };
}

/** A parameter as text (numbers and booleans as they print), or undefined when unset. */
export function textParam(value: ParamValue | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

/** A parameter that may be one value or an array, as a list of texts; undefined when unset. */
export function listParam(value: ParamValue | undefined): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const values = Array.isArray(value) ? value : [value];
  return values.map((v) => textParam(v as ParamValue) ?? JSON.stringify(v));
}
