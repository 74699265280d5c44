/**
 * JSON numbers as 3.21 holds them. Its JSON primitives keep their text: a
 * number written with a dot is a real, any other an integer. Copying one into
 * a variable makes it again from its value (a real printed with `%.4f`, an
 * integer through a C `int`), so stored data prints `1.0` as `1.0000`; inline
 * JSON handed straight to a function (`storejson('[1.0]')`, `join()`,
 * `nth()`) is not copied and keeps the text as written.
 *
 * tend holds most numbers as plain numbers: an integer, or a real with a
 * fraction (`Number.isInteger` tells them apart). The rest are boxed.
 */
import { decimalToCInt } from "../text/c-int.js";
import { type PrintfSpec, formatFixed } from "./functions/c-printf.js";

/**
 * A JSON number a plain number cannot stand for: a real with a whole value
 * (`1.0`), or, in inline JSON read for one function call, a number whose text
 * differs from how 3.21 would print it once stored (`2.50`, `1e-3`, `-0`).
 */
export class BoxedNumber {
  constructor(
    readonly value: number,
    readonly real: boolean,
    readonly text?: string,
  ) {}
  /** JSON.stringify and other plain-JSON consumers see the number. */
  toJSON(): number {
    return this.value;
  }
}

export type JsonNumber = number | BoxedNumber;

/** A real as 3.21's `JsonRealCreate` makes one: infinities and NaN become 0; a whole value is boxed. */
export function jsonReal(value: number): JsonNumber {
  const finite = Number.isFinite(value) ? value : 0;
  return Number.isInteger(finite) ? new BoxedNumber(finite, true) : finite;
}

/**
 * A number read from JSON text. With `keepText` (inline JSON for one call)
 * the text is kept where it differs from the stored form; otherwise the
 * number is as a variable holds it. An integer with an exponent (`1e3`),
 * which 3.21 cannot store (see validate/json-numbers.ts), reads as its value.
 */
export function parsedJsonNumber(text: string, keepText: boolean): JsonNumber {
  const real = text.includes(".");
  const stored = real ? jsonReal(Number(text)) : /[eE]/.test(text) ? Number(text) : decimalToCInt(text);
  if (!keepText || jsonNumberText(stored) === text) return stored;
  return new BoxedNumber(Number(text), real, text);
}

/** The number as copying it into a variable leaves it: text dropped, a real rounded to four places. */
export function storedJsonNumber(value: JsonNumber): JsonNumber {
  const real = value instanceof BoxedNumber ? value.real : !Number.isInteger(value);
  const plain = value instanceof BoxedNumber ? value.value : value;
  if (real) return jsonReal(Number(formatFixed(plain, FOUR_PLACES)));
  return value instanceof BoxedNumber ? decimalToCInt(String(Math.trunc(plain))) : plain;
}

/** The number as 3.21's JSON writer, nth() and join() give it: its text, an integer as is, a real with four decimals. */
export function jsonNumberText(value: JsonNumber): string {
  if (typeof value === "number")
    return Number.isInteger(value) ? String(value) : formatFixed(value, FOUR_PLACES);
  if (value.text !== undefined) return value.text;
  return value.real ? formatFixed(value.value, FOUR_PLACES) : String(value.value);
}

/** The number as a list item or `$(d[k])` gives it (3.21's StringFromDouble: a real with two decimals). */
export function jsonNumberScalar(value: JsonNumber): string {
  if (typeof value === "number")
    return Number.isInteger(value) ? String(value) : formatFixed(value, TWO_PLACES);
  return value.real ? formatFixed(value.value, TWO_PLACES) : String(Math.trunc(value.value));
}

/** Whether 3.21 holds the number as a real. */
export function isJsonReal(value: JsonNumber): boolean {
  return value instanceof BoxedNumber ? value.real : !Number.isInteger(value);
}

const FOUR_PLACES: PrintfSpec = { flags: "", long: false, width: 0, precision: 4, conversion: "f" };
const TWO_PLACES: PrintfSpec = { ...FOUR_PLACES, precision: 2 };
