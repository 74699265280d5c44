/**
 * PCRE, the regex dialect of CFEngine, on top of JavaScript's engine.
 *
 * `compilePcre` translates a pattern once (results are cached) into a
 * `PcreRegExp`, a RegExp over byte strings (see bytes.ts) that also knows
 * PCRE's group numbers and names. Patterns PCRE would reject, and the few
 * constructs JavaScript cannot express, give a `PcreError` instead of
 * throwing.
 *
 * Every match takes a bounded time, as PCRE's match limit bounds cf-agent's:
 * see watchdog.ts. A pattern whose only obstacle to the linear-time engine
 * is a multiline `^` or `$` still runs natively on subjects without a
 * newline.
 */
import { PcreError } from "./ast.js";
import { toByteString } from "./bytes.js";
import { emitPattern } from "./emit.js";
import { type PcreFlags, parsePcre } from "./parse.js";
import { BoundedRegExp } from "./watchdog.js";

export { PcreError } from "./ast.js";
export type { PcreFlags } from "./parse.js";

export interface PcreOptions extends Partial<PcreFlags> {
  /** Match only at the start position (PCRE_ANCHORED): the RegExp is sticky. */
  readonly anchored?: boolean;
  /** Also find every match (the RegExp gets the `g` flag). */
  readonly global?: boolean;
}

/** A translated pattern: use it on byte strings (`toByteString`). */
export class PcreRegExp extends BoundedRegExp {
  /** The pattern as written. */
  pcreSource = "";
  /** Number of capturing groups, as PCRE counts them. */
  groupCount = 0;
  /** Named groups and their PCRE numbers. */
  groupNames: ReadonlyMap<string, number> = new Map();
  /** `groupIndex[n]`: where PCRE group n is in a JavaScript match array. */
  groupIndex: readonly number[] = [0];

  /** PCRE's groups of a match: index n holds group n, undefined when unset. */
  pcreGroups(match: RegExpExecArray): (string | undefined)[] {
    return this.groupIndex.map((js) => match[js]);
  }
}

const CACHE_LIMIT = 1000;
const cache = new Map<string, PcreRegExp | PcreError>();

/**
 * Compiles a PCRE pattern (a JavaScript string; it is matched as UTF-8
 * bytes). Flags default to PCRE's defaults (all off). Never throws.
 */
export function compilePcre(pattern: string, options: PcreOptions = {}): PcreRegExp | PcreError {
  const key = `${flagKey(options)}\u0000${pattern}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const result = translate(pattern, options);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, result);
  return result;
}

/** The options as a number (one bit each): the cache is asked once per line of some functions. */
function flagKey(o: PcreOptions): number {
  return (
    (o.caseless ? 1 : 0) |
    (o.multiline ? 2 : 0) |
    (o.dotall ? 4 : 0) |
    (o.extended ? 8 : 0) |
    (o.ungreedy ? 16 : 0) |
    (o.anchored ? 32 : 0) |
    (o.global ? 64 : 0)
  );
}

function translate(pattern: string, options: PcreOptions): PcreRegExp | PcreError {
  const bytes = toByteString(pattern);
  const flags: PcreFlags = {
    caseless: options.caseless ?? false,
    multiline: options.multiline ?? false,
    dotall: options.dotall ?? false,
    extended: options.extended ?? false,
    ungreedy: options.ungreedy ?? false,
  };
  try {
    const parsed = parsePcre(bytes, flags);
    const emitted = emitPattern(parsed.root, parsed.groupCount);
    const jsFlags = (options.global ? "g" : "") + (options.anchored ? "y" : "");
    const regex = new PcreRegExp(emitted.source, jsFlags);
    regex.pcreSource = pattern;
    regex.groupCount = parsed.groupCount;
    regex.groupNames = parsed.names;
    regex.groupIndex = emitted.groupIndex;
    if (regex.mode === "guarded") {
      regex.useForSingleLines(emitPattern(parsed.root, parsed.groupCount, true).source);
    }
    return regex;
  } catch (error) {
    if (error instanceof PcreError) return error;
    const reason = error instanceof Error ? error.message : String(error);
    return new PcreError("pcre-unsupported", `cannot translate to JavaScript (${reason})`, 0);
  }
}
