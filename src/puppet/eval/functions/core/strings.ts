/**
 * String functions: camelcase, capitalize, chomp, chop, downcase, upcase,
 * lstrip, rstrip, strip, split, join, shellquote, match, regsubst.
 * The case and strip functions pass numbers through and map arrays (and,
 * for downcase/upcase, hashes) element by element, as Puppet does.
 */
import type { PuppetFunction } from "../registry.js";
import { FunctionArgumentError } from "../registry.js";
import { PHash, PRegexp, type PValue, isType } from "../../values.js";
import { dispatcher, opt, p } from "./dispatch.js";
import { iterationOf } from "./iterable.js";
import { compileRuby, regexpOf, rubySplit, rubySub } from "./regex.js";
import { T } from "./spec.js";

/** The three dispatches of the simple string functions: Numeric, String, Iterable[Variant[String, Numeric]]. */
function stringMapper(name: string, f: (s: string) => string): PuppetFunction {
  const each = (x: PValue) => (typeof x === "string" ? f(x) : x);
  return dispatcher(name, [
    { params: [p("arg", T.numeric)], call: (_c, [n]) => n },
    { params: [p("arg", T.string)], call: (_c, [s]) => f(s as string) },
    {
      params: [p("arg", T.iterableOf(T.variant(T.string, T.numeric)))],
      call: (_c, [a]) => [...iterationOf(a, name).items].map(each),
    },
  ]);
}

const WS = "\\0\\t\\n\\v\\f\\r ";
const LEADING = new RegExp(`^[${WS}]+`);
const TRAILING = new RegExp(`[${WS}]+$`);

export function rubyCapitalize(s: string): string {
  const first = s.codePointAt(0);
  if (first === undefined) return s;
  const head = String.fromCodePoint(first);
  return head.toUpperCase() + s.slice(head.length).toLowerCase();
}

export const capitalize = stringMapper("capitalize", rubyCapitalize);
export const camelcase = stringMapper("camelcase", (s) => rubySplit(s, /_/g).map(rubyCapitalize).join(""));
export const chomp = stringMapper("chomp", (s) => s.replace(/(\r\n|\n|\r)$/, ""));
export const chop = stringMapper("chop", (s) =>
  s.endsWith("\r\n") ? s.slice(0, -2) : Array.from(s).slice(0, -1).join(""),
);
export const lstrip = stringMapper("lstrip", (s) => s.replace(LEADING, ""));
export const rstrip = stringMapper("rstrip", (s) => s.replace(TRAILING, ""));
export const strip = stringMapper("strip", (s) => s.replace(LEADING, "").replace(TRAILING, ""));

/** downcase and upcase: strings, numbers, and arrays and hashes of them, deeply. */
function caseMapper(name: string, f: (s: string) => string): PuppetFunction {
  const stringData = (v: PValue): boolean =>
    typeof v === "string" ||
    typeof v === "bigint" ||
    typeof v === "number" ||
    (Array.isArray(v) && v.every(stringData)) ||
    (v instanceof PHash && [...v].every(([k, x]) => stringData(k) && stringData(x)));
  const sd = T.alias(
    "StringData",
    { ...T.any, test: stringData },
    "StringData = Variant[String, Numeric, Array[StringData], Hash[StringData, StringData]]",
  );
  const deep = (v: PValue): PValue => {
    if (typeof v === "string") return f(v);
    if (Array.isArray(v)) return v.map(deep);
    if (v instanceof PHash) return PHash.from([...v].map(([k, x]) => [deep(k), deep(x)] as const));
    return v;
  };
  return dispatcher(name, [
    { params: [p("arg", T.numeric)], call: (_c, [n]) => n },
    { params: [p("arg", T.string)], call: (_c, [s]) => f(s as string) },
    { params: [p("arg", T.arrayOf(sd, "Array[StringData]"))], call: (_c, [a]) => deep(a) },
    { params: [p("arg", T.hashOf(sd, sd, "Hash[StringData, StringData]"))], call: (_c, [h]) => deep(h) },
  ]);
}

export const downcase = caseMapper("downcase", (s) => s.toLowerCase());
export const upcase = caseMapper("upcase", (s) => s.toUpperCase());

export const split = dispatcher("split", [
  {
    params: [p("str", T.string), p("pattern", T.string)],
    call: (_c, [s, pat]) => rubySplit(s as string, compileRuby(pat as string)),
  },
  {
    params: [p("str", T.string), p("pattern", T.regexp)],
    call: (_c, [s, re]) => rubySplit(s as string, regexpOf(re)),
  },
  {
    params: [
      p("str", T.string),
      p(
        "pattern",
        T.typeOf("Regexp", (t) => typeRegexp(t) !== undefined),
      ),
    ],
    call: (_c, [s, t]) => rubySplit(s as string, typeRegexp(t) ?? /(?:)/g),
  },
]);

/** The pattern of a `Regexp[/x/]` type value, when the type system exposes it. */
function typeRegexp(t: PValue): RegExp | undefined {
  if (!isType(t) || t.name !== "Regexp") return undefined;
  const pat = (t as unknown as { pattern?: PValue }).pattern;
  if (pat instanceof PRegexp) return regexpOf(pat);
  if (typeof pat === "string") return compileRuby(pat);
  return /(?:)/g;
}

/** Ruby's Array#join: nested arrays joined recursively, values by their Ruby to_s. */
export function rubyJoin(a: readonly PValue[], sep: string, str: (v: PValue) => string): string {
  return a.map((x) => (Array.isArray(x) ? rubyJoin(x, sep, str) : str(x))).join(sep);
}

export function makeJoin(str: (v: PValue) => string): PuppetFunction {
  return dispatcher("join", [
    {
      params: [p("arg", T.array), opt("delimiter", T.string)],
      call: (_c, [a, d]) => rubyJoin(a as PValue[], (d as string) ?? "", str),
    },
  ]);
}

const SAFE = /^[a-zA-Z0-9@%_+=:,./-]+$/;
const DANGEROUS = /[!"`$\\]/;

function flattenDeep(args: readonly PValue[]): PValue[] {
  return args.flatMap((a) => (Array.isArray(a) ? flattenDeep(a) : [a]));
}

/** shellquote (3.x): each word quoted for a Bourne shell, joined with spaces. */
export function makeShellquote(str: (v: PValue) => string): PuppetFunction {
  return (_ctx, args) =>
    flattenDeep(args)
      .map((v) => {
        const word = str(v);
        if (SAFE.test(word)) return word;
        if (!DANGEROUS.test(word)) return `"${word}"`;
        if (!word.includes("'")) return `'${word}'`;
        return `"${word.replace(/[!"`$\\]/g, (c) => `\\${c}`)}"`;
      })
      .join(" ");
}

function doMatch(s: string, re: RegExp): PValue {
  re.lastIndex = 0;
  const m = re.exec(s);
  return m ? Array.from(m, (x) => (x === undefined ? undefined : x)) : undefined;
}

function matchPattern(s: string, pattern: PValue): PValue {
  if (typeof pattern === "string") return doMatch(s, compileRuby(pattern));
  if (pattern instanceof PRegexp) return doMatch(s, regexpOf(pattern));
  if (Array.isArray(pattern)) {
    for (const e of flattenDeep(pattern)) {
      const r = matchPattern(s, e);
      if (r !== undefined) return r;
    }
    return undefined;
  }
  if (isType(pattern)) {
    const t = pattern as unknown as {
      name: string;
      pattern?: PValue;
      patterns?: readonly PValue[];
      types?: readonly PValue[];
    };
    if (t.name === "Regexp") {
      if (t.pattern === undefined)
        throw new FunctionArgumentError("Given Regexp Type has no regular expression");
      return matchPattern(s, t.pattern);
    }
    if (t.name === "Pattern" && t.patterns) return matchPattern(s, [...t.patterns]);
    if (t.name === "Variant" && t.types) return matchPattern(s, [...t.types]);
  }
  throw new FunctionArgumentError(
    `match() expects pattern of T, where T is String, Regexp, Regexp[r], Pattern[p], or Array[T]. Got ${rubyClassName(pattern)}`,
  );
}

function rubyClassName(v: PValue): string {
  if (typeof v === "bigint") return "Integer";
  if (typeof v === "number") return "Float";
  if (typeof v === "boolean") return v ? "TrueClass" : "FalseClass";
  if (v === undefined) return "NilClass";
  if (v instanceof PHash) return "Hash";
  return "Object";
}

export const match = dispatcher("match", [
  {
    params: [p("string", T.string), p("pattern", T.any)],
    call: (_c, [s, pat]) => matchPattern(s as string, pat),
  },
  {
    params: [p("string", T.arrayOf(T.string)), p("pattern", T.any)],
    call: (_c, [a, pat]) => (a as string[]).map((s) => matchPattern(s, pat)),
  },
]);

function replaceIn(target: PValue, re: RegExp, repl: PValue, global: boolean): PValue {
  const r =
    repl instanceof PHash
      ? (m: string) => {
          const v = repl.get(m);
          return v === undefined ? "" : String(v);
        }
      : (repl as string);
  const one = (s: PValue) => rubySub(s as string, re, r, global);
  return Array.isArray(target) ? target.map(one) : one(target);
}

const targetT = T.variant(T.arrayOf(T.string), T.string);
const replT = T.variant(T.string, T.hashOf(T.string, T.string));

export const regsubst = dispatcher("regsubst", [
  {
    params: [
      p("target", targetT),
      p("pattern", T.string),
      p("replacement", replT),
      opt("flags", T.optional(T.pattern(/^[GEIM]*$/, "^[GEIM]*$"))),
      opt("encoding", T.enumOf("N", "E", "S", "U")),
    ],
    call: (_c, [target, pattern, repl, flags]) => {
      const f = (flags as string | undefined) ?? "";
      const re = compileRuby(pattern as string, {
        extended: f.includes("E"),
        ignoreCase: f.includes("I"),
        multiline: f.includes("M"),
      });
      return replaceIn(target, re, repl, f.includes("G"));
    },
  },
  {
    params: [
      p("target", targetT),
      p(
        "pattern",
        T.variant(
          T.regexp,
          T.typeOf("Regexp", (t) => isType(t) && t.name === "Regexp"),
        ),
      ),
      p("replacement", replT),
      opt("flags", T.pattern(/^G?$/, "^G?$")),
    ],
    call: (_c, [target, pattern, repl, flags]) => {
      const re = pattern instanceof PRegexp ? regexpOf(pattern) : (typeRegexp(pattern) ?? /(?:)/g);
      return replaceIn(target, re, repl, flags === "G");
    },
  },
]);
