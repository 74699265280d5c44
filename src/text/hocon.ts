/**
 * A HOCON parser (the subset configuration files and stdlib's tests use):
 * JSON plus a root object without braces, `=`/`:` or nothing before `{`,
 * dotted key paths, unquoted strings (also keys with spaces), `#` and `//`
 * comments, commas or newlines between fields and elements, triple-quoted
 * strings, objects with the same key merged (the later keys first, as the
 * Ruby hocon library orders them), and `${path}` / `${?path}`
 * substitutions (alone or concatenated with text) resolved against the
 * whole document. Not supported: `include`, `+=`, self-referential
 * substitutions, durations and sizes. Errors read as the Ruby library's:
 * `String: LINE: message`.
 */

/** A HOCON value: integers as bigint, other numbers as number, null for null. */
export type HoconValue = string | bigint | number | boolean | null | HoconValue[] | HoconObject;
export type HoconObject = Map<string, HoconValue>;

export class HoconError extends Error {
  override readonly name = "HoconError";
}

class Subst {
  constructor(
    readonly path: string[],
    readonly optional: boolean,
    /** The line it is written on (for messages). */
    readonly line: number,
  ) {}
}
/** Text and substitutions written next to each other (`a ${b} c`). */
class Concat {
  constructor(readonly parts: readonly (string | Subst)[]) {}
}

type Raw = string | bigint | number | boolean | null | Raw[] | RawObject | Subst | Concat;
type RawObject = Map<string, Raw>;

const UNQUOTED_STOP = new Set([...'$"{}[]:=,+#`^?!@*&\\']);

class Parser {
  i = 0;
  constructor(
    readonly s: string,
    readonly origin: string,
  ) {}

  fail(message: string): never {
    const line = this.s.slice(0, this.i).split("\n").length;
    throw new HoconError(`${this.origin}: ${line}: ${message}`);
  }

  peek(n = 0): string {
    return this.s[this.i + n] ?? "";
  }
  atComment(): boolean {
    return this.peek() === "#" || (this.peek() === "/" && this.peek(1) === "/");
  }
  /** Spaces, tabs and comments on the current line. */
  skipSpaces(): void {
    for (;;) {
      const c = this.peek();
      if (c === " " || c === "\t" || c === "\r" || c === "\uFEFF") this.i++;
      else if (this.atComment()) while (this.i < this.s.length && this.peek() !== "\n") this.i++;
      else return;
    }
  }
  /** Spaces, comments and newlines. */
  skipBlank(): void {
    for (;;) {
      this.skipSpaces();
      if (this.peek() === "\n") this.i++;
      else return;
    }
  }
  eof(): boolean {
    return this.i >= this.s.length;
  }
  token(): string {
    if (this.eof()) return "end of file";
    const c = this.peek();
    if (c === "\n") return "newline";
    return `'${c}'`;
  }

  document(): RawObject {
    this.skipBlank();
    let root: RawObject;
    if (this.peek() === "{") {
      this.i++;
      root = this.objectBody(true);
    } else root = this.objectBody(false);
    this.skipBlank();
    if (!this.eof()) this.fail(`Document has trailing tokens after first object or array: ${this.token()}`);
    return root;
  }

  objectBody(braced: boolean): RawObject {
    const obj: RawObject = new Map();
    for (;;) {
      this.skipBlank();
      while (this.peek() === ",") {
        this.i++;
        this.skipBlank();
      }
      if (this.eof()) {
        if (braced) this.fail("Expecting a value but got wrong token: end of file");
        return obj;
      }
      if (this.peek() === "}") {
        if (!braced) this.fail("unbalanced close brace '}' with no open brace");
        this.i++;
        return obj;
      }
      const path = this.keyPath();
      this.skipSpaces();
      let value: Raw;
      if (this.peek() === "{") {
        this.i++;
        value = this.objectBody(true);
      } else {
        const c = this.peek();
        if (c !== ":" && c !== "=") {
          const key = path.join(".");
          this.fail(`Key '${key}' may not be followed by token: ${this.token()}`);
        }
        this.i++;
        this.skipSpaces();
        value = this.value();
      }
      for (let k = path.length - 1; k >= 1; k--) value = new Map([[path[k] as string, value]]);
      mergeField(obj, path[0] as string, value);
      this.skipSpaces();
      const c = this.peek();
      if (c === "," || c === "\n") this.i++;
      else if (!(c === "}" || this.eof()))
        this.fail(`Key '${path.join(".")}' may not be followed by token: ${this.token()}`);
    }
  }

  keyPath(): string[] {
    const segments: string[] = [];
    let current = "";
    let any = false;
    for (;;) {
      const c = this.peek();
      if (c === '"') {
        current += this.quoted();
        any = true;
      } else if (c === ".") {
        segments.push(current.trim());
        current = "";
        this.i++;
      } else if (c === "" || c === "\n" || c === ":" || c === "=" || c === "{" || this.atComment()) break;
      else if (c === "+" && this.peek(1) === "=") this.fail("'+=' is not supported by tend's HOCON parser");
      else if (UNQUOTED_STOP.has(c))
        this.fail(`Expecting close brace } or a field name here, got ${this.token()}`);
      else {
        current += c;
        any = true;
        this.i++;
      }
    }
    if (!any && segments.length === 0)
      this.fail(`Expecting close brace } or a field name here, got ${this.token()}`);
    segments.push(current.trim());
    return segments;
  }

  quoted(): string {
    if (this.s.startsWith('"""', this.i)) {
      const end = this.s.indexOf('"""', this.i + 3);
      if (end < 0) this.fail("End of input but triple-quoted string was still open");
      let close = end + 3;
      while (this.s[close] === '"') close++;
      const text = this.s.slice(this.i + 3, close - 3);
      this.i = close;
      return text;
    }
    this.i++;
    let out = "";
    for (;;) {
      const c = this.peek();
      if (c === "" || c === "\n") this.fail("End of input but string quote was still open");
      this.i++;
      if (c === '"') return out;
      if (c !== "\\") {
        out += c;
        continue;
      }
      const e = this.peek();
      this.i++;
      const map: Record<string, string> = {
        '"': '"',
        "\\": "\\",
        "/": "/",
        b: "\b",
        f: "\f",
        n: "\n",
        r: "\r",
        t: "\t",
      };
      if (e === "u") {
        out += String.fromCharCode(Number.parseInt(this.s.slice(this.i, this.i + 4), 16));
        this.i += 4;
      } else if (map[e] !== undefined) out += map[e];
      else this.fail(`backslash followed by '${e}', this is not a valid escape sequence`);
    }
  }

  value(): Raw {
    const c = this.peek();
    if (c === "" || c === "\n" || c === "," || c === "}" || c === "]" || this.atComment())
      this.fail(`Expecting a value but got wrong token: ${this.token()}`);
    if (c === "{") {
      this.i++;
      return this.objectBody(true);
    }
    if (c === "[") {
      this.i++;
      return this.array();
    }
    // Simple values, concatenated while they follow on the same line.
    const parts: (string | Subst)[] = [];
    let single: Raw | undefined;
    let count = 0;
    for (;;) {
      const at = this.peek();
      if (at === "" || at === "\n" || at === "," || at === "}" || at === "]" || this.atComment()) break;
      if (at === "{" || at === "[") this.fail(`tend's HOCON parser does not concatenate objects or arrays`);
      let piece: string | Subst;
      let literal: Raw;
      if (at === '"') {
        piece = this.quoted();
        literal = piece;
      } else if (at === "$" && this.peek(1) === "{") piece = literal = this.substitution();
      else if (at === " " || at === "\t") {
        const start = this.i;
        this.skipSpaces();
        const next = this.peek();
        if (next === "" || next === "\n" || next === "," || next === "}" || next === "]" || this.atComment())
          break;
        parts.push(this.s.slice(start, this.i));
        continue;
      } else {
        const start = this.i;
        while (this.i < this.s.length) {
          const d = this.peek();
          if (d === " " || d === "\t" || d === "\n" || d === "\r" || UNQUOTED_STOP.has(d) || this.atComment())
            break;
          this.i++;
        }
        if (this.i === start) this.fail(`Expecting a value but got wrong token: ${this.token()}`);
        piece = this.s.slice(start, this.i);
        literal = scalar(piece);
      }
      parts.push(piece);
      single = literal;
      count++;
    }
    if (count === 1 && parts.length === 1) return single as Raw;
    while (typeof parts.at(-1) === "string" && /^\s*$/.test(parts.at(-1) as string)) parts.pop();
    if (parts.every((p) => typeof p === "string")) return parts.join("");
    return new Concat(parts);
  }

  substitution(): Subst {
    this.i += 2;
    let optional = false;
    if (this.peek() === "?") {
      optional = true;
      this.i++;
    }
    const end = this.s.indexOf("}", this.i);
    if (end < 0) this.fail(`Substitution \${ was not closed with a }`);
    const path = this.s
      .slice(this.i, end)
      .trim()
      .split(".")
      .map((p) => p.trim().replace(/^"(.*)"$/, "$1"));
    const line = this.s.slice(0, this.i).split("\n").length;
    this.i = end + 1;
    return new Subst(path, optional, line);
  }

  array(): Raw[] {
    const out: Raw[] = [];
    for (;;) {
      this.skipBlank();
      if (this.peek() === "]") {
        this.i++;
        return out;
      }
      if (this.eof())
        this.fail(
          "List should have ended with ] or had a comma, instead had token: end of file (if you want end of file to be part of a string value, then double-quote it)",
        );
      out.push(this.value());
      this.skipSpaces();
      const newline = this.peek() === "\n";
      this.skipBlank();
      if (this.peek() === ",") {
        this.i++;
        this.skipBlank();
        if (this.eof())
          this.fail(
            "List should have had new element after a comma, instead had token: end of file (if you want the comma or end of file to be part of a string value, then double-quote it)",
          );
      } else if (newline) continue;
      else if (this.peek() !== "]")
        this.fail(
          `List should have ended with ] or had a comma, instead had token: ${this.token()} (if you want ${this.token()} to be part of a string value, then double-quote it)`,
        );
    }
  }
}

function scalar(text: string): Raw {
  if (text === "true") return true;
  if (text === "false") return false;
  if (text === "null") return null;
  if (/^-?\d+$/.test(text)) return BigInt(text);
  if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text)) {
    // A whole number is an integer however it is written (`1e3`, `2.0`), as the Ruby library reads it.
    const n = Number(text);
    return Number.isInteger(n) && Math.abs(n) <= Number.MAX_SAFE_INTEGER ? BigInt(n) : n;
  }
  return text;
}

function isObject(v: Raw | undefined): v is RawObject {
  return v instanceof Map;
}

/** The later object's keys first, then the earlier one's others (hocon's withFallback order). */
function mergeObjects(later: RawObject, earlier: RawObject): RawObject {
  const out: RawObject = new Map();
  for (const [k, v] of later) {
    const old = earlier.get(k);
    out.set(k, isObject(v) && isObject(old) ? mergeObjects(v, old) : v);
  }
  for (const [k, v] of earlier) if (!out.has(k)) out.set(k, v);
  return out;
}

function mergeField(obj: RawObject, key: string, value: Raw): void {
  const old = obj.get(key);
  obj.set(key, isObject(value) && isObject(old) ? mergeObjects(value, old) : value);
}

const MISSING = Symbol("missing");

class Resolver {
  readonly resolving = new Set<Subst>();
  constructor(
    readonly root: RawObject,
    readonly p: Parser,
  ) {}

  lookup(path: readonly string[]): Raw | typeof MISSING {
    let v: Raw = this.root;
    for (const seg of path) {
      if (!isObject(v) || !v.has(seg)) return MISSING;
      v = v.get(seg) as Raw;
    }
    return v;
  }

  subst(s: Subst): HoconValue | typeof MISSING {
    if (this.resolving.has(s))
      throw new HoconError(`${this.p.origin}: Cycle in substitution \${${s.path.join(".")}}`);
    this.resolving.add(s);
    try {
      const found = this.lookup(s.path);
      if (found === MISSING) {
        if (s.optional) return MISSING;
        throw new HoconError(
          `${this.p.origin}: ${s.line}: Could not resolve substitution to a value: \${${s.path.join(".")}}`,
        );
      }
      return this.value(found);
    } finally {
      this.resolving.delete(s);
    }
  }

  value(v: Raw): HoconValue | typeof MISSING {
    if (v instanceof Subst) return this.subst(v);
    if (v instanceof Concat) {
      let out = "";
      for (const part of v.parts) {
        if (typeof part === "string") out += part;
        else {
          const r = this.subst(part);
          if (r === MISSING) continue;
          if (typeof r === "object" && r !== null)
            throw new HoconError(`${this.p.origin}: Cannot concatenate an object or a list with text`);
          out += r === null ? "null" : String(r);
        }
      }
      return out;
    }
    if (Array.isArray(v)) {
      const out: HoconValue[] = [];
      for (const x of v) {
        const r = this.value(x);
        if (r !== MISSING) out.push(r);
      }
      return out;
    }
    if (isObject(v)) {
      const out: HoconObject = new Map();
      for (const [k, x] of v) {
        const r = this.value(x);
        if (r !== MISSING) out.set(k, r);
      }
      return out;
    }
    return v;
  }
}

/** Parses and resolves a HOCON document; `origin` names it in messages (`String`, a file name). */
export function parseHocon(text: string, origin = "String"): HoconObject {
  const p = new Parser(text, origin);
  const root = p.document();
  const resolved = new Resolver(root, p).value(root);
  return resolved as HoconObject;
}
