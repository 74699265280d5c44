/**
 * The pieces of C's printf and scanf that format() relies on: `%d %o %x`
 * on a long, `%f` on a double, `%s` on bytes, with flags, width and
 * precision, and the leading-number reading of sscanf("%ld"/"%lf").
 */

export interface PrintfSpec {
  readonly flags: string;
  /** `l` or `ll`: the argument is a long; without it only its low 32 bits (an int) are used. */
  readonly long: boolean;
  readonly width: number;
  readonly precision: number | undefined;
  readonly conversion: string;
}

/** Parses `%[flags][width][.precision][l|ll]conv`; undefined for anything else. */
export function parseSpec(piece: string): PrintfSpec | undefined {
  const match = /^%([-+ #0']*)(\d*)(?:\.(\d*))?(ll|l)?([a-zA-Z])$/.exec(piece);
  if (!match) return undefined;
  return {
    flags: match[1],
    long: match[4] !== undefined,
    width: Number(match[2] || 0),
    precision: match[3] === undefined ? undefined : Number(match[3] || 0),
    conversion: match[5],
  };
}

const LONG_MAX = (1n << 63n) - 1n;
const LONG_MIN = -(1n << 63n);

/** sscanf(text, "%ld"): the leading integer, clamped to a long; 0 when there is none. */
export function scanLong(text: string): bigint {
  const match = /^\s*([+-]?\d+)/.exec(text);
  if (!match) return 0n;
  const value = BigInt(match[1]);
  return value > LONG_MAX ? LONG_MAX : value < LONG_MIN ? LONG_MIN : value;
}

/** sscanf(text, "%lf"): the leading floating-point number; 0 when there is none. */
export function scanDouble(text: string): number {
  const match =
    /^\s*([+-]?(?:inf(?:inity)?|nan|0x[0-9a-f]*\.?[0-9a-f]*(?:p[+-]?\d+)?|(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?))/i.exec(
      text,
    );
  if (!match) return 0;
  const raw = match[1].toLowerCase();
  const sign = raw.startsWith("-") ? -1 : 1;
  const body = raw.replace(/^[+-]/, "");
  if (body.startsWith("inf")) return sign * Number.POSITIVE_INFINITY;
  if (body.startsWith("nan")) return Number.NaN;
  if (body.startsWith("0x")) return sign * parseHexFloat(body.slice(2));
  return sign * Number(body);
}

function parseHexFloat(body: string): number {
  const [mantissa, exponent = "0"] = body.split("p");
  const [whole, fraction = ""] = mantissa.split(".");
  const digits = `${whole}${fraction}` || "0";
  return Number.parseInt(digits, 16) * 2 ** (Number(exponent) - 4 * fraction.length);
}

/** Pads a formatted number or string to the spec's width. */
function pad(sign: string, body: string, spec: PrintfSpec, zeroAllowed: boolean): string {
  const length = sign.length + body.length;
  if (length >= spec.width) return sign + body;
  const fill = spec.width - length;
  if (spec.flags.includes("-")) return sign + body + " ".repeat(fill);
  if (zeroAllowed && spec.flags.includes("0")) return sign + "0".repeat(fill) + body;
  return " ".repeat(fill) + sign + body;
}

/** `%d`, `%o` or `%x` of a long. */
export function formatInteger(long: bigint, spec: PrintfSpec): string {
  const value = spec.long ? long : BigInt.asIntN(32, long);
  const bits = spec.long ? 64n : 32n;
  const unsigned = value < 0n && spec.conversion !== "d" ? value + (1n << bits) : value;
  const magnitude = unsigned < 0n ? -unsigned : unsigned;
  let digits = magnitude.toString(spec.conversion === "o" ? 8 : spec.conversion === "x" ? 16 : 10);
  if (spec.precision !== undefined)
    digits = spec.precision === 0 && magnitude === 0n ? "" : digits.padStart(spec.precision, "0");
  let sign = "";
  if (spec.conversion === "d")
    sign = value < 0n ? "-" : spec.flags.includes("+") ? "+" : spec.flags.includes(" ") ? " " : "";
  if (spec.flags.includes("#") && spec.conversion === "o" && !digits.startsWith("0")) digits = `0${digits}`;
  if (spec.flags.includes("#") && spec.conversion === "x" && magnitude !== 0n) sign = "0x";
  return pad(sign, digits, spec, spec.precision === undefined);
}

/** `%f` of a double, rounded from its exact binary value (ties to even, as glibc). */
export function formatFixed(value: number, spec: PrintfSpec): string {
  const negative = value < 0 || Object.is(value, -0);
  const sign = negative ? "-" : spec.flags.includes("+") ? "+" : spec.flags.includes(" ") ? " " : "";
  if (!Number.isFinite(value)) {
    const word = Number.isNaN(value) ? "nan" : "inf";
    return pad(Number.isNaN(value) ? (spec.flags.includes("+") ? "+" : "") : sign, word, spec, false);
  }
  const precision = spec.precision ?? 6;
  let body = fixedDigits(Math.abs(value), precision);
  if (precision === 0 && spec.flags.includes("#")) body += ".";
  return pad(sign, body, spec, true);
}

/** The exact decimal expansion of a non-negative double, rounded to `precision` places. */
function fixedDigits(value: number, precision: number): string {
  const [mantissa, exponent] = decompose(value);
  // value = mantissa * 2^exponent = mantissa * 5^-e / 10^-e when e < 0.
  let scaled: bigint;
  let places: number;
  if (exponent >= 0) {
    scaled = mantissa << BigInt(exponent);
    places = 0;
  } else {
    scaled = mantissa * 5n ** BigInt(-exponent);
    places = -exponent;
  }
  let rounded: bigint;
  if (places <= precision) rounded = scaled * 10n ** BigInt(precision - places);
  else {
    const divisor = 10n ** BigInt(places - precision);
    rounded = scaled / divisor;
    const remainder = scaled % divisor;
    const twice = remainder * 2n;
    if (twice > divisor || (twice === divisor && rounded % 2n === 1n)) rounded += 1n;
  }
  const digits = rounded.toString().padStart(precision + 1, "0");
  if (precision === 0) return digits;
  return `${digits.slice(0, -precision)}.${digits.slice(-precision)}`;
}

function decompose(value: number): [bigint, number] {
  if (value === 0) return [0n, 0];
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const bits = view.getBigUint64(0);
  const exponentBits = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  if (exponentBits === 0) return [fraction, -1074];
  return [fraction | (1n << 52n), exponentBits - 1075];
}

/** `%s` of a byte string: precision cuts, width pads (both in bytes). */
export function formatBytes(bytes: string, spec: PrintfSpec): string {
  const body = spec.precision === undefined ? bytes : bytes.slice(0, spec.precision);
  return pad("", body, spec, false);
}
