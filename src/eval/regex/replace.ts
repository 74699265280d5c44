/**
 * regex_replace() as cf-agent 3.21 does it: Perl-style options, and a
 * replacement text with `\1`..`\9`, `$N`, `$&`, `$+`, `` $` ``, `$'`, the
 * escapes `\t \n \r \f \a \e \0`, and `\` quoting the next character.
 */
import { fromByteString, toByteString } from "./bytes.js";
import { type ByteMatch, searchBytes } from "./match.js";
import { type PcreOptions, PcreError, type PcreRegExp, compilePcre } from "./pcre.js";

type Piece = string | { ref: number | "before" | "after" };

const CONTROL: Readonly<Record<string, string>> = {
  t: "\t",
  n: "\n",
  r: "\r",
  f: "\f",
  a: "\x07",
  e: "\x1b",
  0: "\0",
};

/** Options letters: g global, i m s x U as PCRE flags, T literal replacement; others are ignored. */
function parseOptions(options: string): { pcre: PcreOptions; global: boolean; trivial: boolean } {
  return {
    pcre: {
      caseless: options.includes("i"),
      multiline: options.includes("m"),
      dotall: options.includes("s"),
      extended: options.includes("x"),
      ungreedy: options.includes("U"),
      global: true,
    },
    global: options.includes("g"),
    trivial: options.includes("T"),
  };
}

/** Parses the replacement (a byte string) into text and references. */
function parseReplacement(text: string, groupCount: number): Piece[] {
  const out: Piece[] = [];
  let quoted = false;
  let i = 0;
  const push = (s: string) => {
    if (typeof out[out.length - 1] === "string") out[out.length - 1] += s;
    else out.push(s);
  };
  while (i < text.length) {
    const ch = text[i];
    const next = text[i + 1] ?? "";
    if (ch === "\\" && !/[1-9]/.test(next)) {
      if (quoted) {
        push("\\");
        quoted = false;
        i++;
      } else if (next !== "" && CONTROL[next] !== undefined) {
        push(CONTROL[next]);
        i += 2;
      } else {
        quoted = true;
        i++;
      }
      continue;
    }
    if ((ch === "\\" || ch === "$") && !quoted && i < text.length - 1) {
      const digits = /^\d+/.exec(text.slice(i + 1));
      if (digits) {
        out.push({ ref: Number(digits[0]) });
        i += 1 + digits[0].length;
        continue;
      }
      const symbol = ch === "$" ? "'`+&".indexOf(next) : -1;
      if (symbol >= 0) {
        const refs: (number | "before" | "after")[] = ["after", "before", groupCount, 0];
        out.push({ ref: refs[symbol] });
        i += 2;
        continue;
      }
    }
    push(ch);
    quoted = false;
    i++;
  }
  return out;
}

/** Every match to replace: global search restarts after each match, skipping one byte after an empty one. */
function findMatches(regex: PcreRegExp, bytes: string, global: boolean): ByteMatch[] {
  const matches: ByteMatch[] = [];
  let offset = 0;
  for (;;) {
    const match = searchBytes(regex, bytes, offset);
    if (!match) break;
    matches.push(match);
    if (!global) break;
    if (match.end === offset) {
      if (offset >= bytes.length) break;
      offset++;
    } else offset = match.end;
  }
  return matches;
}

/** regex_replace(subject, pattern, replacement, options); a PcreError when the pattern is bad. */
export function regexReplace(
  subject: string,
  pattern: string,
  replacement: string,
  options: string,
): string | PcreError {
  const parsed = parseOptions(options);
  const regex = compilePcre(pattern, parsed.pcre);
  if (regex instanceof PcreError) return regex;
  const bytes = toByteString(subject);
  const template = parsed.trivial
    ? [toByteString(replacement)]
    : parseReplacement(toByteString(replacement), regex.groupCount);
  let out = "";
  let last = 0;
  for (const match of findMatches(regex, bytes, parsed.global)) {
    out += bytes.slice(last, match.start);
    for (const piece of template) {
      if (typeof piece === "string") out += piece;
      else if (piece.ref === "before") out += bytes.slice(0, match.start);
      // cf-agent copies one byte less than the text after the match.
      else if (piece.ref === "after") out += bytes.slice(match.end, -1);
      else out += match.groups[piece.ref] ?? "";
    }
    last = match.end;
  }
  out += bytes.slice(last);
  // The result is a C string: a `\0` from the replacement ends it.
  const nul = out.indexOf("\0");
  return fromByteString(nul === -1 ? out : out.slice(0, nul));
}
