/**
 * The infix arithmetic of `eval()`, with the semantics of 3.21's PEG grammar:
 * `+ - == <= < >= >` share the lowest level and `^ ** * / %` the next, all
 * left-associative; a function takes a single value (`sqrt(2)`, not
 * `sqrt(1+1)`); constants take no trailing blanks; numbers may carry an SI
 * unit (`2k` is 2000). Text left over after a valid prefix is ignored.
 */

/** The outcome of an evaluation: a number, or the reason it failed. */
export type MathResult =
  | { readonly ok: true; readonly value: number }
  | { readonly ok: false; readonly error: string };

/** 3.21's threshold for "equal" in `==`, `<=`, `>=` and class mode. */
export const CLOSE_ENOUGH = 1e-17;

const CONSTANTS: readonly [string, number][] = [
  ["e", Math.E],
  ["log2e", Math.LOG2E],
  ["log10e", Math.LOG10E],
  ["ln2", Math.LN2],
  ["ln10", Math.LN10],
  // Ordered as the grammar orders them: "pi" shadows "pi_2" and "pi_4".
  ["pi", Math.PI],
  ["pi_2", Math.PI / 2],
  ["pi_4", Math.PI / 4],
  ["1_pi", 1 / Math.PI],
  ["2_pi", 2 / Math.PI],
  ["2_sqrtpi", 2 / Math.sqrt(Math.PI)],
  ["sqrt2", Math.SQRT2],
  ["sqrt1_2", Math.SQRT1_2],
];

const FUNCTIONS: readonly [string, (x: number) => number][] = [
  ["ceil", Math.ceil],
  ["floor", Math.floor],
  ["log10", Math.log10],
  ["log2", Math.log2],
  ["log", Math.log],
  ["sqrt", Math.sqrt],
  ["sin", Math.sin],
  ["cos", Math.cos],
  ["tan", Math.tan],
  ["asin", Math.asin],
  ["acos", Math.acos],
  ["atan", Math.atan],
  ["abs", Math.abs],
  ["step", (x) => (x < 0 ? 0 : 1)],
];

const UNITS: Record<string, number> = { k: 1e3, m: 1e6, g: 1e9, t: 1e12, p: 1e15 };

type Binary = (l: number, r: number) => number;

const SUM_OPERATORS: readonly [string, Binary][] = [
  ["+", (l, r) => l + r],
  ["-", (l, r) => l - r],
  ["==", (l, r) => Number(Math.abs(l - r) < CLOSE_ENOUGH)],
  ["<=", (l, r) => Number(l < r || Math.abs(l - r) < CLOSE_ENOUGH)],
  ["<", (l, r) => Number(l < r)],
  [">=", (l, r) => Number(l > r || Math.abs(l - r) < CLOSE_ENOUGH)],
  [">", (l, r) => Number(l > r)],
];

const PRODUCT_OPERATORS: readonly [string, Binary][] = [
  ["^", (l, r) => l ** r],
  ["**", (l, r) => l ** r],
  ["*", (l, r) => l * r],
  ["/", (l, r) => l / r],
  ["%", modulo],
];

/** C's `(long)l % (long)r`; a zero divisor (a crash in 3.21) gives NaN here. */
function modulo(l: number, r: number): number {
  const a = Math.trunc(l);
  const b = Math.trunc(r);
  return b === 0 ? Number.NaN : a % b;
}

interface Parsed {
  readonly value: number;
  readonly end: number;
}

class Parser {
  constructor(private readonly input: string) {}

  private space(at: number): number {
    while (this.input[at] === " " || this.input[at] === "\t") at++;
    return at;
  }

  private token(at: number, literal: string): number | undefined {
    return this.input.startsWith(literal, at) ? this.space(at + literal.length) : undefined;
  }

  sum(at: number): Parsed | undefined {
    return this.chain(at, SUM_OPERATORS, (p) => this.product(p));
  }

  private product(at: number): Parsed | undefined {
    return this.chain(at, PRODUCT_OPERATORS, (p) => this.value(p));
  }

  /** `operand (op operand)*`, trying the operators in order and backing off on a failed operand. */
  private chain(
    at: number,
    operators: readonly [string, Binary][],
    operand: (at: number) => Parsed | undefined,
  ): Parsed | undefined {
    let left = operand(at);
    while (left) {
      const next = this.step(left, operators, operand);
      if (!next) break;
      left = next;
    }
    return left;
  }

  private step(
    left: Parsed,
    operators: readonly [string, Binary][],
    operand: (at: number) => Parsed | undefined,
  ): Parsed | undefined {
    for (const [symbol, apply] of operators) {
      const after = this.token(left.end, symbol);
      const right = after === undefined ? undefined : operand(after);
      if (right) return { value: apply(left.value, right.value), end: right.end };
    }
    return undefined;
  }

  private value(at: number): Parsed | undefined {
    return this.number(at) ?? this.constant(at) ?? this.call(at) ?? this.group(at);
  }

  private number(at: number): Parsed | undefined {
    const match = /^-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)/.exec(this.input.slice(at));
    if (!match) return undefined;
    const end = this.space(at + match[0].length);
    const unit = UNITS[this.input.charAt(end).toLowerCase()];
    const value = Number(match[0]);
    if (unit !== undefined) return { value: value * unit, end: this.space(end + 1) };
    return { value, end };
  }

  private constant(at: number): Parsed | undefined {
    for (const [name, value] of CONSTANTS) {
      if (this.input.startsWith(name, at)) return { value, end: at + name.length };
    }
    return undefined;
  }

  private call(at: number): Parsed | undefined {
    const found = FUNCTIONS.find(([name]) => this.input.startsWith(name, at));
    if (!found) return undefined;
    const open = this.token(at + found[0].length, "(");
    const argument = open === undefined ? undefined : this.value(open);
    const close = argument && this.token(argument.end, ")");
    if (!argument || close === undefined) return undefined;
    return { value: found[1](argument.value), end: close };
  }

  private group(at: number): Parsed | undefined {
    const open = this.token(at, "(");
    const inner = open === undefined ? undefined : this.sum(open);
    const close = inner && this.token(inner.end, ")");
    return inner && close !== undefined ? { value: inner.value, end: close } : undefined;
  }
}

/**
 * Evaluates an infix expression. An empty input gives 0 without an error,
 * as in 3.21; any other unparsable input gives an error.
 */
export function evaluateMath(input: string): MathResult {
  const parser = new Parser(input);
  let start = 0;
  while (input[start] === " " || input[start] === "\t") start++;
  const parsed = parser.sum(start);
  if (parsed) return { ok: true, value: parsed.value };
  if (input === "") return { ok: true, value: 0 };
  return { ok: false, error: "expression could not be parsed" };
}
