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
