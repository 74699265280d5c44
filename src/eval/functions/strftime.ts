/**
 * C's strftime as glibc does it in the C locale, for strftime(): every
 * conversion, glibc's flags (`_ - 0 ^ #`), field widths and the `E`/`O`
 * modifiers. Unknown conversions are copied as written.
 */
import { DAY_NAMES as DAYS, MONTH_NAMES as MONTHS } from "../calendar.js";

/** A broken-down time, as C's struct tm. */
interface Tm {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  wday: number;
  yday: number;
  /** Seconds east of UTC, and the zone's abbreviation (computed on demand: Intl is slow). */
  offset: number;
  readonly zone: string;
  /** What %s prints: mktime() of these fields read as local time. */
  epoch: number;
}

function brokenDown(when: number, utc: boolean): Tm | undefined {
  const date = new Date(when * 1000);
  if (Number.isNaN(date.getTime())) return undefined;
  const get = (utcName: string, localName: string) =>
    (date as unknown as Record<string, () => number>)[utc ? utcName : localName]();
  const year = get("getUTCFullYear", "getFullYear");
  const month = get("getUTCMonth", "getMonth");
  const day = get("getUTCDate", "getDate");
  const hour = get("getUTCHours", "getHours");
  const minute = get("getUTCMinutes", "getMinutes");
  const second = get("getUTCSeconds", "getSeconds");
  const yday = Math.round((Date.UTC(year, month, day) - Date.UTC(year, 0, 1)) / 86_400_000);
  const local = new Date(year, month, day, hour, minute, second);
  local.setFullYear(year);
  return {
    year,
    month,
    day,
    hour,
    minute,
    second,
    wday: get("getUTCDay", "getDay"),
    yday,
    offset: utc ? 0 : -date.getTimezoneOffset() * 60,
    get zone() {
      return utc ? "GMT" : zoneName(date);
    },
    epoch: Math.floor(local.getTime() / 1000),
  };
}

/** Built once: constructing an Intl formatter costs far more than using one. */
let zoneFormatter: Intl.DateTimeFormat | undefined;

function zoneName(date: Date): string {
  // UTC needs no time zone data; loading ICU's costs tens of milliseconds.
  const tz = process.env.TZ;
  if (date.getTimezoneOffset() === 0 && (tz === undefined || /^:?(UTC|UTC0|Etc\/UTC)$/.test(tz)))
    return "UTC";
  zoneFormatter ??= new Intl.DateTimeFormat("en-US", { timeZoneName: "short" });
  const part = zoneFormatter.formatToParts(date).find((p) => p.type === "timeZoneName");
  return part?.value ?? "";
}

/** ISO 8601 week-based year and week number. */
function isoWeek(tm: Tm): [number, number] {
  const weekday = (tm.wday + 6) % 7; // Monday is 0
  const thursday = tm.yday - weekday + 3;
  const daysInYear = (y: number) => ((y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 366 : 365);
  if (thursday < 0) {
    const previous = tm.year - 1;
    return [previous, Math.floor((thursday + daysInYear(previous)) / 7) + 1];
  }
  if (thursday >= daysInYear(tm.year)) return [tm.year + 1, 1];
  return [tm.year, Math.floor(thursday / 7) + 1];
}

type Field = [text: string, pad: "0" | " " | "", width: number];

const num = (n: number, width: number, pad: "0" | " " = "0"): Field => [String(n), pad, width];
const word = (s: string): Field => [s, "", 0];

/** The field of one conversion, or undefined when glibc does not know it. */
function field(conversion: string, tm: Tm): Field | undefined {
  const hour12 = tm.hour % 12 || 12;
  switch (conversion) {
    case "a":
      return word(DAYS[tm.wday].slice(0, 3));
    case "A":
      return word(DAYS[tm.wday]);
    case "b":
    case "h":
      return word(MONTHS[tm.month].slice(0, 3));
    case "B":
      return word(MONTHS[tm.month]);
    case "C":
      return num(Math.floor(tm.year / 100), 2);
    case "d":
      return num(tm.day, 2);
    case "e":
      return num(tm.day, 2, " ");
    case "G":
      return num(isoWeek(tm)[0], 1);
    case "g":
      return num(((isoWeek(tm)[0] % 100) + 100) % 100, 2);
    case "H":
      return num(tm.hour, 2);
    case "I":
      return num(hour12, 2);
    case "j":
      return num(tm.yday + 1, 3);
    case "k":
      return num(tm.hour, 2, " ");
    case "l":
      return num(hour12, 2, " ");
    case "m":
      return num(tm.month + 1, 2);
    case "M":
      return num(tm.minute, 2);
    case "n":
      return word("\n");
    case "t":
      return word("\t");
    case "p":
      return word(tm.hour < 12 ? "AM" : "PM");
    case "P":
      return word(tm.hour < 12 ? "am" : "pm");
    case "s":
      return num(tm.epoch, 1);
    case "S":
      return num(tm.second, 2);
    case "u":
      return num(tm.wday || 7, 1);
    case "U":
      return num(Math.floor((tm.yday + 7 - tm.wday) / 7), 2);
    case "V":
      return num(isoWeek(tm)[1], 2);
    case "w":
      return num(tm.wday, 1);
    case "W":
      return num(Math.floor((tm.yday + 7 - ((tm.wday + 6) % 7)) / 7), 2);
    case "y":
      return num(((tm.year % 100) + 100) % 100, 2);
    case "Y":
      return num(tm.year, 1);
    case "z":
      return word(offsetText(tm.offset));
    case "Z":
      return word(tm.zone);
    case "%":
      return word("%");
    default:
      return composite(conversion, tm);
  }
}

const COMPOSITES: Readonly<Record<string, string>> = {
  c: "%a %b %e %H:%M:%S %Y",
  D: "%m/%d/%y",
  F: "%Y-%m-%d",
  r: "%I:%M:%S %p",
  R: "%H:%M",
  T: "%H:%M:%S",
  x: "%m/%d/%y",
  X: "%H:%M:%S",
};

function composite(conversion: string, tm: Tm): Field | undefined {
  const format = COMPOSITES[conversion];
  return format === undefined ? undefined : word(render(format, tm));
}

function offsetText(seconds: number): string {
  const sign = seconds < 0 ? "-" : "+";
  const minutes = Math.floor(Math.abs(seconds) / 60);
  return `${sign}${String(Math.floor(minutes / 60)).padStart(2, "0")}${String(minutes % 60).padStart(2, "0")}`;
}

/** Applies glibc's flags and width to a field. */
function shape([value, pad, width]: Field, flags: string, wanted: string, conversion: string): string {
  let text = value;
  if (flags.includes("^")) text = text.toUpperCase();
  else if (flags.includes("#")) text = /[pZ]/.test(conversion) ? text.toLowerCase() : text.toUpperCase();
  const negative = text.startsWith("-");
  const digits = negative ? text.slice(1) : text;
  // An explicit width pads text fields with spaces too.
  let fill: string = pad === "" && wanted !== "" ? " " : pad;
  if (flags.includes("-")) fill = "";
  else if (flags.includes("_")) fill = " ";
  else if (flags.includes("0")) fill = "0";
  const size = wanted === "" ? (pad === "" ? 0 : width) : Number(wanted);
  if (fill === "" || digits.length + (negative ? 1 : 0) >= size) return text;
  if (fill === "0") return (negative ? "-" : "") + digits.padStart(size - (negative ? 1 : 0), "0");
  return text.padStart(size, " ");
}

function render(format: string, tm: Tm): string {
  return format.replace(
    /%([_\-0^#]*)(\d*)([EO]?)(.)?/gs,
    (whole, flags: string, width: string, _mod, c?: string) => {
      if (c === undefined) return whole;
      const f = field(c, tm);
      return f === undefined ? whole : shape(f, flags, width, c);
    },
  );
}

/**
 * strftime(format) of `when` (seconds since the epoch) in UTC (`gmtime`)
 * or the local zone. Undefined when the time cannot be broken down.
 */
export function strftime(format: string, when: number, utc: boolean): string | undefined {
  const tm = brokenDown(when, utc);
  return tm === undefined ? undefined : render(format, tm);
}
