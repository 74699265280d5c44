/**
 * A decimal integer as 3.21 holds a JSON integer once it is copied into a
 * variable: `(int) strtol(text)`, the low 32 bits, so 12345678901 becomes
 * -539222987. `-0` is 0. The text must be an optional minus and digits.
 */
export function decimalToCInt(digits: string): number {
  const value = Number(digits);
  if (value >= INT_MIN && value <= INT_MAX) return value === 0 ? 0 : value;
  return Number(BigInt.asIntN(32, BigInt(digits)));
}

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;
