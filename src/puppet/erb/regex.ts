/**
 * Ruby regexps in JavaScript for templates: `^`/`$` match at every line as
 * Ruby's always do, `\A`, `\z`, `\Z`, `\h` are translated, Ruby's `m` flag
 * (dot matches newline) is JavaScript's `s`, `x` drops blanks and comments.
 */
import { TemplateError } from "./errors.js";
import { RRegexp } from "./ruby-values.js";

const cache = new Map<string, RegExp>();

export function rubyRegexp(source: string, flags: string, file: string, line?: number): RRegexp {
  const key = `${flags}/${source}`;
  let re = cache.get(key);
  if (!re) {
    let src = flags.includes("x") ? stripExtended(source) : source;
    let js = "m";
    if (flags.includes("i")) js += "i";
    if (flags.includes("m")) js += "s";
    const lead = /^\(\?([imx]+)\)/.exec(src);
    if (lead) {
      if (lead[1]?.includes("i") && !js.includes("i")) js += "i";
      if (lead[1]?.includes("m") && !js.includes("s")) js += "s";
      src = src.slice(lead[0].length);
    }
    src = src
      .replace(/(^|[^\\])\\A/g, "$1(?<![\\s\\S])")
      .replace(/(^|[^\\])\\z/g, "$1(?![\\s\\S])")
      .replace(/(^|[^\\])\\Z/g, "$1(?=\\n?(?![\\s\\S]))")
      .replace(/(^|[^\\])\\h/g, "$1[0-9a-fA-F]")
      .replace(/\(\?<([A-Za-z_]\w*)>/g, "(?<$1>");
    try {
      re = new RegExp(src, js);
    } catch (e) {
      throw new TemplateError(`invalid regexp /${source}/: ${(e as Error).message}`, file, line);
    }
    cache.set(key, re);
  }
  return new RRegexp(source, re);
}

function stripExtended(s: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (c === "\\") {
      out += c + (s[i + 1] ?? "");
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      out += c;
      continue;
    }
    if (c === "[") inClass = true;
    if (/\s/.test(c)) continue;
    if (c === "#") {
      while (i < s.length && s[i] !== "\n") i++;
      continue;
    }
    out += c;
  }
  return out;
}

/** A global copy of a regexp for scanning all matches. */
export function globalOf(re: RegExp): RegExp {
  return new RegExp(re.source, re.flags.includes("g") ? re.flags : `${re.flags}g`);
}

/** The literal text `s` as a regexp source. */
export function escapeRegexp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
