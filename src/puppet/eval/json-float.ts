/**
 * A Float in catalog JSON where the compiler marks one (a whole Float parameter): JSON.stringify
 * writes the number as before, and the command line prints it as Ruby does
 * (`1.0`, `1.0e+20`), so a whole Float is not taken for an Integer.
 */
export class JsonFloat {
  constructor(readonly value: number) {}
  toJSON(): number {
    return this.value;
  }
}

/**
 * Set (true, not enumerable) on a catalog's JSON whose numbers are all
 * Integers: the command line may then render it with JSON.stringify alone.
 */
export const PLAIN_JSON: unique symbol = Symbol("plain JSON");
