/** String methods of the template's Ruby subset. */
import { rubyFormat } from "./format.js";
import { type BlockFn, type Interp, RubyError } from "./interp.js";
import { arity, compare, isNum, type Method, mustCompare, type Table, toInt, typeError } from "./methods.js";
import { escapeRegexp, globalOf } from "./regex.js";
import {
  className,
  inspect,
  RHash,
  RRange,
  RRegexp,
  RSymbol,
  type RValue,
  succ,
  toS,
} from "./ruby-values.js";

function str(v: RValue, into = "String"): string {
  if (typeof v === "string") return v;
  if (v instanceof RSymbol && into === "Symbol") return v.name;
  return typeError(v, into);
}

/** A pattern argument as a regexp (a string matches literally). */
function pattern(it: Interp, p: RValue): RegExp {
  if (p instanceof RRegexp) return p.re;
  return it.regexpFromString(escapeRegexp(str(p))).re;
}

/** Ruby's replacement text: `\0`, `\&`, `\1`..`\9`, `\k<name>`, `` \` ``, `\'`, `\\`. */
function expandReplacement(rep: string, m: RegExpExecArray, input: string): string {
  if (!rep.includes("\\")) return rep;
  return rep.replace(/\\(\d|&|k<(\w+)>|`|'|\\)/g, (_w, c: string, name?: string) => {
    if (name !== undefined) return m.groups?.[name] ?? "";
    if (c === "&" || c === "0") return m[0];
    if (c === "`") return input.slice(0, m.index);
    if (c === "'") return input.slice(m.index + m[0].length);
    if (c === "\\") return "\\";
    return m[Number(c)] ?? "";
  });
}

function substitute(it: Interp, self: string, args: RValue[], blk: BlockFn | null, global: boolean): string {
  arity(args, blk ? 1 : 2, 2);
  const re = globalOf(pattern(it, args[0] ?? null));
  const rep = args[1];
  let out = "";
  let last = 0;
  re.lastIndex = 0;
  for (let m = re.exec(self); m !== null; m = re.exec(self)) {
    out += self.slice(last, m.index);
    if (rep instanceof RHash) out += toS(rep.get(m[0]));
    else if (rep !== undefined) out += expandReplacement(str(rep), m, self);
    else {
      it.lastMatch = m;
      out += toS((blk as BlockFn).call([m[0]]));
    }
    last = m.index + m[0].length;
    if (m[0] === "") {
      if (m.index < self.length) out += self[m.index];
      last = m.index + 1;
      re.lastIndex = m.index + 1;
    }
    if (!global) break;
  }
  return out + self.slice(last);
}

/** Ruby's String#split. */
function split(it: Interp, self: string, args: RValue[]): RValue[] {
  arity(args, 0, 2);
  const sep = args[0] ?? null;
  const limit = args[1] === undefined ? 0 : Number(toInt(args[1]));
  let parts: string[];
  if (sep === null || sep === " ") {
    const t = self.replace(/^\s+/, "");
    if (t === "") return [];
    if (limit > 0) {
      parts = [];
      let rest = t;
      while (parts.length < limit - 1) {
        const m = /\s+/.exec(rest);
        if (!m) break;
        parts.push(rest.slice(0, m.index));
        rest = rest.slice(m.index + m[0].length);
      }
      parts.push(rest);
      return parts;
    }
    parts = t.split(/\s+/);
  } else {
    const re = sep instanceof RRegexp ? sep.re : new RegExp(escapeRegexp(str(sep)), "m");
    parts = regexpSplit(self, re, limit);
  }
  if (limit === 0) while (parts.length > 0 && parts[parts.length - 1] === "") parts.pop();
  void it;
  return parts;
}

/** Ruby's split on a pattern: an empty match splits between characters; captures are kept. */
function regexpSplit(self: string, re: RegExp, limit: number): string[] {
  const parts: string[] = [];
  if (self === "") return parts;
  const g = globalOf(re);
  let beg = 0;
  let start = 0;
  let lastNull = false;
  for (;;) {
    if (start > self.length) break;
    g.lastIndex = start;
    const m = g.exec(self);
    if (!m) break;
    if (start === m.index && m[0] === "") {
      if (lastNull) {
        parts.push(self.slice(beg, beg + 1));
        beg = start;
      } else {
        start += 1;
        lastNull = true;
        continue;
      }
    } else {
      parts.push(self.slice(beg, m.index));
      beg = start = m.index + m[0].length;
    }
    lastNull = false;
    for (const c of m.slice(1)) if (c !== undefined) parts.push(c);
    if (limit > 0 && limit <= parts.length + 1) break;
  }
  if (limit !== 0 || self.length > beg) parts.push(self.slice(beg));
  return parts;
}

/** A tr-style character set: `a-z`, `^...` negates. */
function charSet(spec: string): { test(c: string): boolean; list: string[] } {
  let negate = false;
  let s = spec;
  if (s.length > 1 && s.startsWith("^")) {
    negate = true;
    s = s.slice(1);
  }
  const list: string[] = [];
  const chars = [...s];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] as string;
    if (c === "\\" && i + 1 < chars.length) {
      list.push(chars[++i] as string);
      continue;
    }
    if (chars[i + 1] === "-" && i + 2 < chars.length) {
      const a = c.codePointAt(0) as number;
      const b = (chars[i + 2] as string).codePointAt(0) as number;
      for (let x = a; x <= b; x++) list.push(String.fromCodePoint(x));
      i += 2;
      continue;
    }
    list.push(c);
  }
  const set = new Set(list);
  return { test: (c) => set.has(c) !== negate, list: negate ? [] : list };
}

function tr(self: string, from: string, to: string): string {
  const f = charSet(from);
  const negated = from.length > 1 && from.startsWith("^");
  const t = charSet(to).list;
  let out = "";
  for (const c of self) {
    if (!f.test(c)) {
      out += c;
      continue;
    }
    if (negated) out += t[t.length - 1] ?? "";
    else {
      const i = f.list.lastIndexOf(c);
      out += t.length === 0 ? "" : (t[Math.min(i, t.length - 1)] as string);
    }
  }
  return out;
}

function strip(s: string, left: boolean, right: boolean): string {
  let r = s;
  if (left) r = r.replace(/^[\t\n\v\f\r ]+/, "");
  if (right) r = r.replace(/[\t\n\v\f\r \0]+$/, "");
  return r;
}

function toI(s: string, base: number): bigint {
  const digits = "0123456789abcdefghijklmnopqrstuvwxyz".slice(0, base);
  const m = new RegExp(
    `^\\s*([-+]?)(?:${base === 16 ? "0x" : base === 2 ? "0b" : base === 8 ? "0o?" : ""})?([${digits}]+(?:_[${digits}]+)*)`,
    "i",
  ).exec(s);
  if (!m) return 0n;
  let n = 0n;
  for (const c of (m[2] as string).replace(/_/g, "").toLowerCase())
    n = n * BigInt(base) + BigInt(digits.indexOf(c));
  return m[1] === "-" ? -n : n;
}

function index(self: string, args: RValue[], reverse: boolean, it: Interp): RValue {
  const pat = args[0] ?? null;
  const start = args[1] === undefined ? undefined : Number(toInt(args[1]));
  if (typeof pat === "string") {
    const i = reverse ? self.lastIndexOf(pat, start) : self.indexOf(pat, start ?? 0);
    return i < 0 ? null : BigInt(i);
  }
  const re = pattern(it, pat);
  const g = globalOf(re);
  let found: number | null = null;
  g.lastIndex = reverse ? 0 : (start ?? 0);
  for (let m = g.exec(self); m !== null; m = g.exec(self)) {
    if (reverse && start !== undefined && m.index > start) break;
    found = m.index;
    if (!reverse) break;
    if (m[0] === "") g.lastIndex++;
  }
  return found === null ? null : BigInt(found);
}

function slice(it: Interp, self: string, args: RValue[]): RValue {
  arity(args, 1, 2);
  const a = args[0] ?? null;
  if (args.length === 2 && !(a instanceof RRegexp)) {
    let start = Number(toInt(a));
    const len = Number(toInt(args[1] ?? null));
    if (start < 0) start += self.length;
    if (start < 0 || start > self.length || len < 0) return null;
    return self.slice(start, start + len);
  }
  if (typeof a === "bigint") {
    const i = Number(a) < 0 ? self.length + Number(a) : Number(a);
    return i >= 0 && i < self.length ? (self[i] as string) : null;
  }
  if (a instanceof RRange) {
    const len = self.length;
    let s = Number(toInt(a.from ?? 0n));
    let e = a.to === null ? len - 1 : Number(toInt(a.to));
    if (s < 0) s += len;
    if (e < 0) e += len;
    if (a.exclusive && a.to !== null) e -= 1;
    if (s < 0 || s > len) return null;
    return self.slice(s, Math.max(e + 1, s));
  }
  if (typeof a === "string") return self.includes(a) ? a : null;
  if (a instanceof RRegexp) {
    const m = a.re.exec(self);
    it.lastMatch = m;
    if (!m) return null;
    if (args[1] === undefined) return m[0];
    const g = args[1];
    return (typeof g === "string" ? m.groups?.[g] : m[Number(toInt(g ?? null))]) ?? null;
  }
  return typeError(a, "Integer");
}

function just(self: string, args: RValue[], where: "l" | "r" | "c"): string {
  const width = Number(toInt(args[0] ?? null));
  const padStr = args[1] === undefined ? " " : str(args[1]);
  if (padStr === "") throw new RubyError("zero width padding", "ArgumentError");
  const total = width - self.length;
  if (total <= 0) return self;
  const fill = (n: number): string => padStr.repeat(Math.ceil(n / padStr.length)).slice(0, n);
  if (where === "l") return self + fill(total);
  if (where === "r") return fill(total) + self;
  const left = Math.floor(total / 2);
  return fill(left) + self + fill(total - left);
}

function match(it: Interp, self: string, args: RValue[]): RValue {
  const re = pattern(it, args[0] ?? null);
  const m = new RegExp(re.source, re.flags).exec(self);
  it.lastMatch = m;
  return m ? [...m].map((x) => x ?? null) : null;
}

const T: Table = {
  "+": (_it, self: string, args) => self + str(args[0] ?? null),
  "*": (_it, self: string, args) => {
    const n = toInt(args[0] ?? null);
    if (n < 0n) throw new RubyError("negative argument", "ArgumentError");
    return self.repeat(Number(n));
  },
  "%": (_it, self: string, args) => rubyFormat(self, args[0] ?? null),
  "<<": (_it, self: string, args) =>
    self + (typeof args[0] === "bigint" ? String.fromCodePoint(Number(args[0])) : str(args[0] ?? null)),
  concat: (_it, self: string, args) => self + args.map((a) => str(a)).join(""),
  prepend: (_it, self: string, args) => args.map((a) => str(a)).join("") + self,
  replace: (_it, _self: string, args) => str(args[0] ?? null),
  "==": (_it, self: string, args) => self === args[0],
  "eql?": (_it, self: string, args) => self === args[0],
  "===": (_it, self: string, args) => self === args[0],
  "<=>": (_it, self: string, args) => {
    const c = compare(self, args[0] ?? null);
    return c === null ? null : BigInt(c);
  },
  "<": (_it, self: string, args) => mustCompare(self, args[0] ?? null) < 0,
  "<=": (_it, self: string, args) => mustCompare(self, args[0] ?? null) <= 0,
  ">": (_it, self: string, args) => mustCompare(self, args[0] ?? null) > 0,
  ">=": (_it, self: string, args) => mustCompare(self, args[0] ?? null) >= 0,
  "between?": (_it, self: string, args) =>
    mustCompare(self, args[0] ?? null) >= 0 && mustCompare(self, args[1] ?? null) <= 0,
  "=~": (it, self: string, args) => {
    const p = args[0] ?? null;
    if (typeof p === "string")
      throw new RubyError("wrong argument type String (expected Regexp)", "TypeError");
    if (!(p instanceof RRegexp)) return null;
    const m = new RegExp(p.re.source, p.re.flags).exec(self);
    it.lastMatch = m;
    return m ? BigInt(m.index) : null;
  },
  match: (it, self: string, args) => match(it, self, args),
  "match?": (it, self: string, args) => pattern(it, args[0] ?? null).test(self),
  scan: (it, self: string, args, blk) => {
    const g = globalOf(pattern(it, args[0] ?? null));
    const out: RValue[] = [];
    for (let m = g.exec(self); m !== null; m = g.exec(self)) {
      const v: RValue = m.length > 1 ? m.slice(1).map((x) => x ?? null) : m[0];
      if (blk) {
        it.lastMatch = m;
        blk.call([v]);
      } else out.push(v);
      if (m[0] === "") g.lastIndex++;
    }
    return blk ? self : out;
  },
  "[]": (it, self: string, args) => slice(it, self, args),
  slice: (it, self: string, args) => slice(it, self, args),
  length: (_it, self: string) => BigInt([...self].length),
  size: (_it, self: string) => BigInt([...self].length),
  bytesize: (_it, self: string) => BigInt(Buffer.byteLength(self)),
  "empty?": (_it, self: string) => self === "",
  upcase: (_it, self: string) => self.toUpperCase(),
  downcase: (_it, self: string) => self.toLowerCase(),
  capitalize: (_it, self: string) => self.slice(0, 1).toUpperCase() + self.slice(1).toLowerCase(),
  swapcase: (_it, self: string) =>
    [...self].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join(""),
  strip: (_it, self: string) => strip(self, true, true),
  lstrip: (_it, self: string) => strip(self, true, false),
  rstrip: (_it, self: string) => strip(self, false, true),
  chomp: (_it, self: string, args) => {
    if (args.length === 0) return self.replace(/(\r\n|\n|\r)$/, "");
    const suf = str(args[0] ?? null);
    if (suf === "") return self.replace(/(\r?\n)+$/, "");
    return self.endsWith(suf) ? self.slice(0, -suf.length) : self;
  },
  chop: (_it, self: string) => (self.endsWith("\r\n") ? self.slice(0, -2) : self.slice(0, -1)),
  chr: (_it, self: string) => self.slice(0, 1),
  chars: (_it, self: string) => [...self],
  bytes: (_it, self: string) => [...Buffer.from(self)].map((b) => BigInt(b)),
  lines: (_it, self: string) => self.match(/[^\n]*\n|[^\n]+$/g) ?? [],
  each_line: (_it, self: string, _args, blk) => {
    for (const l of self.match(/[^\n]*\n|[^\n]+$/g) ?? []) blk?.call([l]);
    return self;
  },
  each_char: (_it, self: string, _args, blk) => {
    if (!blk) return [...self];
    for (const c of self) blk.call([c]);
    return self;
  },
  split: (it, self: string, args) => split(it, self, args),
  "include?": (_it, self: string, args) => self.includes(str(args[0] ?? null)),
  "start_with?": (it, self: string, args) =>
    args.some((a) =>
      a instanceof RRegexp
        ? new RegExp(`^(?:${a.re.source})`, a.re.flags.replace("m", "")).test(self)
        : self.startsWith(str(a)),
    ) && it !== null,
  "end_with?": (_it, self: string, args) => args.some((a) => self.endsWith(str(a))),
  delete_prefix: (_it, self: string, args) => {
    const p = str(args[0] ?? null);
    return self.startsWith(p) ? self.slice(p.length) : self;
  },
  delete_suffix: (_it, self: string, args) => {
    const p = str(args[0] ?? null);
    return p !== "" && self.endsWith(p) ? self.slice(0, -p.length) : self;
  },
  index: (it, self: string, args) => index(self, args, false, it),
  rindex: (it, self: string, args) => index(self, args, true, it),
  gsub: (it, self: string, args, blk) => substitute(it, self, args, blk, true),
  sub: (it, self: string, args, blk) => substitute(it, self, args, blk, false),
  tr: (_it, self: string, args) => tr(self, str(args[0] ?? null), str(args[1] ?? null)),
  delete: (_it, self: string, args) => {
    const sets = args.map((a) => charSet(str(a)));
    return [...self].filter((c) => !sets.every((s) => s.test(c))).join("");
  },
  squeeze: (_it, self: string, args) => {
    const set = args.length ? charSet(str(args[0] ?? null)) : null;
    let out = "";
    for (const c of self) if (!(out.endsWith(c) && (!set || set.test(c)))) out += c;
    return out;
  },
  count: (_it, self: string, args) => {
    arity(args, 1, Number.POSITIVE_INFINITY);
    const sets = args.map((a) => charSet(str(a)));
    return BigInt([...self].filter((c) => sets.every((s) => s.test(c))).length);
  },
  ljust: (_it, self: string, args) => just(self, args, "l"),
  rjust: (_it, self: string, args) => just(self, args, "r"),
  center: (_it, self: string, args) => just(self, args, "c"),
  reverse: (_it, self: string) => [...self].reverse().join(""),
  to_s: (_it, self: string) => self,
  to_str: (_it, self: string) => self,
  to_sym: (_it, self: string) => RSymbol.of(self),
  intern: (_it, self: string) => RSymbol.of(self),
  to_i: (_it, self: string, args) => toI(self, args[0] === undefined ? 10 : Number(toInt(args[0]))),
  to_f: (_it, self: string) => {
    const m = /^\s*[-+]?(\d[\d_]*)?(\.\d+)?([eE][-+]?\d+)?/.exec(self);
    const t = m && (m[1] || m[2]) ? (m[0] as string).replace(/_/g, "") : "0";
    return Number(t);
  },
  hex: (_it, self: string) => toI(self.replace(/^(\s*[-+]?)0x/i, "$1"), 16),
  oct: (_it, self: string) => toI(self, 8),
  ord: (_it, self: string) => {
    if (self === "") throw new RubyError("empty string", "ArgumentError");
    return BigInt(self.codePointAt(0) as number);
  },
  succ: (_it, self: string) => succ(self),
  next: (_it, self: string) => succ(self),
  insert: (_it, self: string, args) => {
    let i = Number(toInt(args[0] ?? null));
    if (i < 0) i += self.length + 1;
    return self.slice(0, i) + str(args[1] ?? null) + self.slice(i);
  },
  partition: (it, self: string, args) => {
    const re = pattern(it, args[0] ?? null);
    const m = new RegExp(re.source, re.flags).exec(self);
    if (!m) return [self, "", ""];
    return [self.slice(0, m.index), m[0], self.slice(m.index + m[0].length)];
  },
  rpartition: (_it, self: string, args) => {
    const sep = str(args[0] ?? null);
    const i = self.lastIndexOf(sep);
    if (i < 0) return ["", "", self];
    return [self.slice(0, i), sep, self.slice(i + sep.length)];
  },
  casecmp: (_it, self: string, args) => {
    if (typeof args[0] !== "string") return null;
    return BigInt(compare(self.toLowerCase(), args[0].toLowerCase()) ?? 0);
  },
  "casecmp?": (_it, self: string, args) =>
    typeof args[0] === "string" && self.toLowerCase() === args[0].toLowerCase(),
  upto: (_it, self: string, args, blk) => {
    const out: RValue[] = [];
    const to = str(args[0] ?? null);
    let s = self;
    for (let n = 0; n < 100000 && s.length <= to.length; n++) {
      blk ? blk.call([s]) : out.push(s);
      if (s === to) break;
      s = succ(s);
    }
    return blk ? self : out;
  },
  encoding: () => "UTF-8",
  force_encoding: (_it, self: string) => self,
  encode: (_it, self: string) => self,
  unicode_normalize: (_it, self: string) => self.normalize("NFC"),
  "valid_encoding?": () => true,
  "ascii_only?": (_it, self: string) => /^[\x00-\x7f]*$/.test(self),
  inspect: (_it, self: string) => inspect(self),
  dump: (_it, self: string) => inspect(self),
  "frozen?": () => false,
  sum: (_it, self: string) => BigInt([...Buffer.from(self)].reduce((a, b) => a + b, 0) & 0xffff),
  hash: (_it, self: string) => BigInt(self.length),
  "=": () => {
    throw new RubyError("cannot assign into a string", "NoMethodError");
  },
};

for (const m of [
  "upcase",
  "downcase",
  "capitalize",
  "swapcase",
  "strip",
  "lstrip",
  "rstrip",
  "chomp",
  "chop",
  "squeeze",
  "gsub",
  "sub",
  "tr",
  "delete",
  "reverse",
  "succ",
  "next",
  "delete_prefix",
  "delete_suffix",
  "replace",
]) {
  if (T[m]) T[`${m}!`] = T[m] as Method;
}

void isNum;
void className;

export const STRING_METHODS: Table = T;
