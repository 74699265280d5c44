/**
 * The order `ifconfig -a` lists interfaces in, as `localeCompare(b, "en",
 * { numeric: true })` gives it, without ICU: building a collator costs
 * several milliseconds, paid at every start because sys.* variables need the
 * order. Exact for printable ASCII (interface names); other characters sort
 * after it by code point.
 */

/** Printable ASCII by its rank in ICU's root collation; a letter's two cases share a rank. */
const RANKED = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz";
const DIGIT_RANK = RANKED.indexOf("0");

function rankOf(code: number): number {
  const lower = code >= 65 && code <= 90 ? code + 32 : code;
  const rank = lower < 128 ? RANKED.indexOf(String.fromCharCode(lower)) : -1;
  return rank === -1 ? RANKED.length + code : rank;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** The end of the run of digits starting at `from`. */
function digitsEnd(text: string, from: number): number {
  let end = from;
  while (end < text.length && isDigit(text.charCodeAt(end))) end++;
  return end;
}

/** Two runs of digits by value; leading zeros do not count. */
function compareNumbers(a: string, b: string): number {
  const x = a.replace(/^0+/, "");
  const y = b.replace(/^0+/, "");
  if (x.length !== y.length) return x.length - y.length;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Letters and digit runs by rank and value, case aside (ICU's primary strength). */
function comparePrimary(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(j);
    if (isDigit(x) && isDigit(y)) {
      const [endA, endB] = [digitsEnd(a, i), digitsEnd(b, j)];
      const byValue = compareNumbers(a.slice(i, endA), b.slice(j, endB));
      if (byValue !== 0) return byValue;
      [i, j] = [endA, endB];
      continue;
    }
    const byRank = (isDigit(x) ? DIGIT_RANK : rankOf(x)) - (isDigit(y) ? DIGIT_RANK : rankOf(y));
    if (byRank !== 0) return byRank;
    i++;
    j++;
  }
  return a.length - i - (b.length - j);
}

/** Same letters: the first that differs in case decides, lower case first (ICU's tertiary strength). */
function compareCase(a: string, b: string): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y && rankOf(x) === rankOf(y)) return x > y ? -1 : 1;
  }
  return 0;
}

/** Compares as `a.localeCompare(b, "en", { numeric: true })` does (0 when only leading zeros differ). */
export function compareNaturally(a: string, b: string): number {
  return Math.sign(comparePrimary(a, b) || compareCase(a, b));
}
