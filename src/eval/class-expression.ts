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
 *
 * Parsing and evaluation keep their own stacks, not the call stack: 3.21
 * reads thousands of nested parentheses, and so does tend.
 */
import { memoizeText } from "../text/memo.js";

export type ClassExpression =
  | { readonly op: "name"; readonly name: string }
  | { readonly op: "not"; readonly arg: ClassExpression }
  | { readonly op: "and" | "or"; readonly args: readonly ClassExpression[] };

export type ClassExpressionParse =
  | { readonly ok: true; readonly expression: ClassExpression }
  | { readonly ok: false; readonly message: string; readonly offset: number };

interface Cursor {
  readonly text: string;
  pos: number;
}

const WORD_GAP = /[A-Za-z0-9_][ \t]+[A-Za-z0-9_]/;

/** Parses a class expression; never throws. Results are remembered (they are immutable). */
export const parseClassExpression: (text: string) => ClassExpressionParse = memoizeText(
  parseUncached,
  10_000,
);

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

/** An expression being read inside one pair of parentheses (or at the top). */
interface Level {
  /** The `|` branches read so far, each a list of `.` operands. */
  readonly branches: ClassExpression[][];
  /** Whether a `!` stood before the parenthesis that opened this level. */
  readonly negated: boolean;
}

/** The whole expression, or the reason it does not parse (the cursor at the fault). */
function parseOr(c: Cursor): ClassExpression | string {
  const levels: Level[] = [{ branches: [[]], negated: false }];
  for (;;) {
    let level = levels.at(-1) as Level;
    // An operand: `!` (once), then `(` or a name.
    const negated = c.text[c.pos] === "!";
    if (negated) c.pos++;
    if (c.text[c.pos] === "(") {
      c.pos++;
      levels.push({ branches: [[]], negated });
      continue;
    }
    const name = scanName(c);
    if (name === "") return "expected a class name";
    let operand: ClassExpression = { op: "name", name };
    if (negated) operand = { op: "not", arg: operand };
    (level.branches.at(-1) as ClassExpression[]).push(operand);
    // After an operand: closing parentheses, then an operator or the end.
    for (;;) {
      const ch = c.text[c.pos];
      if (ch === "." || ch === "&") {
        c.pos++;
        break;
      }
      if (ch === "|") {
        c.pos += c.text[c.pos + 1] === "|" ? 2 : 1;
        level.branches.push([]);
        break;
      }
      if (levels.length === 1) return join(level);
      if (ch !== ")") return "missing ')' in class expression";
      c.pos++;
      levels.pop();
      const inner = join(level);
      const outer = levels.at(-1) as Level;
      (outer.branches.at(-1) as ClassExpression[]).push(level.negated ? negate(inner) : inner);
      level = outer;
    }
  }
}

/** A level's branches as one expression; nested `.` and `|` are flattened (both associate). */
function join(level: Level): ClassExpression {
  const branches = level.branches.map((operands) => junction("and", operands));
  return junction("or", branches);
}

function junction(op: "and" | "or", operands: readonly ClassExpression[]): ClassExpression {
  if (operands.length === 1) return operands[0];
  const args: ClassExpression[] = [];
  for (const operand of operands) {
    if (operand.op === op) for (const arg of operand.args) args.push(arg);
    else args.push(operand);
  }
  return { op, args };
}

/** `!x`, with `!!x` read as `x` (the same truth, one node fewer). */
function negate(expression: ClassExpression): ClassExpression {
  return expression.op === "not" ? expression.arg : { op: "not", arg: expression };
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
  // Most expressions are one name: no frames for those.
  if (expression.op === "name") return nameIsTrue(expression.name, isDefined);
  // Frames of the `not`, `and` and `or` nodes being evaluated, with the
  // index of the operand under way; operands left to right, stopping as
  // soon as the result is known.
  const frames: { readonly node: ClassExpression; next: number }[] = [];
  let node: ClassExpression = expression;
  for (;;) {
    while (node.op !== "name") {
      frames.push({ node, next: 0 });
      node = node.op === "not" ? node.arg : node.args[0];
    }
    let value = nameIsTrue(node.name, isDefined);
    for (;;) {
      const frame = frames.at(-1);
      if (frame === undefined) return value;
      const { node: parent } = frame;
      if (parent.op === "not") value = !value;
      else if (parent.op === "and" || parent.op === "or") {
        const settled = parent.op === "and" ? !value : value;
        if (!settled && ++frame.next < parent.args.length) {
          node = parent.args[frame.next];
          break;
        }
      }
      frames.pop();
    }
  }
}

/** A name's truth: the literal names `true` and `false` are constants. */
function nameIsTrue(name: string, isDefined: (name: string) => boolean): boolean {
  return name === "true" ? true : name === "false" ? false : isDefined(name);
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
