/**
 * A Ruby regular expression as JavaScript runs it, for the patterns of
 * Puppet types written in Ruby (file_line's `match` and `after`): `^` and
 * `$` match at every line (Ruby's are always multi-line), `\A`, `\z` and
 * `\Z` anchor the whole text, and `(?i)`-style leading flags apply to all.
 */

/** Throws a SyntaxError worded by the engine when the pattern is not valid. */
export function rubyRegExp(pattern: string): RegExp {
  let flags = "m";
  let source = pattern;
  const leading = /^\(\?([imx]+)\)/.exec(source);
  if (leading) {
    if (leading[1]?.includes("i")) flags += "i";
    source = source.slice(leading[0].length);
  }
  source = source
    .replace(/(^|[^\\])\\A/g, "$1(?<![\\s\\S])")
    .replace(/(^|[^\\])\\z/g, "$1(?![\\s\\S])")
    .replace(/(^|[^\\])\\Z/g, "$1(?=\\n?(?![\\s\\S]))")
    .replace(/(^|[^\\])\\h/g, "$1[0-9a-fA-F]");
  return new RegExp(source, flags);
}
