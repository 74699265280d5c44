/**
 * Number parsing and printing the way 3.21 does it (`IntFromString`,
 * `DoubleFromString`, `printf("%lf")`), quirks included: a unit letter may
 * follow the number (`k`, `K`, `m`, `M`, `g`, `G`, `%`), anything after it
 * makes the value invalid, and an unknown single letter is ignored.
 */

/** The "no integer" marker of 3.21; a value that happens to equal it is invalid too. */
const CF_NOINT = -678n;
/** What `inf` means as an integer. */
export const CF_INFINITY = 999_999_999n;
const LONG_MAX = 9_223_372_036_854_775_807n;
const LONG_MIN = -9_223_372_036_854_775_808n;

const INT_UNITS: Record<string, bigint> = {
  k: 1000n,
  K: 1024n,
  m: 1_000_000n,
  M: 1024n ** 2n,
  g: 1_000_000_000n,
  G: 1024n ** 3n,
};

/** Splits `<number><one char><rest>` like `sscanf("%X%c%s")`; undefined when the rest is not blank. */
function splitUnit(raw: string, numberLength: number): { unit: string } | undefined {
  const unit = raw.charAt(numberLength);
  const rest = raw.slice(numberLength + 1).trim();
  return rest === "" ? { unit } : undefined;
}

/**
 * `IntFromString`: the integer of a string, or undefined where 3.21 gets its
 * "no integer" marker (garbage, a percentage out of 0..100). A percentage
 * comes back negated, as in 3.21. `now` needs the run's start time.
 */
export function intFromString(raw: string, now?: number): bigint | undefined {
  if (raw === "inf") return CF_INFINITY;
  if (raw === "now") return now === undefined ? undefined : BigInt(Math.floor(now));
  const match = /^\s*([+-]?\d+)/.exec(raw);
  if (!match) return undefined;
  const split = splitUnit(raw, match[0].length);
  if (!split) return undefined;
  let value = clamp(BigInt(match[1]));
  if (split.unit === "%") {
    if (value < 0n || value > 100n) return undefined;
    value = -value;
  } else {
    value *= INT_UNITS[split.unit] ?? 1n;
  }
  value = clamp(value);
  return value === CF_NOINT ? undefined : value;
}

function clamp(value: bigint): bigint {
  return value > LONG_MAX ? LONG_MAX : value < LONG_MIN ? LONG_MIN : value;
}

/** `IntFromString` narrowed to a JS number (safe for the ranges functions use). */
export function intNumber(raw: string | undefined, now?: number): number | undefined {
  if (raw === undefined) return undefined;
  const value = intFromString(raw, now);
  return value === undefined ? undefined : Number(value);
}

// What `%lf` accepts at the start of a string: decimal, hex, inf and nan.
const DOUBLE_PREFIX =
  /^\s*[+-]?(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?)/i;

/** Parses what `strtod` would from the start of `text`; undefined if nothing. */
export function scanDouble(text: string): { value: number; length: number } | undefined {
  const match = DOUBLE_PREFIX.exec(text);
  if (!match) return undefined;
  return { value: parseDoubleToken(match[0].trim()), length: match[0].length };
}

function parseDoubleToken(token: string): number {
  const sign = token.startsWith("-") ? -1 : 1;
  const body = token.replace(/^[+-]/, "").toLowerCase();
  if (body.startsWith("inf")) return sign * Number.POSITIVE_INFINITY;
  if (body.startsWith("nan")) return Number.NaN;
  if (!body.startsWith("0x")) return sign * Number(body);
  const [mantissa, exponent = "0"] = body.slice(2).split("p");
  const [whole, fraction = ""] = mantissa.split(".");
  const digits = Number.parseInt(whole + fraction || "0", 16);
  return sign * digits * 2 ** (Number(exponent) - 4 * fraction.length);
}

/** `DoubleFromString`: a real with an optional unit letter; undefined when invalid. */
export function doubleFromString(raw: string): number | undefined {
  const scanned = scanDouble(raw);
  if (!scanned || scanned.value === -123.45) return undefined;
  const split = splitUnit(raw, scanned.length);
  if (!split) return undefined;
  const factor = INT_UNITS[split.unit];
  if (factor !== undefined) return scanned.value * Number(factor);
  if (split.unit !== "%") return scanned.value;
  if (scanned.value < 0 || scanned.value > 100) return undefined;
  return -scanned.value;
}

/** `IsRealNumber`: whether `%lf` reads anything at all. */
export function isRealNumber(raw: string): boolean {
  return scanDouble(raw) !== undefined;
}

/** C's `printf("%lf")`: six decimals, `inf`, `-nan`... */
export function formatDouble(value: number): string {
  if (Number.isNaN(value)) return "-nan";
  if (!Number.isFinite(value)) return value > 0 ? "inf" : "-inf";
  if (Math.abs(value) >= 1e21) return `${BigInt(value).toString()}.000000`;
  const fixed = value.toFixed(6);
  return Object.is(value, -0) ? `-${fixed}` : fixed;
}

/** C's `(intmax_t) double` on x86-64: out of range (or NaN) gives the smallest integer. */
export function truncateToInt64(value: number): bigint {
  if (Number.isNaN(value) || value >= 2 ** 63 || value < -(2 ** 63)) return LONG_MIN;
  return BigInt(Math.trunc(value));
}

/** C's `(int)` of an integer value, as a 32-bit wrap. */
export function toInt32(value: bigint): number {
  return Number(BigInt.asIntN(32, value));
}
