/**
 * Puppet's string converter (`String(v, format)`, `String.new`): a format
 * per type (`%d %x %o %b %e %f %g %s %p %q`, flags, width, precision),
 * container formats with separators and nested string formats, and the
 * default formats (`%p` inside containers, `%f` for floats...).
 */
import {
  DEFAULT,
  isHash,
  isType,
  PBinary,
  PHash,
  PIterator,
  PDeferred,
  PObject,
  PRegexp,
  PSensitive,
  type PValue,
} from "../values.js";
import { inferSet } from "./infer.js";
import {
  ANY,
  PArrayType,
  PBinaryType,
  PBooleanType,
  PEnumType,
  PFloatType,
  PHashType,
  PIntegerType,
  PNumericType,
  PObjectType,
  PPatternType,
  PRegexpType,
  PStringType,
  PStructType,
  PTupleType,
  type PType,
  TypeSystemError,
} from "./model.js";
import {
  deferredText,
  formatTypeArg,
  indentedObjectText,
  puppetDoubleQuote,
  puppetQuote,
  regexpToString,
  rubyFloat,
} from "./quote.js";

const FMT = /^%([\s[+#0{<(|-]*)([1-9][0-9]*)?(?:\.([0-9]+))?([a-zA-Z])$/;

export class Format {
  readonly left: boolean;
  readonly alt: boolean;
  readonly plus: "space" | "plus" | "ignore";
  readonly zeroPad: boolean;
  readonly delimiters?: string;
  readonly width?: number;
  readonly prec?: number;
  readonly format: string;
  separator?: string;
  separator2?: string;
  containerFormats?: FormatMap;
  constructor(readonly orig: string) {
    const m = FMT.exec(orig);
    if (!m)
      throw new TypeSystemError(
        `The format '${orig}' is not a valid format on the form '%<flags><width>.<prec><format>'`,
      );
    const flags = [...(m[1] ?? "")];
    if (new Set(flags).size !== flags.length)
      throw new TypeSystemError(`The same flag can only be used once, got '${orig}'`);
    this.left = flags.includes("-");
    this.alt = flags.includes("#");
    this.plus = flags.includes(" ") ? "space" : flags.includes("+") ? "plus" : "ignore";
    this.zeroPad = flags.includes("0");
    for (const d of ["[", "{", "(", "<", "|"]) {
      if (!flags.includes(d)) continue;
      if (this.delimiters !== undefined)
        throw new TypeSystemError(
          `Only one of the delimiters [ { ( < | can be given in the format flags, got '${orig}'`,
        );
      this.delimiters = d;
    }
    this.width = m[2] ? Number(m[2]) : undefined;
    this.prec = m[3] ? Number(m[3]) : undefined;
    this.format = m[4] as string;
  }
  delimiterPair(def: [string, string]): [string, string] {
    const d = this.delimiters ?? (this.plus === "space" ? "space" : undefined);
    switch (d) {
      case "[":
        return ["[", "]"];
      case "{":
        return ["{", "}"];
      case "(":
        return ["(", ")"];
      case "<":
        return ["<", ">"];
      case "|":
        return ["|", "|"];
      case "space":
        return ["", ""];
    }
    return def;
  }
  merge(other: Format): Format {
    const r = new Format(other.orig);
    r.separator = other.separator ?? this.separator;
    r.separator2 = other.separator2 ?? this.separator2;
    r.containerFormats = mergeFormats(this.containerFormats, other.containerFormats);
    return r;
  }
}

type FormatMap = [PType, Format][];

function mergeFormats(lower: FormatMap | undefined, higher: FormatMap | undefined): FormatMap | undefined {
  if (!lower || !higher) return lower ?? higher;
  const lowerKept = lower.filter(([lk]) => !higher.some(([hk]) => !hk.equals(lk) && hk.isAssignable(lk)));
  const keys: PType[] = [];
  for (const [k] of [...lowerKept, ...higher]) if (!keys.some((x) => x.equals(k))) keys.push(k);
  const merged: FormatMap = keys.map((k) => {
    const l = lowerKept.find(([x]) => x.equals(k))?.[1];
    const h = higher.find(([x]) => x.equals(k))?.[1];
    return [k, l && h ? l.merge(h) : ((l ?? h) as Format)];
  });
  return sortFormats(merged);
}

function typeRank(t: PType): number {
  if (t instanceof PStructType) return 1;
  if (t instanceof PHashType) return 2;
  if (t instanceof PTupleType) return 3;
  if (t instanceof PArrayType) return 4;
  if (t instanceof PPatternType) return 10;
  if (t instanceof PEnumType) return 11;
  if (t instanceof PRegexpType) return 20;
  if (t instanceof PStringType) return 21;
  if (t instanceof PFloatType) return 30;
  if (t instanceof PIntegerType) return 31;
  if (t instanceof PBooleanType) return 40;
  return 0;
}

function sortFormats(map: FormatMap): FormatMap {
  return [...map].sort(([a], [b]) => {
    const ab = b.isAssignable(a);
    const ba = a.isAssignable(b);
    if (a.equals(b)) return 0;
    if (ab && !ba) return -1;
    if (!ab && ba) return 1;
    const ra = typeRank(a);
    const rb = typeRank(b);
    if (ra === 0 || rb === 0) {
      const sa = a.toString();
      const sb = b.toString();
      return sa < sb ? -1 : sa > sb ? 1 : 0;
    }
    return ra - rb;
  });
}

function fmt(s: string): Format {
  return new Format(s);
}

const DEFAULT_CONTAINER_FORMATS = (): FormatMap => [[ANY, fmt("%p")]];

function defaultArrayFormat(): Format {
  const f = fmt("%a");
  f.separator = ", ";
  f.separator2 = ", ";
  f.containerFormats = DEFAULT_CONTAINER_FORMATS();
  return f;
}
function defaultHashFormat(): Format {
  const f = fmt("%h");
  f.separator = ", ";
  f.separator2 = " => ";
  f.containerFormats = DEFAULT_CONTAINER_FORMATS();
  return f;
}

let defaults: FormatMap | undefined;
function defaultFormats(): FormatMap {
  defaults ??= [
    [new PObjectType(), fmt("%p")],
    [new PFloatType(), fmt("%f")],
    [new PNumericType(), fmt("%d")],
    [new PArrayType(), defaultArrayFormat()],
    [new PHashType(), defaultHashFormat()],
    [new PBinaryType(), fmt("%B")],
    [ANY, fmt("%s")],
  ];
  return defaults;
}

/** Puppet's `String(v, formats)`: formats is `default`, a format string, or a hash of type => format. */
export function stringFormat(value: PValue, formats: PValue = DEFAULT): string {
  let options = defaultFormats();
  const valueType = inferSet(value);
  let f: PValue = formats;
  if (typeof f === "string") {
    let key: PType = valueType;
    if (new PArrayType().isAssignable(valueType)) key = new PArrayType();
    else if (new PHashType().isAssignable(valueType)) key = new PHashType();
    const h = new PHash();
    if (key instanceof PArrayType || key instanceof PHashType) h.set(key, PHash.fromRecord({ format: f }));
    else h.set(key, f);
    f = h;
  }
  if (f === DEFAULT || f === undefined) {
    // defaults
  } else if (isHash(f)) {
    options = mergeFormats(options, validateInput(f)) as FormatMap;
  } else {
    throw new TypeSystemError(
      `string conversion expects a Default value or a Hash of type to format mappings, got a '${typeof f}'`,
    );
  }
  return convert(valueType, value, options, { level: 0, first: true, indenting: false });
}

function validateInput(h: PHash): FormatMap {
  const out: FormatMap = [];
  for (const [k, v] of h) {
    if (!isType(k))
      throw new TypeSystemError(
        `top level keys in the format hash must be data types, got instance of '${typeof k}'`,
      );
    out.push([k, isHash(v) ? validateContainer(v) : new Format(String(v))]);
  }
  return out;
}

function validateContainer(h: PHash): Format {
  for (const k of h.keys())
    if (!["separator", "separator2", "format", "string_formats"].includes(String(k)))
      throw new TypeSystemError(
        `only 'separator', 'separator2', 'format', 'string_formats' are allowed in a container format, got ${formatTypeArg(h)}`,
      );
  const f = new Format(String(h.get("format")));
  const sep = h.get("separator");
  const sep2 = h.get("separator2");
  if (typeof sep === "string") f.separator = sep;
  if (typeof sep2 === "string") f.separator2 = sep2;
  const sf = h.get("string_formats");
  if (isHash(sf)) f.containerFormats = validateInput(sf);
  return f;
}

interface Indentation {
  level: number;
  first: boolean;
  indenting: boolean;
}
const subsequent = (i: Indentation): Indentation => (i.first ? { ...i, first: false } : i);
const indenting = (i: Indentation, flag: boolean): Indentation => ({ ...i, indenting: flag });
const increase = (i: Indentation, flag = false): Indentation => ({
  level: i.level + 1,
  first: true,
  indenting: flag,
});
const breaks = (i: Indentation): boolean => i.indenting && i.level > 0 && !i.first;
const padding = (i: Indentation): string => " ".repeat(2 * i.level);

function getFormat(t: PType, map: FormatMap): Format {
  for (const [k, f] of map) if (k.isAssignable(t)) return f;
  return fmt("%s");
}

class FormatError extends TypeSystemError {
  constructor(type: string, actual: string, expected: string) {
    super(
      `Illegal format '${actual}' specified for value of ${type} type - expected one of the characters '${expected}'`,
    );
  }
}

function isContainer(t: PType): boolean {
  return (
    t instanceof PArrayType ||
    t instanceof PHashType ||
    t instanceof PStructType ||
    t instanceof PTupleType ||
    t instanceof PObjectType
  );
}
const isAorH = (v: PValue): boolean => Array.isArray(v) || isHash(v);

function convert(t: PType, v: PValue, map: FormatMap, ind: Indentation): string {
  if (v === undefined) return undefString(getFormat(t, map));
  if (v === DEFAULT) return defaultString(getFormat(t, map));
  if (typeof v === "bigint") return intString(getFormat(t, map), v);
  if (typeof v === "number") return floatString(getFormat(t, map), v);
  if (typeof v === "boolean") return boolString(getFormat(t, map), v, ind);
  if (typeof v === "string") return stringString(getFormat(t, map), v);
  if (Array.isArray(v)) return arrayString(t, v, map, ind);
  if (isHash(v)) return hashString(t, v, map, ind);
  if (v instanceof PRegexp) return regexpString(getFormat(t, map), v);
  if (v instanceof PBinary) return binaryString(getFormat(t, map), v);
  if (v instanceof PIterator) {
    const a = [...v.produce()];
    return convert(inferSet(a), a, map, ind);
  }
  if (isType(v)) {
    const f = getFormat(t, map);
    if (f.format === "s") return sprintf(f.orig, [f.alt ? `"${v}"` : v.toString()]);
    if (f.format === "p") return sprintf(f.orig.replace("p", "s"), [v.toString()]);
    throw new FormatError("Type", f.format, "sp");
  }
  if (v instanceof PSensitive)
    return sprintf(getFormat(t, map).orig.replace(/[a-zA-Z]$/, "s"), ["Sensitive [value redacted]"]);
  if (v instanceof PDeferred || (v instanceof PObject && v.typeName === "Error")) {
    const f = getFormat(t, map);
    // Puppet indents an Object's %p inside an indenting container, and for
    // `%#p` of a Deferred (not of an Error: its inferred type,
    // Error[undef, undef], is not the one its formats are looked up by).
    if (f.format === "p" && (ind.indenting || (f.alt && v instanceof PDeferred)))
      return indentedObjectText(v, ind.level);
    if (f.format === "p" || f.format === "s") return v instanceof PDeferred ? deferredText(v) : v.toString();
    if (f.format === "q") return v.toString();
    throw new FormatError("Object", f.format, "spq");
  }
  if (v instanceof PObject) {
    const f = getFormat(t, map);
    if (v.typeName === "URI") {
      if (f.format === "p") return `URI(${puppetQuote(v.toString())})`;
      if (f.format === "s") return sprintf(f.orig, [f.alt ? puppetQuote(v.toString()) : v.toString()]);
      throw new FormatError("URI", f.format, "sp");
    }
    const simple = ["Timespan", "Timestamp", "SemVer", "SemVerRange"].includes(v.typeName);
    switch (f.format) {
      case "p":
        if (v.typeName === "SemVer" || v.typeName === "SemVerRange") return v.toString();
        return simple ? `${v.typeName}('${v.toString()}')` : v.toString();
      case "s":
        return v.toString();
      case "q":
        return v.toString();
    }
    throw new FormatError("Object", f.format, "spq");
  }
  return String(v);
}

function applyStringFlags(f: Format, s: string): string {
  if (f.left || f.width !== undefined || f.prec !== undefined)
    return sprintf(`%${f.left ? "-" : ""}${f.width ?? ""}${f.prec !== undefined ? `.${f.prec}` : ""}s`, [s]);
  return s;
}

function undefString(f: Format): string {
  let s: string;
  switch (f.format) {
    case "n":
      s = f.alt ? "null" : "nil";
      break;
    case "u":
      s = f.alt ? "undefined" : "undef";
      break;
    case "d":
    case "x":
    case "X":
    case "o":
    case "b":
    case "B":
    case "e":
    case "E":
    case "f":
    case "g":
    case "G":
    case "a":
    case "A":
      s = "NaN";
      break;
    case "v":
      s = "n/a";
      break;
    case "V":
      s = "N/A";
      break;
    case "s":
      s = f.alt ? '""' : "";
      break;
    case "p":
      s = f.alt ? '"undef"' : "undef";
      break;
    default:
      throw new FormatError("Undef", f.format, "nudxXobBeEfgGaAvVsp");
  }
  return applyStringFlags(f, s);
}

function defaultString(f: Format): string {
  switch (f.format) {
    case "d":
    case "s":
    case "p":
      return applyStringFlags(f, f.alt ? '"default"' : "default");
    case "D":
      return applyStringFlags(f, f.alt ? '"Default"' : "Default");
  }
  throw new FormatError("Default", f.format, "dDsp");
}

function boolString(f: Format, v: boolean, ind: Indentation): string {
  const first = (s: string): string => (f.alt ? s.charAt(0) : s);
  switch (f.format) {
    case "t":
      return applyStringFlags(f, first(String(v)));
    case "T":
      return applyStringFlags(f, first(v ? "True" : "False"));
    case "y":
      return applyStringFlags(f, first(v ? "yes" : "no"));
    case "Y":
      return applyStringFlags(f, first(v ? "Yes" : "No"));
    case "d":
    case "x":
    case "X":
    case "o":
    case "b":
    case "B":
      return convert(inferSet(v ? 1n : 0n), v ? 1n : 0n, [[new PIntegerType(), f]], ind);
    case "e":
    case "E":
    case "f":
    case "g":
    case "G":
    case "a":
    case "A":
      return convert(inferSet(v ? 1 : 0), v ? 1 : 0, [[new PFloatType(), f]], ind);
    case "s":
    case "p":
      return applyStringFlags(f, String(v));
  }
  throw new FormatError("Boolean", f.format, "tTyYdxXobBeEfgGaAsp");
}

function intString(f: Format, v: bigint): string {
  switch (f.format) {
    case "d":
    case "x":
    case "X":
    case "o":
    case "b":
    case "B":
    case "p":
      return sprintf(f.orig, [v]);
    case "e":
    case "E":
    case "f":
    case "g":
    case "G":
    case "a":
    case "A":
      return sprintf(f.orig, [Number(v)]);
    case "c": {
      const ch = String.fromCodePoint(Number(v));
      return sprintf(f.orig.replace("c", "s"), [f.alt ? `"${ch}"` : ch]);
    }
    case "s": {
      const s = v.toString();
      return sprintf(f.orig.replace(/s/g, f.alt ? "p" : "s"), [s]);
    }
  }
  throw new FormatError("Integer", f.format, "dxXobBeEfgGaAspc");
}

function floatString(f: Format, v: number): string {
  switch (f.format) {
    case "d":
    case "x":
    case "X":
    case "o":
    case "b":
    case "B":
      return sprintf(f.orig, [BigInt(Math.trunc(v))]);
    case "e":
    case "E":
    case "f":
    case "g":
    case "G":
    case "a":
    case "A":
    case "p":
      return sprintf(f.orig, [v]);
    case "s": {
      const s = f.alt ? `"${rubyFloat(v)}"` : rubyFloat(v);
      return sprintf(f.orig, [s]);
    }
  }
  throw new FormatError("Float", f.format, "dxXobBeEfgGaAsp");
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();
}

function stringString(f: Format, v: string): string {
  const conv = (c: string, letter: string): string =>
    f.alt ? applyStringFlags(f, puppetQuote(c)) : sprintf(f.orig.replace(letter, "s"), [c]);
  switch (f.format) {
    case "s":
      return sprintf(f.orig, [v]);
    case "p":
      return applyStringFlags(f, f.alt ? puppetDoubleQuote(v) : puppetQuote(v));
    case "c":
      return conv(capitalize(v), "c");
    case "C":
      return conv(v.split("::").map(capitalize).join("::"), "C");
    case "u":
      return conv(v.toUpperCase(), "u");
    case "d":
      return conv(v.toLowerCase(), "d");
    case "t":
      return conv(v.trim(), "t");
  }
  throw new FormatError("String", f.format, "cCudspt");
}

function regexpString(f: Format, v: PRegexp): string {
  switch (f.format) {
    case "p": {
      const s = regexpToString(v.source);
      return f.orig === "%p" ? s : sprintf(f.orig.replace("p", "s"), [s]);
    }
    case "s": {
      const s = f.alt ? puppetQuote(v.source) : v.source;
      return f.orig === "%s" ? s : sprintf(f.orig, [s]);
    }
  }
  throw new FormatError("Regexp", f.format, "sp");
}

function binaryString(f: Format, v: PBinary): string {
  const sub = f.alt ? "p" : "s";
  const buf = Buffer.from(v.bytes);
  switch (f.format) {
    case "s":
      return sprintf(f.orig.replace(/s/g, sub), [buf.toString("utf8")]);
    case "p":
      return `Binary("${sprintf(f.orig.replace("p", "s"), [buf.toString("base64")])}")`;
    case "b": {
      const b64 = buf.toString("base64").replace(/(.{60})/g, "$1\n");
      return sprintf(f.orig.replace("b", sub), [buf.length ? `${b64.replace(/\n$/, "")}\n` : ""]);
    }
    case "B":
      return sprintf(f.orig.replace("B", sub), [buf.toString("base64")]);
    case "u":
      return sprintf(f.orig.replace("u", sub), [
        buf.toString("base64url").padEnd(Math.ceil(buf.length / 3) * 4, "="),
      ]);
    case "t":
      return sprintf(f.orig.replace("t", sub), ["Binary"]);
    case "T":
      return sprintf(f.orig.replace("T", sub), ["BINARY"]);
  }
  throw new FormatError("Binary", f.format, "bButTsp");
}

function arrayString(t: PType, val: PValue[], map: FormatMap, indIn: Indentation): string {
  const format = getFormat(t, map);
  const sep = format.separator ?? ", ";
  const stringFormats = format.containerFormats ?? DEFAULT_CONTAINER_FORMATS();
  const delims = format.delimiterPair(["[", "]"]);
  const ind = indenting(indIn, format.alt || indIn.indenting);
  if (!["a", "s", "p"].includes(format.format)) throw new FormatError("Array", format.format, "asp");
  let buf = "";
  if (breaks(ind)) buf += `\n${padding(ind)}`;
  buf += delims[0];
  let children = increase(ind, format.alt);
  const mapped = val.map((v) => {
    if (children.first) children = subsequent(children);
    const vt = inferSet(v);
    return convert(vt, v, isContainer(vt) ? map : stringFormats, children);
  });
  let szBreak = false;
  if (format.alt && format.width !== undefined) {
    const widest = [0];
    val.forEach((v, i) => {
      if (isAorH(v)) widest.push(0);
      else widest[widest.length - 1] = (widest[widest.length - 1] as number) + (mapped[i] as string).length;
    });
    szBreak = Math.max(...widest) > format.width;
  }
  children = increase(ind, format.alt);
  val.forEach((v, i) => {
    const s = mapped[i] as string;
    if (children.first) {
      children = subsequent(children);
      if (szBreak && !isAorH(v)) buf += " ";
    } else {
      buf += sep;
      if ((szBreak && !isAorH(v)) || (format.alt && i > 0 && isAorH(val[i - 1]) && !isAorH(v))) {
        if (!buf.endsWith("\n")) buf = buf.trimEnd();
        buf += `\n${padding(children)}`;
      }
    }
    if (buf.endsWith(" ") && s.startsWith("\n")) buf = buf.trimEnd();
    buf += s;
  });
  return buf + delims[1];
}

function hashString(t: PType, val: PHash, map: FormatMap, indIn: Indentation): string {
  const format = getFormat(t, map);
  let sep = format.separator ?? ", ";
  const assoc = format.separator2 ?? " => ";
  const stringFormats = format.containerFormats ?? DEFAULT_CONTAINER_FORMATS();
  const delims = format.delimiterPair(["{", "}"]);
  if (format.alt) {
    if (!sep.endsWith("\n")) sep = sep.trimEnd();
    sep = `${sep}\n`;
  }
  if (format.format === "a") {
    const arr: PValue[] = [...val].map(([k, v]) => [k, v]);
    return convert(inferSet(arr), arr, map, indIn);
  }
  if (!["h", "s", "p"].includes(format.format)) throw new FormatError("Hash", format.format, "hasp");
  const ind = indenting(indIn, format.alt || indIn.indenting);
  let buf = "";
  if (breaks(ind)) buf += `\n${padding(ind)}`;
  const children = increase(ind);
  let condBreak = "";
  let pad = "";
  if (format.alt) {
    condBreak = "\n";
    pad = padding(children);
  }
  buf += delims[0] + condBreak;
  buf += [...val]
    .map(([k, v]) => {
      const kt = inferSet(k);
      const vt = inferSet(v);
      const ks = convert(kt, k, isContainer(kt) ? map : stringFormats, children);
      const vs = convert(vt, v, isContainer(vt) ? map : stringFormats, children);
      return `${pad}${ks}${assoc}${vs}`;
    })
    .join(sep);
  if (format.alt) buf += condBreak + padding(ind);
  return buf + delims[1];
}

/* ------------------------------------------------------------------ sprintf */

/** Ruby's Kernel#format for one conversion (`%-+ 0#` flags, width, precision; d i x X o b B e E f g G s p c). */
export function sprintf(format: string, args: readonly (PValue | number)[]): string {
  let ai = 0;
  return format.replace(
    /%([-+ 0#]*)(\d+)?(?:\.(\d+))?([diuxXobBeEfgGaAspc%])/g,
    (_m, flags: string, w: string, p: string, c: string) => {
      if (c === "%") return "%";
      const arg = args[ai++];
      const width = w ? Number(w) : 0;
      const prec = p !== undefined && p !== "" ? Number(p) : undefined;
      const left = flags.includes("-");
      const zero = flags.includes("0") && !left;
      const plus = flags.includes("+");
      const space = flags.includes(" ");
      const alt = flags.includes("#");
      const padNum = (sign: string, prefix: string, digits: string): string => {
        const body = sign + prefix + digits;
        if (body.length >= width) return body;
        if (left) return body.padEnd(width, " ");
        if (zero && prec === undefined)
          return sign + prefix + digits.padStart(width - sign.length - prefix.length, "0");
        return body.padStart(width, " ");
      };
      const padStr = (s: string): string => (left ? s.padEnd(width, " ") : s.padStart(width, " "));
      switch (c) {
        case "d":
        case "i":
        case "u": {
          const n = typeof arg === "bigint" ? arg : BigInt(Math.trunc(Number(arg)));
          const neg = n < 0n;
          let digits = (neg ? -n : n).toString();
          if (prec !== undefined) digits = digits.padStart(prec, "0");
          return padNum(neg ? "-" : plus ? "+" : space ? " " : "", "", digits);
        }
        case "x":
        case "X":
        case "o":
        case "b":
        case "B": {
          const n = typeof arg === "bigint" ? arg : BigInt(Math.trunc(Number(arg)));
          const radix = c === "o" ? 8 : c === "b" || c === "B" ? 2 : 16;
          if (n < 0n && !plus && !space) {
            let s = twosComplement(n, radix);
            if (c === "X") s = s.toUpperCase();
            const pre = alt
              ? c === "x"
                ? "0x"
                : c === "X"
                  ? "0X"
                  : c === "b"
                    ? "0b"
                    : c === "B"
                      ? "0B"
                      : ""
              : "";
            return padStr(`${pre}..${s}`);
          }
          const neg = n < 0n;
          let digits = (neg ? -n : n).toString(radix);
          if (c === "X") digits = digits.toUpperCase();
          if (prec !== undefined) digits = digits.padStart(prec, "0");
          let prefix = "";
          if (alt && n !== 0n)
            prefix = c === "o" ? "0" : c === "x" ? "0x" : c === "X" ? "0X" : c === "b" ? "0b" : "0B";
          return padNum(neg ? "-" : plus ? "+" : space ? " " : "", prefix, digits);
        }
        case "e":
        case "E":
        case "f":
        case "g":
        case "G":
        case "a":
        case "A": {
          const x = Number(arg);
          const neg = x < 0 || Object.is(x, -0);
          const ax = Math.abs(x);
          let digits: string;
          if (!Number.isFinite(ax)) digits = Number.isNaN(ax) ? "NaN" : "Inf";
          else if (c === "f") digits = toFixedC(ax, prec ?? 6);
          else if (c === "e" || c === "E") digits = expText(ax, prec ?? 6);
          else if (c === "g" || c === "G") digits = gText(ax, prec ?? 6, alt);
          else digits = ax.toString(16);
          if (c === "E" || c === "G" || c === "A") digits = digits.toUpperCase();
          return padNum(neg ? "-" : plus ? "+" : space ? " " : "", "", digits);
        }
        case "s": {
          let s = typeof arg === "string" ? arg : formatPlain(arg as PValue);
          if (prec !== undefined) s = s.slice(0, prec);
          return padStr(s);
        }
        case "p": {
          let s = inspect(arg as PValue);
          if (prec !== undefined) s = s.slice(0, prec);
          return padStr(s);
        }
        case "c":
          return padStr(typeof arg === "string" ? arg.charAt(0) : String.fromCodePoint(Number(arg)));
      }
      return _m;
    },
  );
}

function expText(x: number, prec: number): string {
  const s = x.toExponential(prec);
  const m = /^(.*)e([+-])(\d+)$/.exec(s) as RegExpExecArray;
  return `${m[1]}e${m[2]}${(m[3] as string).padStart(2, "0")}`;
}

function gText(x: number, prec: number, alt: boolean): string {
  const p = prec === 0 ? 1 : prec;
  if (x === 0) return alt ? `0.${"0".repeat(p - 1)}` : "0";
  const exp = Math.floor(Math.log10(x));
  let s: string;
  if (exp < -4 || exp >= p) {
    s = expText(x, p - 1);
    if (!alt) s = s.replace(/\.?0+e/, "e");
  } else {
    s = x.toFixed(Math.max(0, p - 1 - exp));
    if (!alt && s.includes(".")) s = s.replace(/\.?0+$/, "");
  }
  return s;
}

function formatPlain(v: PValue): string {
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return rubyFloat(v);
  if (v === undefined) return "";
  return String(v);
}

/** Ruby's inspect for the values `%p` meets. */
function inspect(v: PValue): string {
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return rubyFloat(v);
  if (typeof v === "string") return JSON.stringify(v);
  if (v === undefined) return "nil";
  if (typeof v === "boolean") return String(v);
  return String(v);
}

/** The digits of a negative number in two's complement as Ruby's format shows them (`-255` in hex: `f01`). */
function twosComplement(n: bigint, radix: number): string {
  const r = BigInt(radix);
  const k = (-n).toString(radix).length;
  const m = r ** BigInt(k) + n;
  const max = (radix - 1).toString(radix);
  let s = max + m.toString(radix).padStart(k, "0");
  while (s.length > 1 && s[0] === max && s[1] === max) s = s.slice(1);
  return s;
}

/** x (>= 0) with `prec` decimals, exact ties rounded to even as C's printf does (2.5 gives 2). */
export function toFixedC(x: number, prec: number): string {
  if (!Number.isFinite(x) || x >= 1e21) return x.toFixed(prec);
  // The exact value of the double as num / den.
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  const bits = buf.getBigUint64(0);
  const expBits = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  let exp: number;
  if (expBits === 0) exp = -1074;
  else {
    mant |= 1n << 52n;
    exp = expBits - 1075;
  }
  let num = mant * 10n ** BigInt(prec);
  let den = 1n;
  if (exp >= 0) num <<= BigInt(exp);
  else den <<= BigInt(-exp);
  let q = num / den;
  const rem2 = (num - q * den) * 2n;
  if (rem2 > den || (rem2 === den && q % 2n === 1n)) q += 1n;
  const digits = q.toString().padStart(prec + 1, "0");
  return prec === 0 ? digits : `${digits.slice(0, -prec)}.${digits.slice(-prec)}`;
}
