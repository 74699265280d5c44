/**
 * Puppet's file modes, numeric (`0644`) and symbolic (`u=rw,go=r`, `a+X`),
 * as Puppet 7.23's file type reads, compares and reports them: a numeric
 * mode is kept without leading zeros and shown padded to four digits; a
 * symbolic mode is applied to the current mode each time it is compared;
 * a directory's numeric mode gains search wherever it has read.
 */

/** Why a mode is refused, in Puppet's words. */
export class ModeError extends Error {}

const NUMERIC = /^0?[0-7]{1,4}$/;
const CLAUSE = "[ugoa]*[-=+][-=+rstwxXugo]*";
const SYMBOLIC = new RegExp(`^(${CLAUSE})(,${CLAUSE})*$`);

/** Whether Puppet accepts `value` as a mode (`0644`, `755`, `u+x,go-w`). */
export function isValidMode(value: string): boolean {
  const normal = normalizeMode(value);
  return NUMERIC.test(normal) || SYMBOLIC.test(normal);
}

/** A numeric mode without its leading zeros (`0644` → `644`); a symbolic one as given. */
export function normalizeMode(value: string): string {
  return NUMERIC.test(value) ? Number.parseInt(value, 8).toString(8) : value;
}

/** A mode as Puppet shows it in messages: right-aligned on four characters with zeros. */
export function displayMode(value: string): string {
  return value.padStart(4, "0");
}

/** The mode bits of a stat, as Puppet reads them: four octal digits. */
export function modeOfStat(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, "0");
}

/** A directory's numeric mode with search added wherever read is set (Puppet's dirmask). */
export function directoryMask(value: string): string {
  if (!/^\d+$/.test(value)) return value;
  let bits = Number.parseInt(value, 8);
  if (bits & 0o400) bits |= 0o100;
  if (bits & 0o40) bits |= 0o10;
  if (bits & 0o4) bits |= 0o1;
  return bits.toString(8);
}

const PERMISSION: Readonly<Record<string, number>> = { r: 4, w: 2, x: 1 };
type Who = "u" | "g" | "o";
type Action = "=" | "+" | "-";

interface Bits {
  s: number;
  u: number;
  g: number;
  o: number;
}

function apply(action: Action | undefined, value: number, bits: number): number {
  if (action === undefined) throw new ModeError("Missing operation (-, =, or +)");
  return action === "-" ? value & ~bits : value | bits;
}

function specialBit(op: string, who: Who): number {
  if (op === "t") return 1;
  return who === "u" ? 4 : who === "g" ? 2 : 1;
}

/** One clause (`ug+rw`) applied to `final`; `snapshot` is the mode before the clause. */
function applyClause(part: string, final: Bits, anyExec: boolean, isDirectory: boolean): void {
  const match = /^([ugoa]*)([-+=].*)$/.exec(part);
  if (!match) throw new ModeError("Missing action");
  const to = match[1] || "a";
  const dsl = match[2] as string;
  const snapshot: Bits = { ...final };
  const whos = [...new Set(to.replaceAll("a", "ugo").split(""))] as Who[];
  for (const who of whos) {
    let value = snapshot[who];
    let action: Action | undefined;
    for (const op of dsl) {
      if (op === "-" || op === "+" || op === "=") {
        action = op;
        if (op === "=") value = 0;
      } else if (op === "u" || op === "g" || op === "o") value = apply(action, value, snapshot[op]);
      else if (op in PERMISSION) value = apply(action, value, PERMISSION[op] as number);
      else if (op === "X") {
        if (action !== "+") throw new ModeError("X only works with the '+' operator");
        if (isDirectory || anyExec) value = apply(action, value, 1);
      } else if (op === "s" || op === "t") final.s = apply(action, final.s, specialBit(op, who));
      else throw new ModeError("Unknown operation");
    }
    final[who] = value;
  }
}

/**
 * The mode `modification` makes of `current`: a numeric mode replaces it,
 * a symbolic one changes it clause by clause. Throws a ModeError worded as
 * Puppet's for a mode it cannot apply.
 */
export function modeToInt(modification: string, current = 0, isDirectory = false): number {
  if (modification === "") throw new ModeError("An empty mode string is illegal");
  if (/^[0-7]+$/.test(modification)) return Number.parseInt(modification, 8);
  if (/^\d+$/.test(modification)) throw new ModeError("Numeric modes must be in octal, not decimal!");
  const final: Bits = {
    s: (current & 0o7000) >> 9,
    u: (current & 0o700) >> 6,
    g: (current & 0o70) >> 3,
    o: current & 0o7,
  };
  const anyExec = (current & 0o111) !== 0;
  for (const part of modification.split(/\s*,\s*/)) {
    try {
      applyClause(part, final, anyExec, isDirectory);
    } catch (error) {
      const rest = part !== modification ? ` at ${JSON.stringify(part)}` : "";
      throw new ModeError(
        `${(error as Error).message}${rest} in symbolic mode ${JSON.stringify(modification)}`,
      );
    }
  }
  return (final.s << 9) | (final.u << 6) | (final.g << 3) | final.o;
}

/**
 * Whether a file whose mode is `current` (four octal digits) satisfies the
 * wanted mode `desired` (normalized), as Puppet's mode property compares.
 */
export function modeInSync(desired: string, current: string, isDirectory: boolean): boolean {
  const currentBits = Number.parseInt(current, 8);
  return normalizeMode(current) === modeToInt(desired, currentBits, isDirectory).toString(8);
}
