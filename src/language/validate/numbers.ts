/**
 * Numbers as 3.21 reads them in attribute values: an optional sign, digits,
 * and one optional unit letter (`k`, `K`, `m`, `M`, `g`, `G`, `%`).
 */

/** The sentinel 3.21 uses for "not an integer"; a literal equal to it is refused too. */
const NOT_AN_INTEGER = -678;
const INFINITY_VALUE = 999999999;

const MULTIPLIERS: Readonly<Record<string, number>> = {
  k: 1000,
  K: 1024,
  m: 1000 * 1000,
  M: 1024 * 1024,
  g: 1000 * 1000 * 1000,
  G: 1024 * 1024 * 1024,
};

/** Splits `text` into the number at its start and what follows. */
function splitNumber(text: string, pattern: RegExp): { digits: string; rest: string } | null {
  const match = pattern.exec(text);
  return match ? { digits: match[0], rest: text.slice(match[0].length) } : null;
}

/** Whether anything but whitespace follows the unit character. */
function hasTrailingJunk(rest: string): boolean {
  return rest.length > 1 && rest.slice(1).trim().length > 0;
}

/** The integer value of `text`, or null where 3.21 cannot read one. */
export function parseInteger(text: string): number | null {
  if (text === "inf") return INFINITY_VALUE;
  if (text === "now") return Math.floor(Date.now() / 1000);
  const parts = splitNumber(text, /^\s*[+-]?\d+/);
  if (!parts || hasTrailingJunk(parts.rest)) return null;
  let value = Number.parseInt(parts.digits, 10);
  if (value === NOT_AN_INTEGER) return null;
  const unit = parts.rest[0];
  if (unit === "%") return value < 0 || value > 100 ? null : -value;
  if (unit !== undefined && unit in MULTIPLIERS) value *= MULTIPLIERS[unit];
  return value;
}

/** The real value of `text`, or null where 3.21 cannot read one. */
export function parseReal(text: string): number | null {
  const parts = splitNumber(
    text,
    /^\s*[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)/i,
  );
  if (!parts || hasTrailingJunk(parts.rest)) return null;
  let value = Number.parseFloat(parts.digits.replace(/inf(inity)?/i, "Infinity"));
  const unit = parts.rest[0];
  if (unit === "%") return value < 0 || value > 100 ? null : -value;
  if (unit !== undefined && unit in MULTIPLIERS) value *= MULTIPLIERS[unit];
  return value;
}

/** Reads a table range `min,max` (`inf` allowed as max). */
export function parseBounds(range: string | undefined): { min: number; max: number } | null {
  if (!range) return null;
  const [low, high] = range.split(",");
  if (high === undefined) return null;
  const min = Number.parseFloat(low);
  const max = high.trim() === "inf" ? INFINITY_VALUE : Number.parseFloat(high);
  return Number.isNaN(min) || Number.isNaN(max) ? null : { min, max };
}
