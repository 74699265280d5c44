/**
 * stdlib's functions written with Puppet's 4.x API (`stdlib::x`, `fact`,
 * `is_a`, `deprecation`, `validate_legacy`...): their signatures are checked
 * by the core dispatcher, so a bad call fails with Puppet's own message.
 */
import { createHash } from "node:crypto";
import { isIP } from "node:net";
import { floatToS } from "../../../erb/ruby-values.js";
import { blk, dispatcher, opt, p, rep, rep1 } from "../core/dispatch.js";
import { versionCompare } from "../core/numbers.js";
import { RubyRandom, rubyRandInt } from "../core/ruby-random.js";
import { type Spec, T } from "../core/spec.js";
import { type CallContext, FunctionError, type PuppetFunction } from "../registry.js";
import { describeMismatch, inferSet, newInstance, typeByName } from "../../types.js";
import { PBinary, type PCallable, PHash, PSensitive, type PValue, isType } from "../../values.js";
import { rubyExtname, shellEscape } from "./strings.js";
import { deprecate, dig, factsOf, rubyToS } from "./support.js";

function mk(cls: string, full: string, test: (v: PValue) => boolean, kindTest = test): Spec {
  return { cls, full, short: cls, test, kindTest };
}
const str1 = mk(
  "String",
  "String[1]",
  (v) => typeof v === "string" && [...v].length >= 1,
  (v) => typeof v === "string",
);
const str2 = mk(
  "String",
  "String[2]",
  (v) => typeof v === "string" && [...v].length >= 2,
  (v) => typeof v === "string",
);
const int1 = mk(
  "Integer",
  "Integer[1]",
  (v) => typeof v === "bigint" && v >= 1n,
  (v) => typeof v === "bigint",
);
const arrStr1 = mk(
  "Array",
  "Array[String[1], 1]",
  (v) => Array.isArray(v) && v.length >= 1 && v.every((x) => str1.test(x)),
  Array.isArray,
);
const scalarData = (v: PValue): boolean =>
  typeof v === "string" || typeof v === "bigint" || typeof v === "number" || typeof v === "boolean";
const digestable = mk(
  "Variant",
  "Variant[ScalarData, Sensitive[ScalarData], Binary, Sensitive[Binary]]",
  (v) =>
    scalarData(v) ||
    v instanceof PBinary ||
    (v instanceof PSensitive && (scalarData(v.value) || v.value instanceof PBinary)),
);

const unwrapText = (v: PValue): string => rubyToS(v instanceof PSensitive ? v.value : v);

export const batch_escape = dispatcher("stdlib::batch_escape", [
  {
    params: [p("string", T.any)],
    call: (_c, [s]) =>
      `"${[...rubyToS(s)].map((c) => (c === '"' ? '""' : c === "$" || c === "\\" ? `\\${c}` : c)).join("")}"`,
  },
]);

export const powershell_escape = dispatcher("stdlib::powershell_escape", [
  {
    params: [p("string", T.any)],
    call: (_c, [s]) =>
      [...rubyToS(s)].map((c) => (" '`|\n$".includes(c) ? `\`${c}` : c === '"' ? '\\`"' : c)).join(""),
  },
]);

export const shell_escape = dispatcher("stdlib::shell_escape", [
  { params: [p("string", T.any)], call: (_c, [s]) => shellEscape(rubyToS(s)) },
]);

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32Of(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = (CRC_TABLE[(c ^ b) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export const crc32 = dispatcher("stdlib::crc32", [
  {
    params: [p("my_data", digestable)],
    call: (_c, [d]) => crc32Of(Buffer.from(unwrapText(d), "utf8")).toString(16),
  },
]);

export const sha256 = dispatcher("stdlib::sha256", [
  {
    params: [p("my_data", digestable)],
    call: (_c, [d]) => createHash("sha256").update(unwrapText(d), "utf8").digest("hex"),
  },
]);

function affixTest(name: string, test: (s: string, x: string) => boolean): PuppetFunction {
  return dispatcher(`stdlib::${name}`, [
    {
      params: [
        p("test_string", T.string),
        p(name === "start_with" ? "prefixes" : "suffixes", T.variant(str1, arrStr1)),
      ],
      call: (_c, [s, x]) => (Array.isArray(x) ? x : [x]).some((y) => test(s as string, y as string)),
    },
  ]);
}
export const start_with = affixTest("start_with", (s, x) => s.startsWith(x));
export const end_with = affixTest("end_with", (s, x) => s.endsWith(x));

export const extname = dispatcher("stdlib::extname", [
  { params: [p("filename", T.string)], call: (_c, [f]) => rubyExtname(f as string) },
]);

export const xml_encode = dispatcher("stdlib::xml_encode", [
  {
    params: [p("str", T.string), opt("type", T.enumOf("text", "attr"))],
    call: (_c, [s, type]) => {
      const text = (s as string).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
      return type === "attr" ? `"${text.replace(/"/g, "&quot;").replace(/'/g, "&apos;")}"` : text;
    },
  },
]);

/** Ruby's Array#join over nested arrays with `to_s`. */
function rubyJoin(items: readonly PValue[], sep: string): string {
  return items.map((x) => (Array.isArray(x) ? rubyJoin(x, sep) : rubyToS(x))).join(sep);
}

function fqdnFact(ctx: CallContext): PValue {
  return dig(factsOf(ctx), "networking", "fqdn");
}

function md5Seed(text: string): bigint {
  return BigInt(`0x${createHash("md5").update(text, "utf8").digest("hex")}`);
}

function rotate(ctx: CallContext, input: PValue[], seeds: PValue[]): PValue[] {
  if (input.length <= 1) return input;
  const seed = md5Seed(rubyJoin([fqdnFact(ctx), seeds], ":"));
  const offset = Number(rubyRandInt(seed, BigInt(input.length)));
  return [...input.slice(offset), ...input.slice(0, offset)];
}

const seedSpec = T.variant(T.integer, T.string);
export const fqdn_rotate = dispatcher("stdlib::fqdn_rotate", [
  {
    params: [p("input", T.string), rep("seeds", seedSpec)],
    call: (ctx, [s, ...seeds]) => rotate(ctx, [...(s as string)], [seeds]).join(""),
  },
  {
    params: [p("input", T.array), rep("seeds", seedSpec)],
    call: (ctx, [a, ...seeds]) => rotate(ctx, a as PValue[], seeds),
  },
]);

const ALNUM = [..."0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"];
export const fqdn_rand_string = dispatcher("stdlib::fqdn_rand_string", [
  {
    params: [p("length", int1), opt("charset", T.optional(T.string)), rep("seed", T.any)],
    call: (ctx, [length, charset, ...seed]) => {
      const chars = typeof charset === "string" && charset !== "" ? [...charset] : ALNUM;
      let out = "";
      for (let i = 1n; i <= (length as bigint); i++) {
        const r = ctx.callFunction("fqdn_rand", [BigInt(chars.length), rubyJoin([...seed, i], ":")]);
        out += chars[Number(r)];
      }
      return out;
    },
  },
]);

export const seeded_rand = dispatcher("stdlib::seeded_rand", [
  {
    params: [p("max", int1), p("seed", T.string)],
    call: (_c, [max, seed]) => rubyRandInt(md5Seed(seed as string), max as bigint),
  },
]);

export const seeded_rand_string = dispatcher("stdlib::seeded_rand_string", [
  {
    params: [p("length", int1), p("seed", T.string), opt("charset", str2)],
    call: (_c, [length, seed, charset]) => {
      const chars = [
        ...(typeof charset === "string"
          ? charset
          : "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"),
      ];
      const rng = new RubyRandom(
        BigInt(
          `0x${createHash("sha256")
            .update(seed as string, "utf8")
            .digest("hex")}`,
        ),
      );
      let out = "";
      for (let i = 0n; i < (length as bigint); i++) out += chars[Number(rng.rand(BigInt(chars.length)))];
      return out;
    },
  },
]);

export const os_version_gte = dispatcher("stdlib::os_version_gte", [
  {
    params: [p("os", str1), p("version", str1)],
    call: (ctx, [os, version]) => {
      const facts = factsOf(ctx);
      const major = dig(facts, "os", "release", "major");
      return dig(facts, "os", "name") === os && versionCompare(rubyToS(major), version as string, false) >= 0;
    },
  },
]);

function interfaces(ctx: CallContext): PHash {
  const i = dig(factsOf(ctx), "networking", "interfaces");
  return i instanceof PHash ? i : new PHash();
}

export const has_interface_with = dispatcher("stdlib::has_interface_with", [
  { params: [p("interface", str1)], call: (ctx, [name]) => interfaces(ctx).has(name) },
  {
    params: [
      p("kind", T.enumOf("macaddress", "netmask", "ipaddress", "network", "ip", "mac")),
      p("value", str1),
    ],
    call: (ctx, [k, value]) => {
      const kind = k === "ipaddress" ? "ip" : k === "macaddress" ? "mac" : (k as string);
      return [...interfaces(ctx).values()].some(
        (params) => params instanceof PHash && params.get(kind) === value,
      );
    },
  },
]);

/** IPAddr's parse of an address or a network (`a/len`): the address as a bigint, its width and mask length. */
function parseNet(s: string): { addr: bigint; bits: number; len: number } {
  const [a, l] = s.split("/") as [string, string | undefined];
  const kind = isIP(a);
  if (kind === 0) throw new FunctionError(`invalid address: ${s}`);
  const bits = kind === 4 ? 32 : 128;
  let addr = 0n;
  if (kind === 4) for (const o of a.split(".")) addr = (addr << 8n) | BigInt(Number(o));
  else {
    const [head, tail] = a.includes("::") ? (a.split("::") as [string, string]) : [a, undefined];
    const h = head ? head.split(":") : [];
    const t = tail ? tail.split(":") : [];
    const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill("0"), ...t];
    for (const g of groups) addr = (addr << 16n) | BigInt(Number.parseInt(g || "0", 16));
  }
  const len = l === undefined ? bits : Number(l);
  return { addr, bits, len };
}

function inRange(ip: string, range: string): boolean {
  const a = parseNet(ip);
  const r = parseNet(range);
  if (a.bits !== r.bits) return false;
  const shift = BigInt(r.bits - r.len);
  return a.addr >> shift === r.addr >> shift;
}

export const ip_in_range = dispatcher("stdlib::ip_in_range", [
  {
    params: [p("ipaddress", T.string), p("range", T.variant(T.string, T.array))],
    call: (_c, [ip, range]) =>
      Array.isArray(range)
        ? range.some((r) => inRange(ip as string, rubyToS(r)))
        : inRange(ip as string, range as string),
  },
]);

// Puppet's mismatch message lists Undef first; the signature keeps the declared order.
const mergeable: Spec = {
  ...T.variant(
    T.undef,
    T.hashOf(mk("Scalar", "Scalar", scalarData), T.any, "Hash[Scalar, Any]"),
    mk(
      "String",
      "String[0, 0]",
      (v) => v === "",
      (v) => typeof v === "string",
    ),
  ),
  full: "Variant[Hash[Scalar, Any], Undef, String[0, 0]]",
};

function mergeInto(acc: PHash, r: PValue): void {
  if (r instanceof PHash) for (const [k, v] of r) acc.set(k, v);
}

function entriesOf(v: PValue): PValue[] {
  if (v instanceof PHash) return [...v].map(([k, x]) => [k, x]);
  if (Array.isArray(v)) return v;
  if (typeof v === "string") return [...v];
  if (typeof v === "bigint") return Array.from({ length: Number(v) }, (_x, i) => BigInt(i));
  return [];
}

export const merge = dispatcher("stdlib::merge", [
  {
    params: [rep("args", mergeable)],
    call: (_c, args) => {
      const acc = new PHash();
      for (const h of args) mergeInto(acc, h);
      return acc;
    },
  },
  {
    params: [rep("args", T.iterable)],
    block: blk(3, 3),
    call: (_c, args, block) => {
      const acc = new PHash();
      for (const it of args) {
        if (it instanceof PHash)
          for (const [k, v] of it) mergeInto(acc, (block as PCallable).call([acc.clone(), k, v]));
        else
          for (const [i, v] of entriesOf(it).entries())
            mergeInto(acc, (block as PCallable).call([acc.clone(), BigInt(i), v]));
      }
      return acc;
    },
  },
  {
    params: [rep("args", T.iterable)],
    block: blk(2, 2),
    call: (_c, args, block) => {
      const acc = new PHash();
      for (const it of args)
        for (const v of entriesOf(it)) mergeInto(acc, (block as PCallable).call([acc.clone(), v]));
      return acc;
    },
  },
]);

function nested(h: PHash): PValue[] {
  return [...h.values()].flatMap((v) => (v instanceof PHash ? nested(v) : [v]));
}
export const nested_values = dispatcher("stdlib::nested_values", [
  { params: [p("hash", T.hash)], call: (_c, [h]) => nested(h as PHash) },
]);

function sortKeyCompare(a: PValue, b: PValue): number {
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if ((typeof a === "bigint" || typeof a === "number") && (typeof b === "bigint" || typeof b === "number"))
    return Number(a) < Number(b) ? -1 : Number(a) > Number(b) ? 1 : 0;
  throw new FunctionError(`comparison of ${rubyToS(a)} with ${rubyToS(b)} failed`);
}

function sortBy(items: PValue[], key: (x: PValue) => PValue): PValue[] {
  const keyed = items.map((x) => [key(x), x] as const);
  keyed.sort((a, b) => sortKeyCompare(a[0], b[0]));
  return keyed.map((k) => k[1]);
}

export const sort_by = dispatcher("stdlib::sort_by", [
  {
    params: [p("ary", T.array)],
    block: blk(1),
    call: (_c, [a], b) => sortBy(a as PValue[], (x) => (b as PCallable).call([x])),
  },
  {
    params: [p("str", T.string)],
    block: blk(1),
    call: (_c, [s], b) => sortBy([...(s as string)], (x) => (b as PCallable).call([x])).join(""),
  },
  {
    params: [p("hsh", T.hash)],
    block: { name: "block", optional: false, label: "Variant[Callable[1, 1], Callable[2, 2]]" },
    call: (_c, [h], b) => {
      const block = b as PCallable;
      const pairs = [...(h as PHash)].map(([k, v]) => [k, v] as PValue);
      const sorted = sortBy(pairs, (e) => (block.minArgs >= 2 ? block.call(e as PValue[]) : block.call([e])));
      return PHash.from(sorted.map((e) => e as unknown as [PValue, PValue]));
    },
  },
]);

export const type_of = dispatcher("stdlib::type_of", [
  { params: [p("value", T.any)], call: (_c, [v]) => inferSet(v) },
]);

export const is_a = dispatcher("is_a", [
  { params: [p("value", T.any), p("type", T.type)], call: (_c, [v, t]) => isType(t) && t.isInstance(v) },
]);

/** stdlib 9.7.0's Stdlib::Fqdn, Stdlib::Dns::Zone and Stdlib::Email (types/*.pp), as Ruby writes them and as JavaScript runs them. */
const FQDN_SRC =
  "\\A(([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\\-]*[a-zA-Z0-9])\\.)*([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9\\-]*[A-Za-z0-9])\\z";
const ZONE_SRC = "\\A((([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])\\.)+|\\.)\\z";
const EMAIL_SRC =
  "\\A[a-zA-Z0-9.!#$%&'*+\\/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*\\z";

function aliasPattern(name: string, source: string): Spec {
  const re = new RegExp(source.replace(/^\\A/, "^").replace(/\\z$/, "$"));
  const pat = T.pattern(re, source);
  return { ...pat, full: `${name} = ${pat.full}`, short: name };
}

function validator(name: string, param: string, spec: Spec): PuppetFunction {
  const f = dispatcher(`stdlib::${name}`, [{ params: [rep(param, spec)], call: () => undefined }]);
  return (ctx, args, block) => {
    if (args.length === 0)
      throw new FunctionError(`stdlib::${name}(): Wrong number of arguments need at least one`);
    return f(ctx, args, block);
  };
}
export const validate_domain_name = validator(
  "validate_domain_name",
  "values",
  T.variant(aliasPattern("Stdlib::Fqdn", FQDN_SRC), aliasPattern("Stdlib::Dns::Zone", ZONE_SRC)),
);
export const validate_email_address = validator(
  "validate_email_address",
  "values",
  aliasPattern("Stdlib::Email", EMAIL_SRC),
);

export const fact = dispatcher("fact", [
  {
    params: [p("fact_name", T.string)],
    call: (ctx, [name]) => {
      const path = [...(name as string).matchAll(/([^."]+)|(?:")([^"]+)(?:")/g)].map(
        (m) => (m[1] ?? m[2]) as string,
      );
      const walked: string[] = [];
      const dotted = (): string => walked.map((s) => (s.includes(".") ? `"${s}"` : s)).join(".");
      let d: PValue = ctx.lookupVariable("facts");
      for (const k of path) {
        if (d === undefined) return undefined;
        if (Array.isArray(d)) {
          if (/^[-+]?\d+$/.test(k)) d = d.at(Number(k));
          else {
            ctx.warn(
              `fact request for ${String(name)} returning nil: '${dotted()}' is an array; cannot index to '${k}'`,
            );
            d = undefined;
          }
        } else if (d instanceof PHash) d = d.get(k);
        else {
          ctx.warn(
            `fact request for ${String(name)} returning nil: '${dotted()}' is not a collection; cannot walk to '${k}'`,
          );
          d = undefined;
        }
        walked.push(k);
      }
      return d;
    },
  },
]);

export const deprecation = dispatcher("deprecation", [
  {
    params: [p("key", T.string), p("message", T.string), opt("use_strict_setting", T.boolean)],
    call: (ctx, [key, message]) => {
      deprecate(ctx, key as string, message as string);
      return undefined;
    },
  },
]);

function validateLegacy(ctx: CallContext, t: PValue, value: PValue): PValue {
  deprecate(
    ctx,
    "validate_legacy",
    "This method is deprecated, please use Puppet data types to validate parameters",
  );
  if (!isType(t)) throw new FunctionError("validate_legacy(): not a type");
  if (t.isInstance(value)) return undefined;
  const msg = describeMismatch(`validate_legacy(${t.toString()}, ...)`, t, value);
  return ctx.callFunction("fail", [msg]);
}

export const validate_legacy = dispatcher("validate_legacy", [
  {
    params: [p("target_type", T.type), p("function_name", T.string), p("value", T.any), rep("args", T.any)],
    call: (ctx, [t, , v]) => validateLegacy(ctx, t, v),
  },
  {
    params: [p("type_string", T.string), p("function_name", T.string), p("value", T.any), rep("args", T.any)],
    call: (ctx, [s, , v]) => validateLegacy(ctx, newInstance(typeByName("Type") as never, [s]), v),
  },
]);

export const time: PuppetFunction = (ctx, args) => ctx.callFunction("stdlib::time", args);

export const parsepson: PuppetFunction = (ctx, args) => {
  deprecate(
    ctx,
    "parsepson",
    "This method is deprecated. From Puppet 8, PSON is no longer natively supported. Please use JSON.parse().",
  );
  return ctx.callFunction("parsejson", args);
};

void floatToS;
void rep1;
