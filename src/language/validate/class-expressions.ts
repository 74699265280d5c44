/**
 * Class expressions as 3.21 reads them in class guards and in `if` /
 * `ifvarclass` strings: `|` and `||` (or), `.` and `&` (and), `!` (not),
 * parentheses, and names that may embed `$(var)` references.
 *
 * Like cf-promises, an expression is accepted when a leading part of it
 * parses; text after that part is not looked at here.
 */

interface Parsed {
  readonly ok: boolean;
  /** Where parsing stopped (the failing offset when `ok` is false). */
  readonly end: number;
}

/** Where a class expression fails to parse, or -1 when it is accepted. */
export function findClassExpressionError(text: string): number {
  const result = parseOr(text, 0);
  return result.ok ? -1 : result.end;
}

/**
 * Whether two names are separated only by whitespace, as in `linux debian::`;
 * 3.21 rejects such guards (they need `.`, `&` or `|` between the names).
 */
export function hasWhitespaceBetweenNames(text: string): boolean {
  return /[_A-Za-z0-9][ \t]+[_A-Za-z0-9]/.test(text);
}

// Operands are read in loops, not by recursion: a guard may chain
// thousands of names (`a.a.a...`) without exhausting the stack.
function parseOr(text: string, start: number): Parsed {
  let at = start;
  for (;;) {
    const left = parseAnd(text, at);
    if (!left.ok || left.end >= text.length || text[left.end] !== "|") return left;
    at = text[left.end + 1] === "|" ? left.end + 2 : left.end + 1;
  }
}

function parseAnd(text: string, start: number): Parsed {
  let at = start;
  for (;;) {
    const left = parseNot(text, at);
    if (!left.ok || left.end >= text.length) return left;
    if (text[left.end] !== "." && text[left.end] !== "&") return left;
    at = left.end + 1;
  }
}

function parseNot(text: string, start: number): Parsed {
  return text[start] === "!" ? parsePrimary(text, start + 1) : parsePrimary(text, start);
}

function parsePrimary(text: string, start: number): Parsed {
  if (text[start] !== "(") return parseName(text, start);
  const inner = parseOr(text, start + 1);
  if (!inner.ok) return inner;
  if (text[inner.end] === ")") return { ok: true, end: inner.end + 1 };
  return { ok: false, end: inner.end };
}

/** A name: one or more tokens and variable references written together. */
function parseName(text: string, start: number): Parsed {
  let at = start;
  let first = true;
  for (;;) {
    const term = parseTerm(text, at);
    if (!term.ok) return first ? term : { ok: true, end: at };
    first = false;
    at = term.end;
  }
}

function parseTerm(text: string, start: number): Parsed {
  const token = scanToken(text, start);
  return token > start ? { ok: true, end: token } : parseVariable(text, start);
}

function scanToken(text: string, start: number): number {
  let at = start;
  let inIndex = false;
  while (at < text.length) {
    const c = text[at];
    if (/[A-Za-z0-9_:]/.test(c)) at++;
    else if (c === "[") {
      inIndex = true;
      at++;
    } else if (c === "]") {
      inIndex = false;
      at++;
    } else if (c === " " && inIndex) at++;
    else break;
  }
  return at;
}

function parseVariable(text: string, start: number): Parsed {
  if (start + 1 >= text.length || (text[start] !== "$" && text[start] !== "@"))
    return { ok: false, end: start };
  const open = text[start + 1];
  if (open !== "(" && open !== "{") return { ok: false, end: start + 1 };
  const close = open === "(" ? ")" : "}";
  const name = parseQualifiedName(text, start + 2);
  if (!name.ok) return name;
  return text[name.end] === close ? { ok: true, end: name.end + 1 } : { ok: false, end: name.end };
}

function parseQualifiedName(text: string, start: number): Parsed {
  const left = parseName(text, start);
  if (!left.ok || text[left.end] !== ".") return left;
  return parseName(text, left.end + 1);
}
