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

/**
 * `or := and ("|" | "||") or`, `and := not ("." | "&") and`,
 * `not := "!"? primary`, `primary := "(" or ")" | name`, read in one loop
 * with a count of open parentheses instead of recursion: a guard may chain
 * thousands of names, or nest thousands of parentheses (cf-promises accepts
 * both), without exhausting the stack.
 */
function parseOr(text: string, start: number): Parsed {
  let at = start;
  let open = 0;
  for (;;) {
    // An operand: `!`, then `(` (an inner expression begins) or a name.
    if (text[at] === "!") at++;
    if (text[at] === "(") {
      open++;
      at++;
      continue;
    }
    const name = parseName(text, at);
    if (!name.ok) return name;
    at = name.end;
    // After an operand: closing parentheses, then an operator or the end.
    for (;;) {
      if (text[at] === "." || text[at] === "&") {
        at++;
        break;
      }
      if (text[at] === "|") {
        at += text[at + 1] === "|" ? 2 : 1;
        break;
      }
      if (open === 0) return { ok: true, end: at };
      if (text[at] !== ")") return { ok: false, end: at };
      open--;
      at++;
    }
  }
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
