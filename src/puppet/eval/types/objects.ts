/**
 * The value classes of Puppet's object-like types: Timespan, Timestamp,
 * SemVer, SemVerRange, URI and Error, as PObject subclasses.
 */
import { equals as pEquals, hashKey, isHash, PHash, PObject, type PValue } from "../values.js";
import { TypeSystemError } from "./base.js";
import { uriParts } from "./model.js";
import { formatTypeArg } from "./quote.js";
import { formatTimespanNs, parseTimespanText } from "./timespan-format.js";
import { parseTimestampText, utcOffset } from "./timestamp-format.js";

const NS_PER_SEC = 1_000_000_000n;

/* --------------------------------------------------------------- Timespan */

export class Timespan extends PObject {
  readonly typeName = "Timespan";
  /** Nanoseconds (signed). */
  constructor(readonly nsecs: bigint) {
    super();
  }
  static fromSeconds(s: number | bigint): Timespan {
    if (typeof s === "bigint") return new Timespan(s * NS_PER_SEC);
    return new Timespan(BigInt(Math.round(s * 1e9)));
  }
  toFloat(): number {
    return Number(this.nsecs) / 1e9;
  }
  compare(o: PObject): number {
    const n = (o as Timespan).nsecs;
    return this.nsecs < n ? -1 : this.nsecs > n ? 1 : 0;
  }
  toString(): string {
    return formatTimespan(this, "%D-%H:%M:%S.%-N");
  }
  equals(other: PValue): boolean {
    return other instanceof Timespan && other.nsecs === this.nsecs;
  }
  hashKey(): string {
    return `Timespan:${this.nsecs}`;
  }
}

/** Timespan formatting with Puppet's directives: %D %H %M %S %L %N with flags and widths. */
export function formatTimespan(t: Timespan, format: string): string {
  return formatTimespanNs(t.nsecs, format);
}

/* -------------------------------------------------------------- Timestamp */

export class Timestamp extends PObject {
  readonly typeName = "Timestamp";
  /** Nanoseconds since the epoch, UTC. */
  constructor(readonly nsecs: bigint) {
    super();
  }
  static fromSeconds(s: number | bigint): Timestamp {
    if (typeof s === "bigint") return new Timestamp(s * NS_PER_SEC);
    return new Timestamp(BigInt(Math.round(s * 1e9)));
  }
  toFloat(): number {
    return Number(this.nsecs) / 1e9;
  }
  compare(o: PObject): number {
    const n = (o as Timestamp).nsecs;
    return this.nsecs < n ? -1 : this.nsecs > n ? 1 : 0;
  }
  toString(): string {
    return formatTimestamp(this, "%FT%T.%N %Z");
  }
  equals(other: PValue): boolean {
    return other instanceof Timestamp && other.nsecs === this.nsecs;
  }
  hashKey(): string {
    return `Timestamp:${this.nsecs}`;
  }
}

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** strftime as Ruby's Time#strftime does it, in UTC (or a fixed offset in minutes; `zone` is what %Z prints). */
export function strftime(nsecs: bigint, format: string, offsetMinutes = 0, zone = "UTC"): string {
  const secs = nsecs >= 0n ? nsecs / NS_PER_SEC : -((-nsecs + NS_PER_SEC - 1n) / NS_PER_SEC);
  const frac = nsecs - secs * NS_PER_SEC;
  const d = new Date(Number(secs) * 1000 + offsetMinutes * 60000);
  const pad = (n: number, w: number, flags: string, def = "0"): string => {
    if (flags.includes("-")) return String(n);
    const c = flags.includes("_") ? " " : flags.includes("0") ? "0" : def;
    const s = String(Math.abs(n)).padStart(w, c);
    return n < 0 ? `-${s}` : s;
  };
  const re = /%([-_0^#:]*)(\d*)([a-zA-Z%+])/g;
  return format.replace(re, (_all, flags: string, width: string, c: string) => {
    const w = width ? Number(width) : undefined;
    const up = (s: string): string => (flags.includes("^") ? s.toUpperCase() : s);
    const year = d.getUTCFullYear();
    const mon = d.getUTCMonth();
    const day = d.getUTCDate();
    const hour = d.getUTCHours();
    const yday = Math.floor((Date.UTC(year, mon, day) - Date.UTC(year, 0, 1)) / 86400000) + 1;
    switch (c) {
      case "Y":
        return pad(year, w ?? 1, flags);
      case "C":
        return pad(Math.floor(year / 100), w ?? 2, flags);
      case "y":
        return pad(year % 100, w ?? 2, flags);
      case "m":
        return pad(mon + 1, w ?? 2, flags);
      case "B":
        return up(MONTHS[mon] as string);
      case "b":
      case "h":
        return up((MONTHS[mon] as string).slice(0, 3));
      case "d":
        return pad(day, w ?? 2, flags);
      case "e":
        return pad(day, w ?? 2, flags, " ");
      case "j":
        return pad(yday, w ?? 3, flags);
      case "H":
        return pad(hour, w ?? 2, flags);
      case "k":
        return pad(hour, w ?? 2, flags, " ");
      case "I":
        return pad(hour % 12 === 0 ? 12 : hour % 12, w ?? 2, flags);
      case "l":
        return pad(hour % 12 === 0 ? 12 : hour % 12, w ?? 2, flags, " ");
      case "P":
        return hour < 12 ? "am" : "pm";
      case "p":
        return flags.includes("#") ? (hour < 12 ? "am" : "pm") : hour < 12 ? "AM" : "PM";
      case "M":
        return pad(d.getUTCMinutes(), w ?? 2, flags);
      case "S":
        return pad(d.getUTCSeconds(), w ?? 2, flags);
      case "L":
        return frac
          .toString()
          .padStart(9, "0")
          .slice(0, w ?? 3)
          .padEnd(w ?? 3, "0");
      case "N":
        return frac
          .toString()
          .padStart(9, "0")
          .slice(0, w ?? 9)
          .padEnd(w ?? 9, "0");
      case "z": {
        const sign = offsetMinutes < 0 ? "-" : "+";
        const a = Math.abs(offsetMinutes);
        const hh = String(Math.floor(a / 60)).padStart(2, "0");
        const mm = String(a % 60).padStart(2, "0");
        return flags.includes(":") ? `${sign}${hh}:${mm}` : `${sign}${hh}${mm}`;
      }
      case "Z":
        return zone;
      case "U":
      case "W": {
        const wd = d.getUTCDay();
        const startDay = c === "U" ? wd : (wd + 6) % 7;
        return pad(Math.floor((yday - 1 - startDay + 7) / 7), w ?? 2, flags);
      }
      case "V":
      case "G":
      case "g": {
        const [isoYear, isoWeek] = isoWeekOf(year, mon, day);
        if (c === "V") return pad(isoWeek, w ?? 2, flags);
        if (c === "G") return pad(isoYear, w ?? 4, flags);
        return pad(isoYear % 100, w ?? 2, flags);
      }
      case "A":
        return up(DAYS[d.getUTCDay()] as string);
      case "a":
        return up((DAYS[d.getUTCDay()] as string).slice(0, 3));
      case "u":
        return String(d.getUTCDay() === 0 ? 7 : d.getUTCDay());
      case "w":
        return String(d.getUTCDay());
      case "s":
        return secs.toString();
      case "n":
        return "\n";
      case "t":
        return "\t";
      case "%":
        return "%";
      case "F":
        return `${pad(year, 4, "")}-${pad(mon + 1, 2, "")}-${pad(day, 2, "")}`;
      case "T":
      case "X":
        return `${pad(hour, 2, "")}:${pad(d.getUTCMinutes(), 2, "")}:${pad(d.getUTCSeconds(), 2, "")}`;
      case "R":
        return `${pad(hour, 2, "")}:${pad(d.getUTCMinutes(), 2, "")}`;
      case "D":
      case "x":
        return `${pad(mon + 1, 2, "")}/${pad(day, 2, "")}/${pad(year % 100, 2, "")}`;
      case "c":
        return `${(DAYS[d.getUTCDay()] as string).slice(0, 3)} ${(MONTHS[mon] as string).slice(0, 3)} ${pad(day, 2, "", " ")} ${pad(hour, 2, "")}:${pad(d.getUTCMinutes(), 2, "")}:${pad(d.getUTCSeconds(), 2, "")} ${year}`;
      case "+":
        return `${(DAYS[d.getUTCDay()] as string).slice(0, 3)} ${(MONTHS[mon] as string).slice(0, 3)} ${pad(day, 2, "", " ")} ${pad(hour, 2, "")}:${pad(d.getUTCMinutes(), 2, "")}:${pad(d.getUTCSeconds(), 2, "")} UTC ${year}`;
    }
    return _all;
  });
}

/**
 * Timestamp#format: strftime in UTC, or in `timezone` — a zone string
 * (`+02:00`, `EST`...) or an offset in minutes — where %Z is then empty, as
 * with Ruby's fixed offsets.
 */
export function formatTimestamp(t: Timestamp, format: string, timezone?: string | number): string {
  if (timezone === undefined || timezone === "") return strftime(t.nsecs, format);
  const minutes = typeof timezone === "number" ? timezone : utcOffset(timezone) / 60;
  return strftime(t.nsecs, format, minutes, "");
}

function isoWeekOf(year: number, mon: number, day: number): [number, number] {
  const t = Date.UTC(year, mon, day);
  const wd = (new Date(t).getUTCDay() + 6) % 7; // Monday 0
  const thursday = new Date(t + (3 - wd) * 86400000);
  const isoYear = thursday.getUTCFullYear();
  const ordinal = Math.floor((thursday.getTime() - Date.UTC(isoYear, 0, 1)) / 86400000);
  return [isoYear, 1 + Math.floor(ordinal / 7)];
}

/** Parses a timestamp in Puppet's default formats (or the given ones), UTC unless a zone is given. */
export function parseTimestamp(s: string, format?: string | readonly string[], timezone?: string): Timestamp {
  return new Timestamp(parseTimestampText(s, format, timezone));
}

/** Parses a timespan in Puppet's default formats (or the given ones). */
export function parseTimespan(s: string, format?: string | readonly string[]): Timespan {
  return new Timespan(parseTimespanText(s, format));
}

export function parseTimespanArg(v: PValue): Timespan {
  if (v instanceof Timespan) return v;
  if (typeof v === "bigint" || typeof v === "number") return Timespan.fromSeconds(v);
  if (typeof v === "string") return parseTimespan(v);
  throw new TypeSystemError(`Cannot create a Timespan from ${String(v)}`);
}

export function parseTimestampArg(v: PValue): Timestamp {
  if (v instanceof Timestamp) return v;
  if (typeof v === "bigint" || typeof v === "number") return Timestamp.fromSeconds(v);
  if (typeof v === "string") return parseTimestamp(v);
  throw new TypeSystemError(`Cannot create a Timestamp from ${String(v)}`);
}

/* ----------------------------------------------------------------- SemVer */

export class SemVer extends PObject {
  readonly typeName = "SemVer";
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly prerelease?: string,
    readonly build?: string,
  ) {
    super();
  }
  static parse(s: string): SemVer {
    const m =
      /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/.exec(
        s,
      );
    if (!m) throw new TypeSystemError(`The string '${s}' cannot be converted to SemVer`);
    return new SemVer(BigInt(m[1] as string), BigInt(m[2] as string), BigInt(m[3] as string), m[4], m[5]);
  }
  compare(o: SemVer): number {
    for (const k of ["major", "minor", "patch"] as const)
      if (this[k] !== o[k]) return this[k] < o[k] ? -1 : 1;
    if (this.prerelease === o.prerelease) return 0;
    if (this.prerelease === undefined) return 1;
    if (o.prerelease === undefined) return -1;
    const a = this.prerelease.split(".");
    const b = o.prerelease.split(".");
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const x = a[i];
      const y = b[i];
      if (x === undefined) return -1;
      if (y === undefined) return 1;
      const xn = /^\d+$/.test(x);
      const yn = /^\d+$/.test(y);
      if (xn && yn) {
        const d = BigInt(x) - BigInt(y);
        if (d !== 0n) return d < 0n ? -1 : 1;
      } else if (xn !== yn) return xn ? -1 : 1;
      else if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  }
  asRange(): SemVerRange {
    return new SemVerRange(`${this} - ${this}`, [[{ op: "=", v: this }]]);
  }
  toString(): string {
    return `${this.major}.${this.minor}.${this.patch}${this.prerelease !== undefined ? `-${this.prerelease}` : ""}${this.build !== undefined ? `+${this.build}` : ""}`;
  }
  equals(other: PValue): boolean {
    return other instanceof SemVer && other.toString() === this.toString();
  }
  hashKey(): string {
    return `SemVer:${this.toString()}`;
  }
}

interface Comparator {
  op: "=" | "<" | "<=" | ">" | ">=";
  v: SemVer;
}

export class SemVerRange extends PObject {
  readonly typeName = "SemVerRange";
  /** A union of intersections of comparators. */
  constructor(
    readonly text: string,
    readonly sets: readonly (readonly Comparator[])[],
  ) {
    super();
  }
  includes(v: PObject): boolean {
    if (!(v instanceof SemVer)) return false;
    return this.sets.some((set) =>
      set.every((c) => {
        const d = v.compare(c.v);
        switch (c.op) {
          case "=":
            return d === 0;
          case "<":
            return d < 0;
          case "<=":
            return d <= 0;
          case ">":
            return d > 0;
          case ">=":
            return d >= 0;
        }
        return false;
      }),
    );
  }
  toString(): string {
    return this.text;
  }
  equals(other: PValue): boolean {
    return other instanceof SemVerRange && other.text === this.text;
  }
  hashKey(): string {
    return `SemVerRange:${this.text}`;
  }
}

/** Parses an npm-style version range as SemanticPuppet does (`>=1.0.0 <2.0.0`, `1.x`, `~1.2`, `^1.2.3`, `1.0.0 - 2.0.0`, `||`). */
export function parseSemVerRange(s: string): SemVerRange {
  try {
    return parseRange(s);
  } catch (e) {
    if (e instanceof TypeSystemError) throw new TypeSystemError(`Unparsable version range: "${s}"`);
    throw e;
  }
}

function parseRange(s: string): SemVerRange {
  const text = s.trim();
  const sets: Comparator[][] = [];
  for (const part of text.split(/\s*\|\|\s*/)) {
    const set: Comparator[] = [];
    const hy = /^(\S+)\s+-\s+(\S+)$/.exec(part);
    if (hy) {
      set.push(...partial(hy[1] as string, ">="), ...partial(hy[2] as string, "<="));
    } else {
      const tokens = part
        .replace(/([<>=~^]+)\s+/g, "$1")
        .split(/\s+/)
        .filter((x) => x.length > 0);
      if (tokens.length === 0) set.push({ op: ">=", v: new SemVer(0n, 0n, 0n) });
      for (const tok of tokens) {
        const m = /^(<=|>=|<|>|=|~>|~|\^)?v?(.*)$/.exec(tok) as RegExpExecArray;
        set.push(...partial(m[2] as string, (m[1] ?? "") as string));
      }
    }
    sets.push(set);
  }
  return new SemVerRange(text, sets);
}

function partial(v: string, op: string): Comparator[] {
  const m =
    /^(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(v);
  if (!m) throw new TypeSystemError(`Unparsable version range: "${v}"`);
  const wild = (x: string | undefined): boolean => x === undefined || /^[xX*]$/.test(x);
  const major = wild(m[1]) ? undefined : BigInt(m[1] as string);
  const minor = major === undefined || wild(m[2]) ? undefined : BigInt(m[2] as string);
  const patch = minor === undefined || wild(m[3]) ? undefined : BigInt(m[3] as string);
  const pre = m[4];
  const sv = (a: bigint, b: bigint, c: bigint, p?: string): SemVer => new SemVer(a, b, c, p);
  if (major === undefined) return [{ op: ">=", v: sv(0n, 0n, 0n) }];
  const lowFull = sv(major, minor ?? 0n, patch ?? 0n, pre);
  const upper = (): SemVer =>
    minor === undefined
      ? sv(major + 1n, 0n, 0n, "")
      : patch === undefined
        ? sv(major, minor + 1n, 0n, "")
        : sv(major, minor, patch + 1n, "");
  switch (op) {
    case "":
    case "=":
      if (patch !== undefined) return [{ op: "=", v: lowFull }];
      return [
        { op: ">=", v: lowFull },
        { op: "<", v: upper() },
      ];
    case ">=":
      return [{ op: ">=", v: lowFull }];
    case ">":
      return patch !== undefined ? [{ op: ">", v: lowFull }] : [{ op: ">=", v: upper() }];
    case "<":
      return [{ op: "<", v: sv(major, minor ?? 0n, patch ?? 0n, pre ?? "") }];
    case "<=":
      return patch !== undefined ? [{ op: "<=", v: lowFull }] : [{ op: "<", v: upper() }];
    case "~":
    case "~>": {
      const up = minor === undefined ? sv(major + 1n, 0n, 0n, "") : sv(major, minor + 1n, 0n, "");
      return [
        { op: ">=", v: lowFull },
        { op: "<", v: up },
      ];
    }
    case "^": {
      const up =
        major > 0n || minor === undefined
          ? sv(major + 1n, 0n, 0n, "")
          : minor > 0n || patch === undefined
            ? sv(0n, minor + 1n, 0n, "")
            : sv(0n, 0n, (patch ?? 0n) + 1n, "");
      return [
        { op: ">=", v: lowFull },
        { op: "<", v: up },
      ];
    }
  }
  throw new TypeSystemError(`Unparsable version range: "${v}"`);
}

/* -------------------------------------------------------------------- URI */

export class PuppetURI extends PObject {
  readonly typeName = "URI";
  constructor(readonly text: string) {
    super();
  }
  /** The URI's components (scheme, userinfo, host, port, path, query, fragment). */
  parts(): Record<string, string> {
    return uriParts(this.text);
  }
  toString(): string {
    return this.text;
  }
  equals(other: PValue): boolean {
    return other instanceof PuppetURI && other.text === this.text;
  }
  hashKey(): string {
    return `URI:${this.text}`;
  }
}

/* ------------------------------------------------------------------ Error */

export class PuppetError extends PObject {
  readonly typeName = "Error";
  constructor(
    readonly message: string,
    readonly kind?: string,
    readonly issueCode?: string,
    readonly partialResult?: PValue,
    readonly details?: PHash,
  ) {
    super();
  }
  initHash(): PHash {
    const h = new PHash();
    h.set("msg", this.message);
    // In the order of the Error type's attributes.
    if (this.kind !== undefined) h.set("kind", this.kind);
    if (this.details !== undefined) h.set("details", this.details);
    if (this.issueCode !== undefined) h.set("issue_code", this.issueCode);
    if (this.partialResult !== undefined) h.set("partial_result", this.partialResult);
    return h;
  }
  toString(): string {
    return `Error(${formatTypeArg(this.initHash())})`;
  }
  equals(other: PValue): boolean {
    return other instanceof PuppetError && pEquals(other.initHash(), this.initHash());
  }
  hashKey(): string {
    return `Error:${String(hashKey(this.initHash()))}`;
  }
}

export function isPHash(v: PValue): v is PHash {
  return isHash(v);
}
