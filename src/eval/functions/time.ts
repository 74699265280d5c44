/**
 * Time functions: now, on, ago, accumulated, laterthan. Dates are local
 * time, normalised the way C's `mktime` normalises them (month 13 is January
 * of the next year, day 0 the last day of the previous month).
 */
import { parseVarRef } from "../var-ref.js";
import { type Value, scalar } from "../values.js";
import { classResult, text } from "./args.js";
import { intFromString, toInt32 } from "./numbers.js";
import { type BuiltinFunction, type FunctionContext, defineFunction } from "./types.js";

/** Year, month, day, hour, minute, second, as `tm` fields would hold them. */
type DateFields = [number, number, number, number, number, number];

/**
 * Reads the six arguments as 3.21 does: each through `IntFromString`, whose
 * "no integer" marker (-678) is used as a value, not rejected.
 */
function dateFields(args: readonly Value[]): DateFields {
  const fields = args.map((arg) => toInt32(intFromString(text(arg) ?? "") ?? -678n));
  return fields as DateFields;
}

/** C's `mktime` on local time: seconds since the epoch, or -1 when out of range. */
export function makeTime(year: number, month: number, day: number, h: number, m: number, s: number): number {
  const date = new Date(2000, 0, 1);
  date.setFullYear(year, month, day);
  date.setHours(h, m, s, 0);
  const ms = date.getTime();
  return Number.isNaN(ms) ? -1 : Math.floor(ms / 1000);
}

/** The time the run started (`sys.systime`), or the current time. */
export function runStartTime(fc: FunctionContext): number {
  const systime = fc.ctx.getVariable(parseVarRef("sys.systime"));
  const seconds = systime && systime.type !== "data" ? Number(systime.value) : Number.NaN;
  return Number.isFinite(seconds) ? seconds : Math.floor(Date.now() / 1000);
}

function on(args: readonly Value[]): Value {
  const [year, month, day, h, m, s] = dateFields(args);
  // The day argument counts from 0.
  return scalar(String(makeTime(year, month, day + 1, h, m, s)), "int");
}

function ago(args: readonly Value[]): Value {
  const [years, months, days, hours, minutes, seconds] = dateFields(args);
  const now = new Date();
  const then = makeTime(
    now.getFullYear() - years,
    now.getMonth() - months,
    now.getDate() - days,
    now.getHours() - hours,
    now.getMinutes() - minutes,
    now.getSeconds() - seconds,
  );
  return scalar(String(Math.max(then, 0)), "int");
}

function accumulated(args: readonly Value[]): Value {
  const [years, months, days, hours, minutes, seconds] = dateFields(args);
  const total =
    BigInt(seconds) +
    BigInt(minutes) * 60n +
    BigInt(hours) * 3600n +
    BigInt(days) * 86_400n +
    BigInt(months) * 30n * 86_400n +
    BigInt(years) * 365n * 86_400n;
  return scalar(total.toString(), "int");
}

function laterThan(args: readonly Value[]): Value {
  const [year, month, day, h, m, s] = dateFields(args);
  // Here month and day count from 1.
  const then = makeTime(year, month - 1, day, h, m, s);
  return classResult(Math.floor(Date.now() / 1000) > then);
}

export const timeFunctions: readonly BuiltinFunction[] = [
  defineFunction("now", 0, 0, (_args, fc) => scalar(String(runStartTime(fc)), "int")),
  defineFunction("on", 6, 6, on),
  defineFunction("ago", 6, 6, ago),
  defineFunction("accumulated", 6, 6, accumulated),
  defineFunction("laterthan", 6, 6, laterThan),
];
