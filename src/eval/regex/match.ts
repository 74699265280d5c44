/**
 * The regex operations of cf-agent 3.21, on JavaScript strings (matched as
 * UTF-8 bytes). Each returns a PcreError when the pattern does not compile;
 * callers log it and fail the function call, as cf-agent does.
 */
import { fromByteString, toByteString } from "./bytes.js";
import { type PcreOptions, PcreError, type PcreRegExp, compilePcre } from "./pcre.js";

/** cf-agent compiles policy regexes with PCRE_MULTILINE | PCRE_DOTALL. */
const CF_OPTIONS: PcreOptions = { multiline: true, dotall: true };

export function compileCfRegex(pattern: string, extra: PcreOptions = {}): PcreRegExp | PcreError {
  return compilePcre(pattern, { ...CF_OPTIONS, ...extra });
}

/**
 * Whether the pattern matches the whole subject. Like cf-agent this takes
 * the first match found at the start and checks it ends at the end: it does
 * not backtrack into other alternatives, so `a|ab` does not match "ab".
 */
export function matchesFully(pattern: string | PcreRegExp, subject: string): boolean | PcreError {
  const regex = typeof pattern === "string" ? compileCfRegex(pattern, { anchored: true }) : pattern;
  if (regex instanceof PcreError) return regex;
  const bytes = toByteString(subject);
  regex.lastIndex = 0;
  const match = regex.exec(bytes);
  return match !== null && match.index === 0 && match[0].length === bytes.length;
}

/** A first match: where it is (in bytes) and PCRE's groups, as byte strings. */
export interface ByteMatch {
  readonly start: number;
  readonly end: number;
  readonly groups: (string | undefined)[];
}

/** The first match at or after `from` in a byte string; `regex` must be compiled `global`. */
export function searchBytes(regex: PcreRegExp, bytes: string, from = 0): ByteMatch | null {
  regex.lastIndex = from;
  const match = regex.exec(bytes);
  if (!match) return null;
  return { start: match.index, end: match.index + match[0].length, groups: regex.pcreGroups(match) };
}

/**
 * The captures of the first match anywhere in the subject, keyed as
 * regextract() stores them: "0" for the whole match, then each group by
 * number, or by name when it has one; unset groups are "". Null when
 * nothing matches.
 */
export function captureGroups(pattern: string, subject: string): Map<string, string> | null | PcreError {
  const regex = compileCfRegex(pattern, { global: true });
  if (regex instanceof PcreError) return regex;
  const match = searchBytes(regex, toByteString(subject));
  if (!match) return null;
  const namesByIndex = new Map([...regex.groupNames].map(([name, index]) => [index, name]));
  const out = new Map<string, string>();
  match.groups.forEach((value, i) => {
    out.set(namesByIndex.get(i) ?? String(i), fromByteString(value ?? ""));
  });
  return out;
}

/**
 * Splits as cf-agent's splitstring() (and lastnode()) do: each piece is the
 * text before the next match, searched for again in the rest; an empty match
 * at the start ends splitting. Blank pieces are kept when `allowBlanks`; at
 * most `max` pieces come from separators, then the rest is added if room.
 */
export function splitOnRegex(
  subject: string,
  pattern: string,
  max: number,
  allowBlanks: boolean,
): string[] | PcreError {
  const regex = compileCfRegex(pattern, { global: true });
  if (regex instanceof PcreError) return regex;
  const whole = toByteString(subject);
  let rest = whole;
  const out: string[] = [];
  for (;;) {
    if (out.length >= max) return out.map(fromByteString);
    const match = searchBytes(regex, rest);
    if (!match || match.end === 0) break;
    const piece = rest.slice(0, match.start);
    if (allowBlanks || piece !== "") out.push(piece);
    rest = rest.slice(match.end);
  }
  if ((allowBlanks && rest !== whole) || rest !== "") out.push(rest);
  return out.map(fromByteString);
}

/** Longest piece string_split() keeps (CF_MAXVARSIZE - 1 bytes). */
const MAX_PIECE = 1023;

/** string_split(): at most `max` pieces, the last holding the unsplit rest. */
export function splitKeepingRest(subject: string, pattern: string, max: number): string[] | PcreError {
  const regex = compileCfRegex(pattern, { global: true });
  if (regex instanceof PcreError) return regex;
  let rest = toByteString(subject);
  const out: string[] = [];
  while (out.length < max - 1) {
    const match = searchBytes(regex, rest);
    if (!match) break;
    out.push(rest.slice(0, Math.min(match.start, MAX_PIECE)));
    rest = rest.slice(match.end);
  }
  out.push(rest);
  return out.map(fromByteString);
}
