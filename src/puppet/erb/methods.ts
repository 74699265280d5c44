/**
 * The methods of the template's Ruby subset, one table per class; a method
 * not in its class's table (nor in the common Object table) is an error
 * naming it. `respond_to?` answers from the same tables.
 */
import { rubyFormat } from "./format.js";
import { type BlockFn, type Interp, RubyError } from "./interp.js";
import { ARRAY_METHODS, HASH_METHODS, RANGE_METHODS } from "./methods-enum.js";
import { STRING_METHODS } from "./methods-string.js";
import {
  className,
  floatToS,
  inspect,
  RClass,
  RForeign,
  RHash,
  RRange,
  RRegexp,
  RSpecial,
  RSymbol,
  type RValue,
  requal,
  toS,
  truthy,
} from "./ruby-values.js";

export type Method = (it: Interp, self: never, args: RValue[], blk: BlockFn | null) => RValue;
export type Table = Record<string, Method>;

/** Checks the argument count as Ruby does ("wrong number of arguments (given 2, expected 1)"). */
export function arity(args: RValue[], min: number, max = min): void {
  if (args.length < min || args.length > max) {
    const exp = min === max ? `${min}` : max === Number.POSITIVE_INFINITY ? `${min}+` : `${min}..${max}`;
    throw new RubyError(`wrong number of arguments (given ${args.length}, expected ${exp})`, "ArgumentError");
  }
}

export function needBlock(blk: BlockFn | null, name: string): BlockFn {
  if (!blk) throw new RubyError(`'${name}' without a block is not in the ERB subset`, "ArgumentError");
  return blk;
}

export function typeError(v: RValue, into: string): never {
  const what = v === null ? "nil" : className(v);
  throw new RubyError(`no implicit conversion of ${what} into ${into}`, "TypeError");
}

export function toInt(v: RValue): bigint {
  if (typeof v === "bigint") return v;
  if (typeof v === "number") return BigInt(Math.trunc(v));
  return typeError(v, "Integer");
}

export function isNum(v: RValue): v is bigint | number {
  return typeof v === "bigint" || typeof v === "number";
}

/** Ruby's `<=>`; null when the values do not compare. */
export function compare(a: RValue, b: RValue): number | null {
  if (isNum(a) && isNum(b)) {
    if (typeof a === "bigint" && typeof b === "bigint") return a < b ? -1 : a > b ? 1 : 0;
    const x = Number(a);
    const y = Number(b);
    return x < y ? -1 : x > y ? 1 : x === y ? 0 : null;
  }
  if (typeof a === "string" && typeof b === "string") return byteCompare(a, b);
  if (a instanceof RSymbol && b instanceof RSymbol) return byteCompare(a.name, b.name);
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = compare(a[i] ?? null, b[i] ?? null);
      if (c !== 0) return c;
    }
    return a.length - b.length === 0 ? 0 : a.length < b.length ? -1 : 1;
  }
  if (a === null && b === null) return 0;
  if (typeof a === "boolean" && a === b) return 0;
  return null;
}

function byteCompare(a: string, b: string): number {
  if (a === b) return 0;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return Buffer.compare(x, y);
}

/** `compare` or Ruby's ArgumentError. */
export function mustCompare(a: RValue, b: RValue): number {
  const c = compare(a, b);
  if (c === null)
    throw new RubyError(`comparison of ${className(a)} with ${inspectShort(b)} failed`, "ArgumentError");
  return c;
}

function inspectShort(v: RValue): string {
  return typeof v === "number" || typeof v === "boolean" || v === null ? inspect(v) : className(v);
}

function arith(op: string, a: bigint | number, b: RValue): RValue {
  if (!isNum(b)) {
    if (b === null) throw new RubyError("nil can't be coerced into " + className(a), "TypeError");
    throw new RubyError(`${className(b)} can't be coerced into ${className(a)}`, "TypeError");
  }
  if (typeof a === "bigint" && typeof b === "bigint") {
    switch (op) {
      case "+":
        return a + b;
      case "-":
        return a - b;
      case "*":
        return a * b;
      case "/": {
        if (b === 0n) throw new RubyError("divided by 0", "ZeroDivisionError");
        const q = a / b;
        return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
      }
      case "%": {
        if (b === 0n) throw new RubyError("divided by 0", "ZeroDivisionError");
        const m = a % b;
        return m !== 0n && m < 0n !== b < 0n ? m + b : m;
      }
      case "**":
        return b >= 0n ? a ** b : Number(a) ** Number(b);
      case "&":
        return a & b;
      case "|":
        return a | b;
      case "^":
        return a ^ b;
      case "<<":
        return a << b;
      case ">>":
        return a >> b;
    }
  }
  const x = Number(a);
  const y = Number(b);
  switch (op) {
    case "+":
      return x + y;
    case "-":
      return x - y;
    case "*":
      return x * y;
    case "/":
      return x / y;
    case "%": {
      const m = x % y;
      return m !== 0 && m < 0 !== y < 0 ? m + y : m;
    }
    case "**":
      return x ** y;
  }
  throw new RubyError(`undefined method \`${op}' for ${inspect(a)}:${className(a)}`, "NoMethodError");
}

function roundTo(x: number, digits: bigint): number {
  const d = Number(digits);
  const f = 10 ** d;
  // Ruby rounds half away from zero.
  return (Math.sign(x) * Math.round(Math.abs(x) * f)) / f;
}

function numTable(): Table {
  const t: Table = {};
  for (const op of ["+", "-", "*", "/", "%", "**", "&", "|", "^", "<<", ">>"])
    t[op] = (_it, self: bigint | number, args) => arith(op, self, args[0] ?? null);
  t.modulo = t["%"] as Method;
  t.div = (_it, self: bigint | number, args) => {
    const r = arith("/", self, args[0] ?? null);
    return typeof r === "number" ? BigInt(Math.floor(r)) : r;
  };
  t.fdiv = (_it, self: bigint | number, args) => Number(self) / Number(args[0]);
  t.divmod = (_it, self: bigint | number, args) => [
    arith("/", self, args[0] ?? null) as RValue,
    arith("%", self, args[0] ?? null),
  ];
  t["-@"] = (_it, self: bigint | number) => -self;
  t["~"] = (_it, self: bigint) => ~self;
  for (const op of ["<", "<=", ">", ">="]) {
    t[op] = (_it, self: bigint | number, args) => {
      const c = mustCompare(self, args[0] ?? null);
      return op === "<" ? c < 0 : op === "<=" ? c <= 0 : op === ">" ? c > 0 : c >= 0;
    };
  }
  t.abs = (_it, self: bigint | number) => (self < 0 ? -self : self);
  t.to_i = (_it, self: bigint | number) => (typeof self === "bigint" ? self : BigInt(Math.trunc(self)));
  t.to_int = t.to_i;
  t.truncate = t.to_i;
  t.to_f = (_it, self: bigint | number) => Number(self);
  t.to_s = (_it, self: bigint | number, args) =>
    typeof self === "bigint" ? self.toString(args[0] !== undefined ? Number(args[0]) : 10) : floatToS(self);
  t.inspect = t.to_s;
  return t;
}

const NUMERIC: Table = {
  ...numTable(),
  "zero?": (_it, self: bigint | number) => Number(self) === 0,
  "positive?": (_it, self: bigint | number) => Number(self) > 0,
  "negative?": (_it, self: bigint | number) => Number(self) < 0,
  "between?": (_it, self: bigint | number, args) =>
    mustCompare(self, args[0] ?? null) >= 0 && mustCompare(self, args[1] ?? null) <= 0,
  clamp: (_it, self: bigint | number, args) =>
    mustCompare(self, args[0] ?? null) < 0
      ? (args[0] ?? null)
      : mustCompare(self, args[1] ?? null) > 0
        ? (args[1] ?? null)
        : self,
  round: (_it, self: bigint | number, args) => {
    if (typeof self === "bigint") return self;
    if (args.length > 0 && toInt(args[0] ?? null) > 0n) return roundTo(self, toInt(args[0] ?? null));
    return BigInt(Math.sign(self) * Math.round(Math.abs(self)));
  },
  floor: (_it, self: bigint | number) => (typeof self === "bigint" ? self : BigInt(Math.floor(self))),
  ceil: (_it, self: bigint | number) => (typeof self === "bigint" ? self : BigInt(Math.ceil(self))),
  "nan?": (_it, self: number) => Number.isNaN(self),
  "infinite?": (_it, self: number) =>
    Number.isFinite(self) || Number.isNaN(self) ? null : self > 0 ? 1n : -1n,
  "finite?": (_it, self: number) => Number.isFinite(self),
  "integer?": (_it, self: bigint | number) => typeof self === "bigint",
  coerce: (_it, self: bigint | number, args) => [args[0] ?? null, self],
};

const INTEGER: Table = {
  ...NUMERIC,
  "even?": (_it, self: bigint) => self % 2n === 0n,
  "odd?": (_it, self: bigint) => self % 2n !== 0n,
  succ: (_it, self: bigint) => self + 1n,
  next: (_it, self: bigint) => self + 1n,
  pred: (_it, self: bigint) => self - 1n,
  chr: (_it, self: bigint) => String.fromCharCode(Number(self)),
  ord: (_it, self: bigint) => self,
  times: (_it, self: bigint, _args, blk) => {
    if (!blk) return Array.from({ length: Number(self) }, (_, i) => BigInt(i));
    for (let i = 0n; i < self; i++) blk.call([i]);
    return self;
  },
  upto: (_it, self: bigint, args, blk) => {
    const to = toInt(args[0] ?? null);
    const out: RValue[] = [];
    for (let i = self; i <= to; i++) blk ? blk.call([i]) : out.push(i);
    return blk ? self : out;
  },
  downto: (_it, self: bigint, args, blk) => {
    const to = toInt(args[0] ?? null);
    const out: RValue[] = [];
    for (let i = self; i >= to; i--) blk ? blk.call([i]) : out.push(i);
    return blk ? self : out;
  },
  step: (_it, self: bigint, args, blk) => {
    const to = toInt(args[0] ?? null);
    const by = toInt(args[1] ?? 1n);
    const out: RValue[] = [];
    for (let i = self; by > 0n ? i <= to : i >= to; i += by) blk ? blk.call([i]) : out.push(i);
    return blk ? self : out;
  },
  digits: (_it, self: bigint) => [...(self < 0n ? -self : self).toString()].reverse().map((d) => BigInt(d)),
  gcd: (_it, self: bigint, args) => {
    let a = self < 0n ? -self : self;
    let b = toInt(args[0] ?? null);
    if (b < 0n) b = -b;
    while (b) [a, b] = [b, a % b];
    return a;
  },
  size: () => 8n,
};

const FLOAT: Table = { ...NUMERIC };

const NIL: Table = {
  to_s: () => "",
  to_a: () => [],
  to_h: () => new RHash(),
  to_i: () => 0n,
  to_f: () => 0,
  inspect: () => "nil",
  "&": () => false,
  "|": (_it, _self, args) => truthy(args[0] ?? null),
};

const BOOL: Table = {
  to_s: (_it, self: boolean) => String(self),
  inspect: (_it, self: boolean) => String(self),
  "&": (_it, self: boolean, args) => self && truthy(args[0] ?? null),
  "|": (_it, self: boolean, args) => self || truthy(args[0] ?? null),
  "^": (_it, self: boolean, args) => self !== truthy(args[0] ?? null),
};

const SYMBOL: Table = {
  to_s: (_it, self: RSymbol) => self.name,
  id2name: (_it, self: RSymbol) => self.name,
  name: (_it, self: RSymbol) => self.name,
  to_sym: (_it, self: RSymbol) => self,
  to_proc: (_it, self: RSymbol) => self,
  inspect: (_it, self: RSymbol) => inspect(self),
  length: (_it, self: RSymbol) => BigInt(self.name.length),
  size: (_it, self: RSymbol) => BigInt(self.name.length),
  upcase: (_it, self: RSymbol) => RSymbol.of(self.name.toUpperCase()),
  downcase: (_it, self: RSymbol) => RSymbol.of(self.name.toLowerCase()),
  "<=>": (_it, self: RSymbol, args) => compare(self, args[0] ?? null) as never,
  "empty?": (_it, self: RSymbol) => self.name === "",
  "start_with?": (_it, self: RSymbol, args) => args.some((a) => self.name.startsWith(toS(a))),
  "end_with?": (_it, self: RSymbol, args) => args.some((a) => self.name.endsWith(toS(a))),
};

const REGEXP: Table = {
  source: (_it, self: RRegexp) => self.source,
  to_s: (_it, self: RRegexp) => toS(self),
  inspect: (_it, self: RRegexp) => `/${self.source}/`,
  "=~": (it, self: RRegexp, args) =>
    STRING_METHODS["=~"]?.(it, toS(args[0] ?? null) as never, [self], null) ?? null,
  "match?": (_it, self: RRegexp, args) =>
    args[0] !== null && new RegExp(self.re.source, self.re.flags).test(toS(args[0] ?? null)),
  match: (it, self: RRegexp, args) =>
    args[0] === null
      ? null
      : (STRING_METHODS.match?.(it, toS(args[0] ?? null) as never, [self], null) ?? null),
  "===": (_it, self: RRegexp, args) =>
    (typeof args[0] === "string" || args[0] instanceof RSymbol) &&
    new RegExp(self.re.source, self.re.flags).test(toS(args[0] ?? null)),
};

const CLASS: Table = {
  "===": (it, self: RClass, args) => it.isA(args[0] ?? null, self),
  name: (_it, self: RClass) => self.name,
  to_s: (_it, self: RClass) => self.name,
  join: (_it, self: RClass, args) => {
    if (self.name !== "File")
      throw new RubyError(`undefined method \`join' for ${self.name}:Class`, "NoMethodError");
    return args
      .flat()
      .map((a) => toS(a))
      .join("/")
      .replace(/\/+/g, "/");
  },
  basename: (_it, self: RClass, args) => {
    if (self.name !== "File")
      throw new RubyError(`undefined method \`basename' for ${self.name}:Class`, "NoMethodError");
    const p = toS(args[0] ?? null).replace(/\/+$/, "");
    let b = p === "" && toS(args[0] ?? null).startsWith("/") ? "/" : p.slice(p.lastIndexOf("/") + 1);
    const ext = args[1] === undefined ? null : toS(args[1]);
    if (ext === ".*") b = b.replace(/(.)\.[^.]*$/, "$1");
    else if (ext && b.endsWith(ext) && b !== ext) b = b.slice(0, -ext.length);
    return b;
  },
  dirname: (_it, self: RClass, args) => {
    if (self.name !== "File")
      throw new RubyError(`undefined method \`dirname' for ${self.name}:Class`, "NoMethodError");
    const p = toS(args[0] ?? null).replace(/(.)\/+$/, "$1");
    const i = p.lastIndexOf("/");
    return i < 0 ? "." : i === 0 ? "/" : p.slice(0, i).replace(/(.)\/+$/, "$1");
  },
  extname: (_it, self: RClass, args) => {
    if (self.name !== "File")
      throw new RubyError(`undefined method \`extname' for ${self.name}:Class`, "NoMethodError");
    const b = toS(args[0] ?? null).replace(/.*\//, "");
    const m = /[^.]\.([^.]+)$/.exec(b);
    return m ? `.${m[1]}` : "";
  },
  new: (_it, self: RClass, args) => {
    if (self.name === "Array") {
      const n = Number(toInt(args[0] ?? 0n));
      return Array.from({ length: n }, () => args[1] ?? null);
    }
    if (self.name === "Hash") {
      const h = new RHash();
      h.default = args[0] ?? null;
      return h;
    }
    if (self.name === "String") return toS(args[0] ?? "");
    throw new RubyError(`${self.name}.new is not in the ERB subset`, "NoMethodError");
  },
};

const SCOPE: Table = {
  "[]": (it, _self, args) => it.lookupvar(toS(args[0] ?? null)),
  lookupvar: (it, _self, args) => it.lookupvar(toS(args[0] ?? null)),
  "include?": (it, _self, args) => it.lookupvar(toS(args[0] ?? null)) !== null,
  "exist?": (it, _self, args) => it.scope.hasVariable(toS(args[0] ?? null)),
  call_function: (it, _self, args) => {
    arity(args, 1, 2);
    return it.callFunction(toS(args[0] ?? null), args[1] ?? []);
  },
};

/** Kernel conversions reached as `Integer(x)`... (dispatched on the template object). */
const TEMPLATE: Table = {
  Integer: (_it, _self, args) => {
    const v = args[0] ?? null;
    if (typeof v === "bigint") return v;
    if (typeof v === "number") return BigInt(Math.trunc(v));
    if (typeof v === "string") {
      const t = v.trim().replace(/_/g, "");
      const m = /^([-+]?)(0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO]?[0-7]+|\d+)$/.exec(t);
      if (m) {
        let body = (m[2] as string).toLowerCase();
        if (/^0[0-7]/.test(body)) body = `0o${body.slice(1)}`;
        const n = BigInt(body);
        return m[1] === "-" ? -n : n;
      }
      throw new RubyError(`invalid value for Integer(): ${inspect(v)}`, "ArgumentError");
    }
    if (v === null) throw new RubyError("can't convert nil into Integer", "TypeError");
    return typeError(v, "Integer");
  },
  Float: (_it, _self, args) => {
    const v = args[0] ?? null;
    if (isNum(v)) return Number(v);
    if (typeof v === "string" && /^\s*[-+]?(\d[\d_]*)(\.\d+)?([eE][-+]?\d+)?\s*$/.test(v))
      return Number(v.replace(/_/g, ""));
    if (v === null) throw new RubyError("can't convert nil into Float", "TypeError");
    throw new RubyError(`invalid value for Float(): ${inspect(v)}`, "ArgumentError");
  },
  String: (_it, _self, args) => toS(args[0] ?? null),
  Array: (_it, _self, args) => {
    const v = args[0] ?? null;
    if (v === null) return [];
    if (Array.isArray(v)) return v;
    if (v instanceof RHash) return v.entries();
    return [v];
  },
};

/** Methods every object has. */
const OBJECT: Table = {
  "nil?": (_it, self: RValue) => self === null,
  "==": (_it, self: RValue, args) => requal(self, args[0] ?? null),
  "eql?": (_it, self: RValue, args) => {
    const o = args[0] ?? null;
    return typeof self === typeof o && requal(self, o);
  },
  "equal?": (_it, self: RValue, args) => self === args[0],
  "===": (_it, self: RValue, args) => requal(self, args[0] ?? null),
  "=~": () => null,
  "<=>": (_it, self: RValue, args) => {
    const c = compare(self, args[0] ?? null);
    return c === null ? null : BigInt(c);
  },
  "is_a?": (it, self: RValue, args) => it.isA(self, args[0] ?? null),
  "kind_of?": (it, self: RValue, args) => it.isA(self, args[0] ?? null),
  "instance_of?": (_it, self: RValue, args) => args[0] instanceof RClass && args[0].name === className(self),
  class: (_it, self: RValue) => new RClass(className(self)),
  "respond_to?": (_it, self: RValue, args) => respondTo(self, toS(args[0] ?? null)),
  to_s: (_it, self: RValue) => toS(self),
  inspect: (_it, self: RValue) => inspect(self),
  "frozen?": (_it, self: RValue) => typeof self !== "object" || self === null || self instanceof RSymbol,
  freeze: (_it, self: RValue) => self,
  dup: (_it, self: RValue) => copy(self),
  clone: (_it, self: RValue) => copy(self),
  itself: (_it, self: RValue) => self,
  // biome-ignore lint/suspicious/noThenProperty: Ruby's Object#then, looked up by name
  then: (_it, self: RValue, _args, blk) => needBlock(blk, "then").call([self]),
  yield_self: (_it, self: RValue, _args, blk) => needBlock(blk, "yield_self").call([self]),
  tap: (_it, self: RValue, _args, blk) => {
    needBlock(blk, "tap").call([self]);
    return self;
  },
  send: (it, self: RValue, args, blk) => callMethod(it, self, toS(args[0] ?? null), args.slice(1), blk),
  public_send: (it, self: RValue, args, blk) =>
    callMethod(it, self, toS(args[0] ?? null), args.slice(1), blk),
  "!": (_it, self: RValue) => !truthy(self),
  "!=": (_it, self: RValue, args) => !requal(self, args[0] ?? null),
  hash: (_it, self: RValue) => BigInt(inspect(self).length),
};

function copy(v: RValue): RValue {
  if (Array.isArray(v)) return [...v];
  if (v instanceof RHash) {
    const h = RHash.from(v.entries());
    h.default = v.default;
    return h;
  }
  return v;
}

function tableOf(v: RValue): Table {
  if (v === null) return NIL;
  if (typeof v === "boolean") return BOOL;
  if (typeof v === "bigint") return INTEGER;
  if (typeof v === "number") return FLOAT;
  if (typeof v === "string") return STRING_METHODS;
  if (v instanceof RSymbol) return SYMBOL;
  if (Array.isArray(v)) return ARRAY_METHODS;
  if (v instanceof RHash) return HASH_METHODS;
  if (v instanceof RRange) return RANGE_METHODS;
  if (v instanceof RRegexp) return REGEXP;
  if (v instanceof RClass) return CLASS;
  if (v instanceof RSpecial) return v.kind === "scope" ? SCOPE : TEMPLATE;
  return {};
}

export function respondTo(v: RValue, name: string): boolean {
  const t = tableOf(v);
  return Object.hasOwn(t, name) || Object.hasOwn(OBJECT, name);
}

/** Methods that take no argument: Ruby's ArgumentError when given some. */
const NO_ARGS = new Set(
  "strip lstrip rstrip chop chars lines bytes length size bytesize empty? nil? reverse keys values compact to_a to_h to_f to_sym intern inspect class capitalize swapcase upcase downcase succ ord hex oct invert abs even? odd? zero? frozen? freeze dup clone".split(
    " ",
  ),
);

/** Calls `name` on `recv`; Ruby's NoMethodError (worded as Ruby words it) when the subset has no such method. */
export function callMethod(
  it: Interp,
  recv: RValue,
  name: string,
  args: RValue[],
  blk: BlockFn | null,
): RValue {
  const t = tableOf(recv);
  let m = Object.hasOwn(t, name) ? t[name] : undefined;
  if (!m && recv instanceof RSpecial && recv.kind === "scope" && name.startsWith("function_")) {
    const fname = name.slice("function_".length);
    return it.callFunction(fname, args[0] ?? []);
  }
  if (!m && Object.hasOwn(OBJECT, name)) m = OBJECT[name];
  if (!m) {
    if (recv === null) throw new RubyError(`undefined method \`${name}' for nil:NilClass`, "NoMethodError");
    if (recv instanceof RForeign)
      throw new RubyError(
        `undefined method \`${name}' for ${toS(recv)} (a Puppet ${className(recv)} value in tend's ERB subset)`,
        "NoMethodError",
      );
    const shown = recv instanceof RSpecial ? toS(recv) : inspect(recv).slice(0, 60);
    throw new RubyError(
      `undefined method \`${name}' for ${shown}:${className(recv)} (or not in tend's ERB subset of Ruby)`,
      "NoMethodError",
    );
  }
  if (args.length > 0 && NO_ARGS.has(name))
    throw new RubyError(`wrong number of arguments (given ${args.length}, expected 0)`, "ArgumentError");
  return m(it, recv as never, args, blk);
}

export { rubyFormat };
