/**
 * CFEngine class expressions: `linux.!debian`, `(a|b)&c`, `ns:cls`,
 * `"$(x)_ok"` after expansion.
 *
 * Grammar (tightest first), as in 3.21:
 *   primary := "(" or ")" | name
 *   not     := "!" primary          (so `!!a` is a syntax error, as in 3.21)
 *   and     := not (("." | "&") and)?
 *   or      := and (("|" | "||") or)?
 * A name is made of letters, digits, `_` and `:`, plus `[...]` indexes that
 * may hold spaces. Whitespace between operators is dropped before parsing,
 * but two words separated only by whitespace are an error.
 */

export type ClassExpression =
  | { readonly op: "name"; readonly name: string }
  | { readonly op: "not"; readonly arg: ClassExpression }
  | { readonly op: "and" | "or"; readonly lhs: ClassExpression; readonly rhs: ClassExpression };

export type ClassExpressionParse =
  | { readonly ok: true; readonly expression: ClassExpression }
  | { readonly ok: false; readonly message: string; readonly offset: number };

interface Cursor {
  readonly text: string;
  pos: number;
}

const WORD_GAP = /[A-Za-z0-9_][ \t]+[A-Za-z0-9_]/;

const parseCache = new Map<string, ClassExpressionParse>();
const PARSE_CACHE_LIMIT = 10_000;

/** Parses a class expression; never throws. Results are cached (they are immutable). */
export function parseClassExpression(text: string): ClassExpressionParse {
  const cached = parseCache.get(text);
  if (cached) return cached;
  const parsed = parseUncached(text);
  if (parseCache.size >= PARSE_CACHE_LIMIT) parseCache.clear();
  parseCache.set(text, parsed);
  return parsed;
}

function parseUncached(text: string): ClassExpressionParse {
  if (WORD_GAP.test(text)) {
    return failure("class expressions can't be separated by whitespace without an operator", 0);
  }
  const cursor: Cursor = { text: condense(text), pos: 0 };
  const expression = parseOr(cursor);
  if (typeof expression === "string") return failure(expression, cursor.pos);
  if (cursor.pos !== cursor.text.length) {
    return failure(`unexpected '${cursor.text[cursor.pos]}' in class expression`, cursor.pos);
  }
  return { ok: true, expression };
}

function failure(message: string, offset: number): ClassExpressionParse {
  return { ok: false, message, offset };
}

/** Drops whitespace outside `[...]` indexes. */
function condense(text: string): string {
  let out = "";
  let depth = 0;
  for (const ch of text) {
    if (ch === "[") depth++;
    else if (ch === "]" && depth > 0) depth--;
    if (depth === 0 && (ch === " " || ch === "\t" || ch === "\n" || ch === "\r")) continue;
    out += ch;
  }
  return out;
}

function parseOr(c: Cursor): ClassExpression | string {
  const lhs = parseAnd(c);
  if (typeof lhs === "string" || c.text[c.pos] !== "|") return lhs;
  c.pos += c.text[c.pos + 1] === "|" ? 2 : 1;
  const rhs = parseOr(c);
  if (typeof rhs === "string") return rhs;
  return { op: "or", lhs, rhs };
}

function parseAnd(c: Cursor): ClassExpression | string {
  const lhs = parseNot(c);
  if (typeof lhs === "string") return lhs;
  const ch = c.text[c.pos];
  if (ch !== "." && ch !== "&") return lhs;
  c.pos++;
  const rhs = parseAnd(c);
  if (typeof rhs === "string") return rhs;
  return { op: "and", lhs, rhs };
}

function parseNot(c: Cursor): ClassExpression | string {
  if (c.text[c.pos] !== "!") return parsePrimary(c);
  c.pos++;
  const arg = parsePrimary(c);
  if (typeof arg === "string") return arg;
  return { op: "not", arg };
}

function parsePrimary(c: Cursor): ClassExpression | string {
  if (c.text[c.pos] === "(") {
    c.pos++;
    const inner = parseOr(c);
    if (typeof inner === "string") return inner;
    if (c.text[c.pos] !== ")") return "missing ')' in class expression";
    c.pos++;
    return inner;
  }
  const name = scanName(c);
  return name === "" ? "expected a class name" : { op: "name", name };
}

/** A run of name characters and `$(...)` references (kept verbatim). */
function scanName(c: Cursor): string {
  const start = c.pos;
  let depth = 0;
  while (c.pos < c.text.length) {
    const ch = c.text[c.pos];
    if ((ch === "$" || ch === "@") && (c.text[c.pos + 1] === "(" || c.text[c.pos + 1] === "{")) {
      c.pos = skipReference(c.text, c.pos);
      continue;
    }
    if (ch === "[") depth++;
    else if (ch === "]" && depth > 0) depth--;
    else if (!isNameChar(ch) && !(depth > 0 && ch === " ")) break;
    c.pos++;
  }
  return c.text.slice(start, c.pos);
}

function skipReference(text: string, at: number): number {
  const open = text[at + 1];
  const close = open === "(" ? ")" : "}";
  let depth = 0;
  for (let i = at + 1; i < text.length; i++) {
    if (text[i] === open) depth++;
    else if (text[i] === close && --depth === 0) return i + 1;
  }
  return text.length;
}

function isNameChar(ch: string): boolean {
  const c = ch.charCodeAt(0);
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 58) || c === 95;
}

/**
 * Evaluates a parsed expression. `isDefined` answers for one class name;
 * the literal names `true` and `false` are constants.
 */
export function evaluateClassExpression(
  expression: ClassExpression,
  isDefined: (name: string) => boolean,
): boolean {
  switch (expression.op) {
    case "name":
      if (expression.name === "true") return true;
      if (expression.name === "false") return false;
      return isDefined(expression.name);
    case "not":
      return !evaluateClassExpression(expression.arg, isDefined);
    case "and":
      return (
        evaluateClassExpression(expression.lhs, isDefined) &&
        evaluateClassExpression(expression.rhs, isDefined)
      );
    case "or":
      return (
        evaluateClassExpression(expression.lhs, isDefined) ||
        evaluateClassExpression(expression.rhs, isDefined)
      );
  }
}

/**
 * Parses and evaluates in one step; a syntax error yields `undefined`
 * (3.21 treats such a guard as not satisfied and logs an error). So does an
 * unresolved `$(x)` anywhere in it: 3.21 evaluates it to an error that no
 * operator absorbs (`!$(x)` and `any|$(x)` are not true).
 */
export function checkClassExpression(
  text: string,
  isDefined: (name: string) => boolean,
): boolean | undefined {
  if (text.includes("$(") || text.includes("${")) return undefined;
  const parsed = parseClassExpression(text);
  return parsed.ok ? evaluateClassExpression(parsed.expression, isDefined) : undefined;
}

/**
 * Canonifies a string into a class name: every byte that is not an ASCII
 * letter, digit or `_` becomes `_` (so a two-byte UTF-8 letter gives `__`).
 */
export function canonify(text: string): string {
  if (/^[A-Za-z0-9_]*$/.test(text)) return text;
  let out = "";
  for (const byte of Buffer.from(text, "utf8")) {
    const ch = String.fromCharCode(byte);
    out += byte < 128 && /[A-Za-z0-9_]/.test(ch) ? ch : "_";
  }
  return out;
}

/** Canonifies a class name but keeps a leading `ns:` qualifier intact. */
export function canonifyClassName(name: string): string {
  const colon = name.indexOf(":");
  if (colon <= 0) return canonify(name);
  return `${name.slice(0, colon)}:${canonify(name.slice(colon + 1))}`;
}
