/**
 * A strftime subset for `strftime()` and time-based classes.
 */
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

interface Parts {
  year: number;
  month: number;
  day: number;
  hours: number;
  minutes: number;
  seconds: number;
  weekday: number;
}

function partsOf(date: Date, utc: boolean): Parts {
  return utc
    ? {
        year: date.getUTCFullYear(),
        month: date.getUTCMonth(),
        day: date.getUTCDate(),
        hours: date.getUTCHours(),
        minutes: date.getUTCMinutes(),
        seconds: date.getUTCSeconds(),
        weekday: date.getUTCDay(),
      }
    : {
        year: date.getFullYear(),
        month: date.getMonth(),
        day: date.getDate(),
        hours: date.getHours(),
        minutes: date.getMinutes(),
        seconds: date.getSeconds(),
        weekday: date.getDay(),
      };
}

const two = (n: number): string => String(n).padStart(2, "0");

function dayOfYear(p: Parts): number {
  const start = Date.UTC(p.year, 0, 1);
  return Math.floor((Date.UTC(p.year, p.month, p.day) - start) / 86_400_000) + 1;
}

/** Formats a date like C's strftime for the common conversions. */
export function formatTime(format: string, date: Date, utc: boolean): string {
  const p = partsOf(date, utc);
  const table: Record<string, () => string> = {
    Y: () => String(p.year),
    y: () => two(p.year % 100),
    m: () => two(p.month + 1),
    d: () => two(p.day),
    e: () => String(p.day).padStart(2, " "),
    H: () => two(p.hours),
    I: () => two(p.hours % 12 || 12),
    M: () => two(p.minutes),
    S: () => two(p.seconds),
    j: () => String(dayOfYear(p)).padStart(3, "0"),
    a: () => DAYS[p.weekday].slice(0, 3),
    A: () => DAYS[p.weekday],
    b: () => MONTHS[p.month].slice(0, 3),
    h: () => MONTHS[p.month].slice(0, 3),
    B: () => MONTHS[p.month],
    p: () => (p.hours < 12 ? "AM" : "PM"),
    u: () => String(p.weekday || 7),
    w: () => String(p.weekday),
    s: () => String(Math.floor(date.getTime() / 1000)),
    F: () => `${p.year}-${two(p.month + 1)}-${two(p.day)}`,
    T: () => `${two(p.hours)}:${two(p.minutes)}:${two(p.seconds)}`,
    n: () => "\n",
    t: () => "\t",
    "%": () => "%",
  };
  return format.replace(/%([a-zA-Z%])/g, (whole, c: string) => table[c]?.() ?? whole);
}
