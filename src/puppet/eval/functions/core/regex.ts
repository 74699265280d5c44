/**
 * Ruby regular expressions for split, match, regsubst and scanf: a Ruby
 * pattern text compiled to a JavaScript RegExp with Ruby's meaning (`^` and
 * `$` at every line, `.` not matching a newline unless /m, `\A` `\z` `\Z`
 * `\h`, POSIX bracket classes, the x flag's free spacing), plus Ruby's
 * String#split and sub/gsub replacement text.
 */
import { rubyRegExp } from "../../../types/ruby-regexp.js";
import { FunctionArgumentError } from "../registry.js";
import { PRegexp, type PValue } from "../../values.js";

export interface RubyFlags {
  readonly ignoreCase?: boolean;
  readonly extended?: boolean;
  readonly multiline?: boolean;
}

const POSIX: Record<string, string> = {
  alpha: "a-zA-Z",
  digit: "0-9",
  alnum: "a-zA-Z0-9",
  upper: "A-Z",
  lower: "a-z",
  space: "\\s",
  blank: " \\t",
  punct: "!-\\/:-@\\[-`{-~",
  xdigit: "0-9a-fA-F",
  word: "\\w",
  cntrl: "\\x00-\\x1f\\x7f",
  print: "\\x20-\\x7e",
  graph: "\\x21-\\x7e",
};

/** Removes free-spacing whitespace and comments (Ruby's x flag) outside character classes. */
function stripExtended(src: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i] as string;
    if (c === "\\") {
      out += c + (src[i + 1] ?? "");
      i++;
    } else if (inClass) {
      if (c === "]") inClass = false;
      out += c;
    } else if (c === "[") {
      inClass = true;
      out += c;
    } else if (c === "#") {
      while (i < src.length && src[i] !== "\n") i++;
    } else if (!/\s/.test(c)) out += c;
  }
  return out;
}

const cache = new Map<string, RegExp>();

/** Compiles a Ruby pattern; a bad pattern is a FunctionArgumentError with the engine's words. */
export function compileRuby(source: string, flags: RubyFlags = {}): RegExp {
  const key = `${flags.ignoreCase ? "i" : ""}${flags.extended ? "x" : ""}${flags.multiline ? "m" : ""}/${source}`;
  const hit = cache.get(key);
  if (hit) return hit;
  let src = flags.extended ? stripExtended(source) : source;
  src = src.replace(/\[:(\^?)(\w+):\]/g, (m, neg: string, name: string) => {
    const cls = POSIX[name];
    return cls === undefined || neg ? m : cls;
  });
  let re: RegExp;
  try {
    re = rubyRegExp(src);
  } catch (e) {
    throw new FunctionArgumentError(`invalid regular expression: ${(e as Error).message}`);
  }
  let f = re.flags.replace("g", "");
  if (flags.ignoreCase && !f.includes("i")) f += "i";
  if (flags.multiline && !f.includes("s")) f += "s";
  const out = new RegExp(re.source, `${f}g`);
  // A pure memo of compiled patterns, bounded so that generated patterns cannot grow it without end.
  if (cache.size >= 2000) cache.clear();
  cache.set(key, out);
  return out;
}

/** A global copy of a Regexp value's JavaScript translation. */
export function regexpOf(v: PValue): RegExp {
  if (v instanceof PRegexp) {
    const re = v.re;
    return re.flags.includes("g") ? re : new RegExp(re.source, `${re.flags}g`);
  }
  return compileRuby(String(v));
}

/** Runs `re` from `start`, or null. */
export function execAt(re: RegExp, s: string, start: number): RegExpExecArray | null {
  re.lastIndex = start;
  return re.exec(s);
}

/** Ruby's String#split(regexp) with no limit: captures kept, trailing empty strings dropped. */
export function rubySplit(str: string, re: RegExp): string[] {
  const out: string[] = [];
  if (str.length === 0) return out;
  let beg = 0;
  let start = 0;
  let lastNull = false;
  for (;;) {
    if (start > str.length) break;
    const m = execAt(re, str, start);
    if (!m) break;
    const end = m.index;
    const mEnd = m.index + m[0].length;
    if (start === end && m[0].length === 0) {
      if (lastNull) {
        out.push(str.slice(beg, beg + charLen(str, beg)));
        beg = start;
      } else {
        start += start < str.length ? charLen(str, start) : 1;
        lastNull = true;
        continue;
      }
    } else {
      out.push(str.slice(beg, end));
      beg = start = mEnd;
    }
    lastNull = false;
    for (let g = 1; g < m.length; g++) if (m[g] !== undefined) out.push(m[g] as string);
  }
  if (str.length > beg) out.push(str.slice(beg));
  while (out.length > 0 && out[out.length - 1] === "") out.pop();
  return out;
}

function charLen(s: string, i: number): number {
  const c = s.codePointAt(i) ?? 0;
  return c > 0xffff ? 2 : 1;
}

/** Ruby's sub/gsub replacement text: `\0`-`\9`, `\&`, `` \` ``, `\'`, `\k<name>`, `\\`. */
export function expandReplacement(repl: string, m: RegExpExecArray, input: string): string {
  if (!repl.includes("\\")) return repl;
  return repl.replace(/\\(k<(\w+)>|[0-9&`'\\])/g, (_all, what: string, name?: string) => {
    if (name !== undefined) return m.groups?.[name] ?? "";
    if (what === "&") return m[0];
    if (what === "`") return input.slice(0, m.index);
    if (what === "'") return input.slice(m.index + m[0].length);
    if (what === "\\") return "\\";
    return m[Number(what)] ?? "";
  });
}

/** Ruby's sub (global false) or gsub (global true) with a string or a lookup table. */
export function rubySub(
  input: string,
  re: RegExp,
  repl: string | ((match: string) => string),
  global: boolean,
): string {
  let out = "";
  let pos = 0;
  let start = 0;
  while (start <= input.length) {
    const m = execAt(re, input, start);
    if (!m) break;
    out += input.slice(pos, m.index);
    out += typeof repl === "string" ? expandReplacement(repl, m, input) : repl(m[0]);
    pos = m.index + m[0].length;
    if (!global) break;
    if (m[0].length === 0) {
      if (m.index < input.length) out += input.slice(m.index, m.index + charLen(input, m.index));
      pos = m.index + (m.index < input.length ? charLen(input, m.index) : 1);
      start = pos;
    } else start = pos;
  }
  return out + input.slice(Math.min(pos, input.length));
}
