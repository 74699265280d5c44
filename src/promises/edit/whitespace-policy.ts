/**
 * `whitespace_policy` of insert_lines: when a line of the file counts as
 * the line to insert. Without a policy (or with `exact_match`) the texts
 * must be equal. Otherwise the line to insert becomes a regex, built the
 * way cf-agent 3.21 builds it, one option after another, each tried in
 * turn: only `.` and `*` are escaped; `ignore_leading` drops leading blanks
 * and puts `\s*` in front; `ignore_trailing` appends `\s*` (trailing blanks
 * stay: cf-agent's loop that would drop them starts past the text's end);
 * `ignore_embedded` turns each run of blanks after the first non-blank
 * into `\s+`. The buffer sizes cf-agent tracks decide these details, so
 * they are tracked here too.
 */
import type { PromiseEnvironment } from "../contract.js";
import { splitString } from "./chunks.js";
import { fullTextMatch } from "./match.js";

export type WhitespaceOption = "ignore_leading" | "ignore_trailing" | "ignore_embedded" | "exact_match";

/** One option as cf-agent reads it: anything unknown is `exact_match`. */
export function whitespaceOption(text: string): WhitespaceOption {
  return text === "ignore_leading" || text === "ignore_trailing" || text === "ignore_embedded"
    ? text
    : "exact_match";
}

const isSpace = (c: string | undefined) =>
  c === " " || c === "\t" || c === "\n" || c === "\v" || c === "\f" || c === "\r";

/** A regex being built in a C buffer of `size` bytes. */
interface Buffer {
  text: string;
  size: number;
}

function escapeDotStar(text: string): Buffer {
  const escaped = text.replace(/[.*]/g, (c) => `\\${c}`);
  // EscapeRegexCharsLen counts two bytes more than it needs.
  return { text: escaped, size: escaped.length + 3 };
}

function ignoreEmbedded(final: Buffer): void {
  const text = final.text;
  let first = 0;
  while (first < text.length && isSpace(text[first])) first++;
  let last = final.size - 2;
  while (last > first && isSpace(text[last])) last--;
  let workSize = final.size + 6;
  let required = 1;
  let out = "";
  for (let i = 0; i < text.length; i++) {
    let piece = text[i] as string;
    if (i > first && i < last && isSpace(piece)) {
      while (isSpace(text[i + 1])) i++;
      piece = "\\s+";
    }
    required += piece.length;
    if (required > workSize) workSize = required + 12;
    out += piece;
  }
  if (out.length >= final.size) final.size = workSize;
  final.text = out;
}

function ignoreLeading(final: Buffer): void {
  if (final.text.startsWith("\\s*")) return;
  const rest = final.text.replace(/^[ \t\n\v\f\r]+/, "");
  const written = 3 + rest.length;
  if (written >= final.size - 1) final.size += 3;
  final.text = `\\s*${rest}`;
}

function ignoreTrailing(final: Buffer): void {
  const at = final.size - 5;
  if (at >= 0 && final.text.slice(at, at + 3) === "\\s*" && at + 3 <= final.text.length) return;
  const written = final.text.length + 3;
  if (written >= final.size - 1) final.size += 3;
  final.text = `${final.text}\\s*`;
}

/**
 * Whether `candidate` (the text to insert; its lines are checked in turn,
 * all must match) counts as present in the file's `line` under `policy`.
 */
export function matchesPolicy(
  env: PromiseEnvironment,
  candidate: string,
  line: string,
  policy: readonly WhitespaceOption[],
  onConflict?: () => void,
): boolean {
  let ok = false;
  let escaped = false;
  for (const piece of splitString(candidate, "\n")) {
    ok = false;
    const same = candidate === line;
    if (policy.length === 0) return same;
    let final: Buffer = { text: piece, size: piece.length + 1 };
    for (const option of policy) {
      if (option === "exact_match") {
        if (policy.length > 1) {
          env.log.error('Multiple policies conflict with "exact_match", using exact match');
          onConflict?.();
        }
        ok ||= same;
        break;
      }
      if (!escaped) {
        final = escapeDotStar(piece);
        escaped = true;
      }
      if (option === "ignore_embedded") ignoreEmbedded(final);
      else if (option === "ignore_leading") ignoreLeading(final);
      else ignoreTrailing(final);
      ok ||= fullTextMatch(env, final.text, line);
    }
    if (!ok) break;
  }
  return ok;
}
