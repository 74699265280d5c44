/** stdlib's 3.x functions over strings, booleans and numbers, with stdlib's own checks and messages. */
import { createHash, pbkdf2Sync, randomInt } from "node:crypto";
import { isIP } from "node:net";
import type { CallContext, PuppetFunction } from "../registry.js";
import { PHash, PSensitive, type PValue } from "../../values.js";
import { fail, legacy, noMethod, rubyClass, rubyInspect, rubyToS } from "./support.js";

const isArr = Array.isArray as (v: PValue) => v is PValue[];

/** str2bool's conversion (booleans pass through). */
export function str2boolValue(v: PValue): boolean {
  if (typeof v === "boolean") return v;
  if (typeof v !== "string") fail("str2bool(): Requires string to work with");
  if (/^$/m.test(v)) return false;
  if (/^(1|t|y|true|yes)$/im.test(v)) return true;
  if (/^(0|f|n|false|no)$/im.test(v)) return false;
  if (/^(undef|undefined)$/m.test(v)) return false;
  return fail("str2bool(): Unknown type of boolean given");
}

export const str2bool: PuppetFunction = legacy((_ctx, args) => {
  if (args.length === 0) fail(`str2bool(): Wrong number of arguments given (${args.length} for 1)`);
  return str2boolValue(args[0]);
});

export const bool2str: PuppetFunction = legacy((_ctx, args) => {
  if (args.length !== 1 && args.length !== 3)
    fail(`bool2str(): Wrong number of arguments given (${args.length} for 3)`);
  const [value, t = "true", f = "false"] = args;
  if (typeof value !== "boolean") fail("bool2str(): Requires a boolean to work with");
  if (typeof t !== "string" || typeof f !== "string") fail("bool2str(): Requires strings to convert to");
  return value ? t : f;
});

export const bool2num: PuppetFunction = legacy((_ctx, args) => {
  if (args.length === 0) fail(`bool2num(): Wrong number of arguments given (${args.length} for 1)`);
  return str2boolValue(args[0]) ? 1n : 0n;
});

/** Ruby's `Float(s)`, or undefined when s is not a number's text. */
function rubyFloat(s: string): number | undefined {
  const t = s.trim().replace(/(\d)_(?=\d)/g, "$1");
  if (/^[-+]?(\d+(\.\d+)?([eE][-+]?\d+)?|\.\d+)$/.test(t)) return Number(t);
  if (/^[-+]?0x[0-9a-f]+$/i.test(t)) return Number.parseInt(t, 16);
  return undefined;
}

function num2boolValue(v: PValue): boolean {
  let n: number;
  if (typeof v === "bigint" || typeof v === "number") n = Number(v);
  else if (typeof v === "string") {
    const f = rubyFloat(v);
    if (f === undefined)
      fail(`num2bool(): '${v}' does not look like a number: invalid value for Float(): ${rubyInspect(v)}`);
    n = f;
  } else {
    // number.to_s.to_i
    const m = /^\s*[-+]?\d+/.exec(rubyToS(v));
    n = m ? Number(m[0]) : 0;
  }
  return Math.trunc(n) > 0;
}

export const num2bool: PuppetFunction = legacy((_ctx, args) => {
  if (args.length !== 1) fail(`num2bool(): Wrong number of arguments given (${args.length} for 1)`);
  return num2boolValue(args[0]);
});

export const any2bool: PuppetFunction = legacy((_ctx, args) => {
  if (args.length === 0) fail(`any2bool(): Wrong number of arguments given (${args.length} for 1)`);
  const a = args[0];
  if (typeof a === "boolean") return a;
  if (a === undefined) return false;
  if (typeof a === "bigint" || typeof a === "number") return num2boolValue(a);
  if (typeof a === "string") return rubyFloat(a) !== undefined ? num2boolValue(a) : str2boolValue(a);
  return true;
});

function rubyBasename(path: string, suffix?: string): string {
  if (path === "") return "";
  const p = path.replace(/\/+$/, "");
  if (p === "") return "/";
  let b = p.slice(p.lastIndexOf("/") + 1);
  if (suffix === ".*") b = b.replace(/(.)\.[^.]*$/, "$1");
  else if (suffix && b.endsWith(suffix) && b !== suffix) b = b.slice(0, -suffix.length);
  return b;
}

function rubyDirname(path: string): string {
  const p = path.replace(/(.)\/+$/, "$1");
  const i = p.lastIndexOf("/");
  if (i < 0) return ".";
  const d = p.slice(0, i).replace(/(.)\/+$/, "$1");
  return d === "" ? "/" : d;
}

export const basename: PuppetFunction = legacy((_ctx, args) => {
  if (args.length === 0) fail("basename(): No arguments given");
  if (args.length > 2) fail(`basename(): Too many arguments given (${args.length})`);
  const [p, s] = args;
  if (typeof p !== "string") fail("basename(): Requires string as first argument");
  if (args.length === 2 && typeof s !== "string") fail("basename(): Requires string as second argument");
  return rubyBasename(p, s as string | undefined);
});

export const dirname: PuppetFunction = legacy((_ctx, args) => {
  if (args.length === 0) fail("dirname(): No arguments given");
  if (args.length > 1) fail(`dirname(): Too many arguments given (${args.length})`);
  const p = args[0];
  if (typeof p !== "string") fail("dirname(): Requires string as argument");
  if (p === "") fail("dirname(): Requires a non-empty string as argument");
  return rubyDirname(p);
});

/** Ruby's File.extname. */
export function rubyExtname(path: string): string {
  const b = rubyBasename(path);
  const m = /^\.*[^.].*?(\.[^.]*)$/.exec(b);
  if (!m) return "";
  const ext = m[1] as string;
  return ext === "." ? "." : ext;
}

function lineEnds(name: string, to: (s: string) => string): PuppetFunction {
  return legacy((_ctx, args) => {
    if (args.length !== 1) fail(`${name}(): Wrong number of arguments given (${args.length} for 1)`);
    if (typeof args[0] !== "string") fail(`${name}(): Requires string as argument`);
    return to(args[0]);
  });
}
export const dos2unix = lineEnds("dos2unix", (s) => s.replace(/\r\n/g, "\n"));
export const unix2dos = lineEnds("unix2dos", (s) => s.replace(/\r*\n/g, "\r\n"));

export const base64: PuppetFunction = legacy((_ctx, args) => {
  if (args.length < 2) fail(`base64(): Wrong number of arguments (${args.length}; must be >= 2)`);
  const [action, text, method = "default"] = args;
  if (action !== "encode" && action !== "decode")
    fail("base64(): the first argument must be one of 'encode' or 'decode'");
  if (typeof text !== "string") fail("base64(): the second argument must be a string to base64");
  if (method !== "default" && method !== "strict" && method !== "urlsafe")
    fail("base64(): the third argument must be one of 'default', 'strict', or 'urlsafe'");
  if (action === "encode") {
    const b =
      Buffer.from(text, "latin1").toString("utf8") === text
        ? Buffer.from(text, "utf8")
        : Buffer.from(text, "utf8");
    const enc = b.toString("base64");
    if (method === "strict") return enc;
    if (method === "urlsafe") return enc.replace(/\+/g, "-").replace(/\//g, "_");
    return `${enc.replace(/.{60}/g, "$&\n")}${enc.length % 60 === 0 && enc.length > 0 ? "" : "\n"}`.replace(
      /\n\n$/,
      "\n",
    );
  }
  if (method === "strict" && !/^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text))
    fail("invalid base64");
  const src = method === "urlsafe" ? text.replace(/-/g, "+").replace(/_/g, "/") : text;
  return Buffer.from(src, "base64").toString("utf8");
});

export const convert_base: PuppetFunction = legacy((_ctx, args) => {
  if (args.length !== 2) fail(`convert_base(): Wrong number of arguments given (${args.length} for 2)`);
  const [n, b] = args;
  if (typeof n !== "bigint" && typeof n !== "string")
    fail("convert_base(): First argument must be either a string or an integer");
  if (typeof b !== "bigint" && typeof b !== "string")
    fail("convert_base(): Second argument must be either a string or an integer");
  if (typeof n === "string" && !/^[0-9]+$/m.test(n))
    fail(
      "convert_base(): First argument must be an integer or a string corresponding to an integer in base 10",
    );
  if (typeof b === "string" && !/^[0-9]+$/m.test(b))
    fail(
      "convert_base(): First argument must be an integer or a string corresponding to an integer in base 10",
    );
  const base = Number(b);
  if (base < 2 || base > 36) fail("convert_base(): base must be at least 2 and must not be greater than 36");
  return BigInt(typeof n === "string" ? (/^\d+/.exec(n) as RegExpExecArray)[0] : n).toString(base);
});

/** Ruby's Regexp.escape. */
export function regexpEscape(s: string): string {
  return s
    .replace(/[.*?+^$|\\()[\]{}\-/]/g, (c) => (c === "/" ? "/" : `\\${c}`))
    .replace(/\n/g, "\\n")
    .replace(/\t/g, "\\t")
    .replace(/\r/g, "\\r")
    .replace(/\f/g, "\\f")
    .replace(/\v/g, "\\v")
    .replace(/ /g, "\\ ");
}

export const regexpescape: PuppetFunction = legacy((_ctx, args) => {
  if (args.length === 0) fail(`regexpescape(): Wrong number of arguments given (${args.length} for 1)`);
  const v = args[0];
  if (isArr(v)) return v.map((x) => (typeof x === "string" ? regexpEscape(x) : x));
  if (typeof v === "string") return regexpEscape(v);
  return fail("regexpescape(): Requires either array or string to work with");
});

/** Ruby's Shellwords.shellescape. */
export function shellEscape(s: string): string {
  if (s === "") return "''";
  return s.replace(/[^A-Za-z0-9_\-.,:+/@\n]/g, "\\$&").replace(/\n/g, "'\n'");
}

export const shell_join: PuppetFunction = legacy((_ctx, args) => {
  if (args.length !== 1) fail(`shell_join(): Wrong number of arguments given (${args.length} for 1)`);
  const a = args[0];
  if (!isArr(a)) fail(`First argument is not an Array: ${rubyInspect(a)}`);
  return a.map((x) => shellEscape(rubyToS(x))).join(" ");
});

/** Ruby's Shellwords.shellsplit. */
export function shellSplit(line: string): string[] {
  const words: string[] = [];
  let field = "";
  let inWord = false;
  const re = /\s*(?:([^\s\\'"]+)|'([^']*)'|"((?:[^"\\]|\\[\s\S])*)"|(\\[\s\S]?)|(\S))(\s|(?![\s\S]))?/y;
  re.lastIndex = 0;
  let m: RegExpExecArray | null = re.exec(line);
  while (m !== null && m[0] !== "") {
    const [, word, sq, dq, esc, garbage, sep] = m;
    if (garbage !== undefined) throw new Error(`Unmatched quote: ${rubyInspect(line)}`);
    if (word !== undefined) field += word;
    else if (sq !== undefined) field += sq;
    else if (dq !== undefined) field += dq.replace(/\\([$`"\\\n])/g, "$1");
    else if (esc !== undefined) field += esc.replace(/\\([\s\S])/, "$1");
    inWord = true;
    if (sep !== undefined) {
      words.push(field);
      field = "";
      inWord = false;
    }
    m = re.exec(line);
  }
  if (inWord) words.push(field);
  return words;
}

export const shell_split: PuppetFunction = legacy((_ctx, args) => {
  if (args.length !== 1) fail(`shell_split(): Wrong number of arguments given (${args.length} for 1)`);
  try {
    return shellSplit(rubyToS(args[0]));
  } catch (e) {
    return fail((e as Error).message);
  }
});

export const to_bytes: PuppetFunction = legacy((_ctx, args) => {
  if (args.length !== 1) fail(`to_bytes(): Wrong number of arguments given (${args.length} for 1)`);
  const a = args[0];
  if (typeof a === "bigint" || typeof a === "number") return a;
  if (typeof a !== "string") noMethod("match", a);
  const m = /([0-9.e+-]*)\s*([^bB]?)/.exec(a) as RegExpExecArray;
  const value = Number.parseFloat(m[1] as string) || 0;
  const shifts: Record<string, number> = { "": 0, k: 10, M: 20, G: 30, T: 40, P: 50, E: 60 };
  const prefix = m[2] as string;
  if (!(prefix in shifts)) fail(`to_bytes(): Unknown prefix ${prefix}`);
  return BigInt(Math.trunc(value * 2 ** (shifts[prefix] as number)));
});

/** URI::DEFAULT_PARSER.escape: everything but unreserved and reserved characters, percent-encoded. */
function uriEscape(s: string): string {
  return [...Buffer.from(s, "utf8")]
    .map((b) => {
      const c = String.fromCharCode(b);
      return /[A-Za-z0-9\-_.!~*'();/?:@&=+$,[\]#]/.test(c) && b < 128
        ? c
        : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
    })
    .join("");
}

export const uriescape: PuppetFunction = legacy((_ctx, args) => {
  if (args.length === 0) fail(`uriescape(): Wrong number of arguments given (${args.length} for 1)`);
  const v = args[0];
  if (isArr(v)) return v.map((x) => (typeof x === "string" ? uriEscape(x) : x));
  if (typeof v === "string") return uriEscape(v);
  return fail("uriescape(): Requires either array or string to work with");
});

export const fqdn_uuid: PuppetFunction = legacy((_ctx, args) => {
  if (args.length === 0) fail("fqdn_uuid: No arguments given");
  if (args.length !== 1) fail(`fqdn_uuid: Too many arguments given (${args.length})`);
  const ns = Buffer.from("6ba7b8109dad11d180b400c04fd430c8", "hex");
  const bytes = createHash("sha1").update(ns).update(rubyToS(args[0]), "utf8").digest().subarray(0, 16);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join("-");
});

/** IPAddr's text of an IPv6 address (compressed, lower case). */
function ipv6Text(s: string): string {
  const url = new URL(`http://[${s.replace(/%.*$/, "")}]/`);
  return url.hostname.slice(1, -1);
}

export const enclose_ipv6: PuppetFunction = legacy((_ctx, args) => {
  if (args.length !== 1) fail(`enclose_ipv6(): Wrong number of arguments given ${args.length} for 1`);
  const a = args[0];
  if (typeof a !== "string" && !isArr(a))
    fail(`enclose_ipv6(): Wrong argument type given ${rubyClass(a)} expected String or Array`);
  const out: string[] = [];
  for (const v of (isArr(a) ? a : [a]).flat(Number.POSITIVE_INFINITY as 1)) {
    if (v === undefined) continue;
    let val = rubyToS(v as PValue);
    if (val !== "*") {
      const addr = val.replace(/\/\d+$/, "");
      const kind = isIP(addr);
      if (kind === 0) fail(`enclose_ipv6(): Wrong argument given ${val} is not an ip address.`);
      if (kind === 6) val = `[${ipv6Text(addr)}]`;
    }
    if (!out.includes(val)) out.push(val);
  }
  return out;
});

export const str2saltedpbkdf2: PuppetFunction = legacy((_ctx, args) => {
  if (args.length !== 3) fail(`str2saltedpbkdf2(): wrong number of arguments (${args.length} for 3)`);
  const [pw, salt, iter] = args.map((a) => (a instanceof PSensitive ? a.value : a));
  if (typeof pw !== "string") fail("str2saltedpbkdf2(): first argument must be a string");
  if (typeof salt !== "string") fail("str2saltedpbkdf2(): second argument must be a string");
  if (Buffer.byteLength(salt) < 8) fail("str2saltedpbkdf2(): second argument must be at least 8 bytes long");
  if (typeof iter !== "bigint") fail("str2saltedpbkdf2(): third argument must be an integer");
  if (!(iter > 40000n && iter < 70000n))
    fail("str2saltedpbkdf2(): third argument must be between 40,000 and 70,000");
  const hash = pbkdf2Sync(pw, salt, Number(iter), 128, "sha512");
  return PHash.fromRecord({
    password_hex: hash.toString("hex"),
    salt_hex: Buffer.from(salt, "utf8").toString("hex"),
    iterations: iter,
  });
});

export const str2saltedsha512: PuppetFunction = legacy((_ctx, args) => {
  if (args.length !== 1)
    fail(`str2saltedsha512(): Wrong number of arguments passed (${args.length} but we require 1)`);
  const pw = args[0];
  if (typeof pw !== "string")
    fail(`str2saltedsha512(): Requires a String argument, you passed: ${rubyClass(pw)}`);
  const seed = Buffer.alloc(4);
  seed.writeUInt32LE(randomInt(2 ** 31 - 1));
  const salted = createHash("sha512")
    .update(Buffer.concat([seed, Buffer.from(pw, "utf8")]))
    .digest();
  return Buffer.concat([seed, salted]).toString("hex");
});

/**
 * The 3.x has_interface_with that has_ip_address and has_ip_network call:
 * legacy facts (`interfaces`, `ipaddress_eth0`...); false without them.
 */
function legacyHasInterfaceWith(ctx: CallContext, kind: string, value: PValue): boolean {
  const list = ctx.lookupVariable("interfaces");
  if (list === undefined) return false;
  if (ctx.lookupVariable(kind) === value) return true;
  return rubyToS(list)
    .split(",")
    .some((iface) => ctx.lookupVariable(`${kind}_${iface.toLowerCase()}`) === value);
}

function hasIp(name: string, kind: string): PuppetFunction {
  return legacy((ctx, args) => {
    if (args.length !== 1) fail(`${name}(): Wrong number of arguments given (${args.length} for 1)`);
    return legacyHasInterfaceWith(ctx, kind, args[0]);
  });
}
export const has_ip_address = hasIp("has_ip_address", "ipaddress");
export const has_ip_network = hasIp("has_ip_network", "network");
