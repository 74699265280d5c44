/**
 * Parsing timestamps as Puppet does with Ruby's DateTime._strptime: each
 * directive of the format consumes its field, whitespace in the format
 * matches any whitespace, anything left over fails the format.
 */
import { TypeSystemError } from "./base.js";

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const MONTH_NAMES = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];
const DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
const DAY_NAMES = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];

export interface Parsed {
  year?: number;
  mon?: number;
  mday?: number;
  yday?: number;
  hour?: number;
  min?: number;
  sec?: number;
  /** Fraction of a second in nanoseconds. */
  frac?: bigint;
  zone?: string;
  merid?: number;
  seconds?: bigint;
}

const EXPAND: Record<string, string> = {
  F: "%Y-%m-%d",
  T: "%H:%M:%S",
  R: "%H:%M",
  D: "%m/%d/%y",
  x: "%m/%d/%y",
  X: "%H:%M:%S",
  r: "%I:%M:%S %p",
  c: "%a %b %e %H:%M:%S %Y",
  v: "%e-%b-%Y",
  "+": "%a %b %e %H:%M:%S %Z %Y",
};

/** DateTime._strptime: the fields of `text` read with `format`, or undefined when it does not match entirely. */
export function strptime(text: string, format: string): Parsed | undefined {
  const out: Parsed = {};
  let pos = 0;
  const num = (maxDigits: number, signed = false): number | undefined => {
    const re = new RegExp(`^${signed ? "[+-]?" : ""}\\d{1,${maxDigits}}`);
    const m = re.exec(text.slice(pos));
    if (!m) return undefined;
    pos += m[0].length;
    return Number(m[0]);
  };
  const word = (list: string[], full: string[]): number | undefined => {
    const rest = text.slice(pos).toLowerCase();
    for (let i = 0; i < full.length; i++) {
      if (rest.startsWith(full[i] as string)) {
        pos += (full[i] as string).length;
        return i;
      }
    }
    for (let i = 0; i < list.length; i++) {
      if (rest.startsWith(list[i] as string)) {
        pos += (list[i] as string).length;
        return i;
      }
    }
    return undefined;
  };
  const walk = (fmt: string): boolean => {
    for (let i = 0; i < fmt.length; i++) {
      const c = fmt[i] as string;
      if (/\s/.test(c)) {
        while (pos < text.length && /\s/.test(text[pos] as string)) pos++;
        continue;
      }
      if (c !== "%" || i + 1 >= fmt.length) {
        if (text[pos] !== c) return false;
        pos++;
        continue;
      }
      let d = fmt[++i] as string;
      while ("-_0^#".includes(d) && i + 1 < fmt.length) d = fmt[++i] as string;
      let width: number | undefined;
      while (/[0-9]/.test(d) && i + 1 < fmt.length) {
        width = (width ?? 0) * 10 + Number(d);
        d = fmt[++i] as string;
      }
      if (d === ":" && fmt[i + 1] === "z") d = fmt[++i] as string;
      const exp = EXPAND[d];
      if (exp) {
        if (!walk(exp)) return false;
        continue;
      }
      let v: number | undefined;
      switch (d) {
        case "Y": {
          const m = /^[+-]?\d+/.exec(text.slice(pos));
          if (!m) return false;
          const digits =
            width !== undefined
              ? m[0].slice(0, width)
              : m[0].length > 4 && /^\d/.test(m[0])
                ? m[0].slice(0, Math.max(4, m[0].length))
                : m[0];
          pos += digits.length;
          out.year = Number(digits);
          break;
        }
        case "C":
          v = num(width ?? 2, true);
          if (v === undefined) return false;
          out.year = v * 100 + ((out.year ?? 0) % 100);
          break;
        case "y":
          v = num(width ?? 2);
          if (v === undefined) return false;
          out.year = v + (v < 69 ? 2000 : 1900);
          break;
        case "m":
          v = num(width ?? 2);
          if (v === undefined || v < 1 || v > 12) return false;
          out.mon = v;
          break;
        case "d":
        case "e":
          if (text[pos] === " ") pos++;
          v = num(width ?? 2);
          if (v === undefined || v < 1 || v > 31) return false;
          out.mday = v;
          break;
        case "j":
          v = num(width ?? 3);
          if (v === undefined || v < 1 || v > 366) return false;
          out.yday = v;
          break;
        case "H":
        case "k":
          if (text[pos] === " ") pos++;
          v = num(width ?? 2);
          if (v === undefined || v > 24) return false;
          out.hour = v;
          break;
        case "I":
        case "l":
          if (text[pos] === " ") pos++;
          v = num(width ?? 2);
          if (v === undefined || v < 1 || v > 12) return false;
          out.hour = v;
          break;
        case "M":
          v = num(width ?? 2);
          if (v === undefined || v > 59) return false;
          out.min = v;
          break;
        case "S":
          v = num(width ?? 2);
          if (v === undefined || v > 60) return false;
          out.sec = v;
          break;
        case "L":
        case "N": {
          const m = new RegExp(`^\\d${width !== undefined ? `{1,${width}}` : "+"}`).exec(text.slice(pos));
          if (!m) return false;
          pos += m[0].length;
          out.frac = BigInt(m[0].padEnd(9, "0").slice(0, 9));
          break;
        }
        case "p":
        case "P": {
          const m = /^([aApP])\.?[mM]\.?/.exec(text.slice(pos));
          if (!m) return false;
          pos += m[0].length;
          out.merid = (m[1] as string).toLowerCase() === "p" ? 12 : 0;
          break;
        }
        case "b":
        case "h":
        case "B":
          v = word(MONTHS, MONTH_NAMES);
          if (v === undefined) return false;
          out.mon = v + 1;
          break;
        case "a":
        case "A":
          if (word(DAYS, DAY_NAMES) === undefined) return false;
          break;
        case "u":
        case "w":
          if (num(1) === undefined) return false;
          break;
        case "z":
        case "Z": {
          const m = /^(?:[+-]\d{1,2}(?::?\d{2}(?::?\d{2})?)?|[A-Za-z][A-Za-z ]*[A-Za-z]|Z)/.exec(
            text.slice(pos),
          );
          if (!m) return false;
          pos += m[0].length;
          out.zone = m[0];
          break;
        }
        case "s": {
          const m = /^-?\d+/.exec(text.slice(pos));
          if (!m) return false;
          pos += m[0].length;
          out.seconds = BigInt(m[0]);
          break;
        }
        case "Q": {
          const m = /^-?\d+/.exec(text.slice(pos));
          if (!m) return false;
          pos += m[0].length;
          out.seconds = BigInt(m[0]) / 1000n;
          out.frac = (BigInt(m[0]) % 1000n) * 1_000_000n;
          break;
        }
        case "n":
        case "t":
          while (pos < text.length && /\s/.test(text[pos] as string)) pos++;
          break;
        case "%":
          if (text[pos] !== "%") return false;
          pos++;
          break;
        default:
          return false;
      }
    }
    return true;
  };
  if (!walk(format)) return undefined;
  if (pos < text.length) return undefined;
  if (out.merid !== undefined && out.hour !== undefined) out.hour = (out.hour % 12) + out.merid;
  return out;
}

/** A zone's offset from UTC in seconds: `UTC`, `Z`, `+02:00`, `-0500`, `GMT`, a few names. */
export function utcOffset(zone: string): number {
  const z = zone.trim();
  const m = /^([+-])(\d{1,2})(?::?(\d{2}))?(?::?(\d{2}))?$/.exec(z);
  if (m) {
    const s = Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0);
    return m[1] === "-" ? -s : s;
  }
  const named: Record<string, number> = {
    utc: 0,
    z: 0,
    gmt: 0,
    ut: 0,
    est: -5 * 3600,
    edt: -4 * 3600,
    cst: -6 * 3600,
    cdt: -5 * 3600,
    mst: -7 * 3600,
    mdt: -6 * 3600,
    pst: -8 * 3600,
    pdt: -7 * 3600,
    cet: 3600,
    cest: 7200,
  };
  const n = named[z.toLowerCase()];
  if (n === undefined) throw new TypeSystemError(`Unable to parse timezone '${zone}'`);
  return n;
}

/** Nanoseconds since the epoch for parsed fields (Time.utc semantics: missing fields default), or undefined when invalid. */
export function parsedToNanos(p: Parsed, timezone?: string): bigint | undefined {
  if (p.seconds !== undefined) return p.seconds * 1_000_000_000n + (p.frac ?? 0n);
  const year = p.year ?? new Date().getUTCFullYear();
  let mon = p.mon ?? 1;
  let mday = p.mday ?? 1;
  if (p.yday !== undefined && p.mon === undefined) {
    const d = new Date(Date.UTC(year, 0, p.yday));
    mon = d.getUTCMonth() + 1;
    mday = d.getUTCDate();
  }
  const daysIn = new Date(Date.UTC(year, mon, 0)).getUTCDate();
  if (mday > daysIn) return undefined;
  const ms = Date.UTC(year, mon - 1, mday, p.hour ?? 0, p.min ?? 0, p.sec ?? 0);
  let ns = BigInt(ms) * 1_000_000n + (p.frac ?? 0n);
  const zone = timezone ?? p.zone;
  if (zone !== undefined) ns -= BigInt(utcOffset(zone)) * 1_000_000_000n;
  return ns;
}

export const TIMESTAMP_FORMATS_WO_TZ = ["%FT%T.%N", "%FT%T", "%F %T.%N", "%F %T", "%F"];
export const TIMESTAMP_FORMATS = [
  "%FT%T.%N %Z",
  "%FT%T %Z",
  "%F %T.%N %Z",
  "%F %T %Z",
  "%F %Z",
  ...TIMESTAMP_FORMATS_WO_TZ,
];

/** Timestamp.parse: with Puppet's default formats, one format or a list, and an optional timezone. */
export function parseTimestampText(
  text: string,
  format?: string | readonly string[],
  timezone?: string,
): bigint {
  const hasTz = timezone !== undefined && timezone !== "";
  const formats = format ?? (hasTz ? TIMESTAMP_FORMATS_WO_TZ : TIMESTAMP_FORMATS);
  let parsed: Parsed | undefined;
  if (typeof formats === "string") {
    parsed = strptime(text, formats);
    if (!parsed) throw new TypeSystemError(`Unable to parse '${text}' using format '${formats}'`);
    if (hasTz && parsed.zone !== undefined)
      throw new TypeSystemError(
        "Using a Timezone designator in format specification is mutually exclusive to providing an explicit timezone argument",
      );
  } else {
    for (const f of formats) {
      const p = strptime(text, f);
      if (!p || (hasTz && p.zone !== undefined)) continue;
      parsed = p;
      break;
    }
    if (!parsed)
      throw new TypeSystemError(`Unable to parse '${text}' using any of the formats ${formats.join(", ")}`);
  }
  const ns = parsedToNanos(parsed, hasTz ? timezone : undefined);
  if (ns === undefined) throw new TypeSystemError("argument out of range");
  return ns;
}
