/**
 * Regular-expression functions of 3.21: regcmp, regextract,
 * data_regextract, regline, reglist, regarray, classmatch,
 * classesmatching, countclassesmatching.
 *
 * Patterns are PCRE (see ../regex/pcre.ts), compiled as cf-agent does with
 * multi-line and dot-all on. "Full match" functions take the first match at
 * the start and require it to reach the end (cf-agent's StringMatchFull).
 * An invalid pattern is logged and fails the call, except where cf-agent
 * falls back (class matching compares the text, regextract is false).
 */
import { captureGroups, compileCfRegex, matchesFully } from "../regex/match.js";
import { PcreError, type PcreRegExp } from "../regex/pcre.js";
import { parseVarRef } from "../var-ref.js";
import { type JsonValue, type Value, data, list, scalar } from "../values.js";
import { classResult, collection, text } from "./args.js";
import { emitFunctionMessage } from "./messages.js";
import { scanLines } from "./file-read.js";
import { primitiveStrings } from "./strings.js";
import { mapOrder, tableOrder } from "./hash-order.js";
import { type BuiltinFunction, type FunctionContext, defineFunction } from "./types.js";

function logRegexError(fc: FunctionContext, error: PcreError, pattern: string): void {
  emitFunctionMessage(
    fc.ctx,
    "error",
    fc.call.name,
    `Regular expression error: pcre_compile() '${error.reason}' in expression '${pattern}' (offset: ${error.offset})`,
  );
}

/** The anchored compiled pattern, or undefined after logging why not. */
function fullMatcher(fc: FunctionContext, pattern: string): PcreRegExp | undefined {
  const regex = compileCfRegex(pattern, { anchored: true });
  if (!(regex instanceof PcreError)) return regex;
  logRegexError(fc, regex, pattern);
  return undefined;
}

function regcmp([pattern, subject]: readonly Value[], fc: FunctionContext): Value | undefined {
  const [p, s] = [text(pattern), text(subject)];
  if (p === undefined || s === undefined) return undefined;
  const regex = fullMatcher(fc, p);
  return classResult(regex !== undefined && matchesFully(regex, s) === true);
}

function regextract(args: readonly Value[], fc: FunctionContext): Value | undefined {
  const [pattern, subject, arrayName] = args.map(text);
  if (pattern === undefined || subject === undefined || arrayName === undefined) return undefined;
  const groups = captureGroups(pattern, subject);
  if (groups instanceof PcreError) {
    logRegexError(fc, groups, pattern);
    return classResult(false);
  }
  if (!groups) return classResult(false);
  for (const [key, value] of groups) fc.ctx.setVariable(parseVarRef(`${arrayName}[${key}]`), scalar(value));
  return classResult(true);
}

function dataRegextract([pattern, subject]: readonly Value[], fc: FunctionContext): Value | undefined {
  const [p, s] = [text(pattern), text(subject)];
  if (p === undefined || s === undefined) return undefined;
  const groups = captureGroups(p, s);
  if (groups instanceof PcreError) {
    logRegexError(fc, groups, p);
    return undefined;
  }
  if (!groups) return undefined;
  const out: Record<string, JsonValue> = {};
  for (const [key, value] of groups) out[key] = value;
  return data(out);
}

/** reglist(list, regex) and regarray(array, regex): whether any member fully matches. */
function anyMemberMatches([source, pattern]: readonly Value[], fc: FunctionContext): Value | undefined {
  const p = text(pattern);
  if (p === undefined) return undefined;
  const regex = fullMatcher(fc, p);
  if (!regex) return undefined;
  const values = collection(fc, source);
  const strings = values && primitiveStrings(values);
  if (!strings) return undefined;
  return classResult(strings.some((s) => matchesFully(regex, s) === true));
}

function regline([pattern, file]: readonly Value[], fc: FunctionContext): Value | undefined {
  const [p, path] = [text(pattern), text(file)];
  if (p === undefined || path === undefined) return undefined;
  const regex = fullMatcher(fc, p);
  if (!regex) return undefined;
  // Line by line, in bounded memory; the text ends at a NUL, as a C string does.
  let found = false;
  const read = scanLines(path, (line) => (found = matchesFully(regex, line) === true));
  return classResult(read.ok && found);
}

// --- classes -----------------------------------------------------------------

/** The tags a class was defined with (`source=...`, `hardclass`, `meta` tags...). */
function classTags(fc: FunctionContext, name: string): readonly string[] {
  return fc.ctx.getClassTags(name);
}

/**
 * Defined classes equal to, or fully matched by, the pattern and carrying a
 * matching tag, in the order 3.21 lists them: the global class table, then
 * the bundle's own, each walked in its hash-table order, the matches of
 * each gathered in a string set and then prepended to the result.
 */
function matchingClasses(
  args: readonly Value[],
  fc: FunctionContext,
  firstOnly: boolean,
): string[] | undefined {
  const texts = args.map(text);
  if (texts.some((t) => t === undefined)) return undefined;
  const [pattern, ...tagPatterns] = texts as string[];
  const regex = compileCfRegex(pattern, { anchored: true });
  if (regex instanceof PcreError) logRegexError(fc, regex, pattern);
  const matches = (name: string) =>
    (name === pattern || (!(regex instanceof PcreError) && matchesFully(regex, name) === true)) &&
    hasTag(fc, name, tagPatterns);
  const local = [...(fc.ctx.frames().at(-1)?.localClasses ?? [])];
  const all = fc.ctx.listClasses();
  const global = all.slice(0, all.length - local.length);
  const qualified = (name: string) => (name.includes(":") ? name : `default:${name}`);
  const out: string[] = [];
  for (const table of [tableOrder(global.map(qualified)), local]) {
    const found = table.map((key) => (key.startsWith("default:") ? key.slice(8) : key)).filter(matches);
    if (firstOnly && found.length > 0) return [found[0]];
    out.unshift(...mapOrder(found).reverse());
  }
  return out;
}

function hasTag(fc: FunctionContext, name: string, tagPatterns: readonly string[]): boolean {
  if (tagPatterns.length === 0) return true;
  const tags = classTags(fc, name);
  return tagPatterns.some((p) => tags.some((tag) => tag === p || matchesFully(p, tag) === true));
}

export const regexFunctions: readonly BuiltinFunction[] = [
  defineFunction("regcmp", 2, 2, regcmp),
  defineFunction("regextract", 3, 3, regextract),
  defineFunction("data_regextract", 2, 2, dataRegextract),
  defineFunction("reglist", 2, 2, anyMemberMatches),
  defineFunction("regarray", 2, 2, anyMemberMatches),
  defineFunction("regline", 2, 2, regline),
  defineFunction("classmatch", 1, Number.POSITIVE_INFINITY, (args, fc) => {
    const found = matchingClasses(args, fc, true);
    return found && classResult(found.length > 0);
  }),
  defineFunction("classesmatching", 1, Number.POSITIVE_INFINITY, (args, fc) => {
    const found = matchingClasses(args, fc, false);
    return found && list(found);
  }),
  defineFunction("countclassesmatching", 1, Number.POSITIVE_INFINITY, (args, fc) => {
    const found = matchingClasses(args, fc, false);
    return found && scalar(String(found.length), "int");
  }),
];
