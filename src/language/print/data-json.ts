/**
 * Reads the JSON held in a `data =>` string the way cf-promises 3.21 does
 * when it prints policy as JSON: only an object or an array counts, leading
 * whitespace is skipped and anything after the closing bracket is ignored.
 *
 * 3.21's reader differs from standard JSON in a way that shows in its output,
 * and it is kept: an escape other than `\\ \/ \" \b \f \n \r \t` stays as
 * written, backslash included (so `\u00e9` stays six characters).
 * An integer is held as 3.21 holds it, in a C `int`: one beyond 32 bits
 * wraps (12345678901 reads as -539222987). One difference is not kept:
 * 3.21 stops at an integer with an exponent (`1e3`, see
 * validate/json-numbers.ts); here it reads as a JavaScript number.
 */

import { decimalToCInt } from "../../text/c-int.js";

/** A number written with a fraction or an exponent, which 3.21 keeps as a real. */
export class JsonReal {
  constructor(readonly value: number) {}
  /** Plain JSON (JSON.stringify) sees the number. */
  toJSON(): number {
    return this.value;
  }
}

/**
 * The parsed container, or `undefined` when 3.21 would not read the text as one.
 * With `markReals`, numbers written as reals come back as {@link JsonReal}.
 */
export function parseDataJson(text: string, options: { markReals?: boolean } = {}): unknown {
  const reader = new Reader(text, options.markReals === true);
  reader.skipSpace();
  const c = text[reader.pos];
  if (c !== "{" && c !== "[") return undefined;
  try {
    return reader.value();
  } catch {
    return undefined;
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};
const NUMBER_RE = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/y;

class Reader {
  pos = 0;
  constructor(
    private readonly text: string,
    private readonly markReals: boolean,
  ) {}

  skipSpace(): void {
    while (/[ \t\r\n]/.test(this.text[this.pos] ?? "")) this.pos++;
  }

  value(): unknown {
    this.skipSpace();
    const c = this.text[this.pos];
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"') return this.string();
    for (const [word, value] of [
      ["true", true],
      ["false", false],
      ["null", null],
    ] as const) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return value;
      }
    }
    return this.number();
  }

  private object(): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    this.pos++;
    this.skipSpace();
    if (this.eat("}")) return result;
    do {
      this.skipSpace();
      if (this.text[this.pos] !== '"') throw new Error("expected a key");
      const key = this.string();
      this.skipSpace();
      this.expect(":");
      result[key] = this.value();
      this.skipSpace();
    } while (this.eat(","));
    this.expect("}");
    return result;
  }

  private array(): unknown[] {
    const result: unknown[] = [];
    this.pos++;
    this.skipSpace();
    if (this.eat("]")) return result;
    do {
      result.push(this.value());
      this.skipSpace();
    } while (this.eat(","));
    this.expect("]");
    return result;
  }

  private string(): string {
    let out = "";
    for (let i = this.pos + 1; i < this.text.length; i++) {
      const c = this.text[i];
      if (c === '"') {
        this.pos = i + 1;
        return out;
      }
      if (c !== "\\") {
        out += c;
        continue;
      }
      const n = this.text[++i];
      if (n === undefined) break;
      out += Object.hasOwn(ESCAPES, n) ? ESCAPES[n] : `\\${n}`;
    }
    throw new Error("unterminated string");
  }

  private number(): number | JsonReal {
    NUMBER_RE.lastIndex = this.pos;
    const match = NUMBER_RE.exec(this.text);
    if (!match) throw new Error("expected a value");
    this.pos += match[0].length;
    const value = Number(match[0]);
    if (/[.eE]/.test(match[0])) return this.markReals ? new JsonReal(value) : value;
    return decimalToCInt(match[0]);
  }

  private eat(c: string): boolean {
    if (this.text[this.pos] !== c) return false;
    this.pos++;
    return true;
  }

  private expect(c: string): void {
    if (!this.eat(c)) throw new Error(`expected ${c}`);
  }
}
