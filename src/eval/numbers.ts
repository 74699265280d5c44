/**
 * Numbers as CFEngine 3.21 reads and writes them in `int` and `real`
 * values: integer suffixes (`k`=1000, `K`=1024, `m`, `M`, `g`, `G`), `inf`
 * and `now`, and reals printed with six decimals.
 */

/** 3.21's `inf` for integers. */
export const CF_INFINITY = 999_999_999;

/** The k/m/g (decimal) and K/M/G (binary) suffixes of 3.21's integers. */
export const CF_INT_MULTIPLIERS: Readonly<Record<string, number>> = {
  k: 1000,
  K: 1024,
  m: 1000 ** 2,
  M: 1024 ** 2,
  g: 1000 ** 3,
  G: 1024 ** 3,
};

/** An integer value; undefined when the text is not one. */
export function parseCfInt(text: string, now: () => number = () => Date.now()): number | undefined {
  const trimmed = text.trim();
  if (trimmed === "inf") return CF_INFINITY;
  if (trimmed === "now") return Math.floor(now() / 1000);
  const match = /^([+-]?\d+)([kKmMgG%]?)$/.exec(trimmed);
  if (!match) return undefined;
  const base = Number(match[1]);
  const suffix = match[2];
  // `%` is accepted and means the number itself.
  return suffix && suffix !== "%" ? base * CF_INT_MULTIPLIERS[suffix] : base;
}

/** A real value; undefined when the text is not one. */
export function parseCfReal(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === "inf") return CF_INFINITY;
  const match = /^([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)([kKmMgG%]?)$/.exec(trimmed);
  if (!match) return undefined;
  const base = Number(match[1]);
  const suffix = match[2];
  return suffix && suffix !== "%" ? base * CF_INT_MULTIPLIERS[suffix] : base;
}

/** A real as C's `%lf` prints it (`-0.0` keeps its sign, which toFixed drops). */
export function formatReal(value: number): string {
  return Object.is(value, -0) ? "-0.000000" : value.toFixed(6);
}
