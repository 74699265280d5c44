/**
 * The expression evaluator: every node kind of the syntax tree (ast.ts)
 * evaluated in a Scope, following Puppet 7's evaluator (literals,
 * interpolation, operators, matching, access, conditionals, assignment,
 * lambdas and calls); catalog expressions (resources, defaults, overrides,
 * collectors, relationships) are handed to the Compiler.
 */
import { isArr } from "./arr.js";
import type * as A from "../lang/ast.js";
import type { Compiler } from "./compiler.js";
import { BreakSignal, PuppetEvalError, NextSignal, ReturnSignal, evalError } from "./errors.js";
import { PuppetCompileError } from "./compile-api.js";
import type { ParamEntry } from "./resource.js";
import { type Scope, ScopeError } from "./scope.js";
import {
  type ResourceRef,
  asResourceRef,
  formatFloat,
  describeMismatch,
  inferType,
  isInstance,
  parameterize,
} from "./typing.js";
import {
  ANY,
  PArrayType,
  PCallableType,
  PClassType,
  PIntegerType,
  PResourceType,
  type PType,
  PTupleType,
  SliceTypeError,
  TypeSystemError,
} from "./types.js";
import { PUserObjectType, objectMember } from "./types/user-objects.js";
import {
  DEFAULT,
  PBinary,
  type PCallable,
  PHash,
  PIterator,
  PObject,
  PRegexp,
  PSensitive,
  type PValue,
  equals,
  isType,
} from "./values.js";

const MAX_INT = 9223372036854775807n;
const MIN_INT = -9223372036854775808n;

/** Puppet's truthiness: undef and false are false, everything else true. */
export function isTrue(v: PValue): boolean {
  return !(v === undefined || v === false);
}

/** A Ruby regexp source as a JavaScript RegExp (the common subset). */
export function toRegExp(source: string): RegExp {
  let s = source
    .replace(/\\A/g, "^")
    .replace(/\\[zZ]/g, "$")
    .replace(/\(\?<(\w+)>/g, "(?<$1>")
    .replace(/\\h/g, "[0-9a-fA-F]");
  let flags = "";
  const inline = /^\(\?([mix]+)\)/.exec(s);
  if (inline?.[1]) {
    if (inline[1].includes("i")) flags += "i";
    if (inline[1].includes("m")) flags += "s";
    s = s.slice(inline[0].length);
  }
  s = s.replace(/\[\[:(\w+):\]\]/g, (_m, c: string) => `[${posixClass(c)}]`);
  s = s.replace(/\[:(\w+):\]/g, (_m, c: string) => posixClass(c));
  return new RegExp(s, `${flags}u`.replace("u", "") || undefined);
}

function posixClass(name: string): string {
  switch (name) {
    case "alpha":
      return "a-zA-Z";
    case "digit":
      return "0-9";
    case "alnum":
      return "a-zA-Z0-9";
    case "space":
      return "\\s";
    case "upper":
      return "A-Z";
    case "lower":
      return "a-z";
    case "punct":
      return "!-\\/:-@\\[-`{-~";
    case "xdigit":
      return "0-9a-fA-F";
    case "word":
      return "\\w";
    default:
      return "\\w";
  }
}

const regexCache = new Map<string, PRegexp>();
export function makeRegexp(source: string): PRegexp {
  let r = regexCache.get(source);
  if (!r) {
    r = new PRegexp(source, toRegExp(source));
    regexCache.set(source, r);
  }
  return r;
}

/** A string in interpolation (the evaluator's `string` visitor). */
export function interpolate(v: PValue): string {
  if (v === undefined) return "";
  if (typeof v === "string") return v;
  if (typeof v === "bigint" || typeof v === "boolean") return String(v);
  if (typeof v === "number") return formatFloat(v);
  if (v === DEFAULT) return "default";
  if (isArr(v)) return `[${v.map(interpolate).join(", ")}]`;
  if (v instanceof PHash)
    return `{${[...v].map(([k, x]) => `${interpolate(k)} => ${interpolate(x)}`).join(", ")}}`;
  if (v instanceof PRegexp) return `/${v.source}/`;
  if (v instanceof PSensitive) return "Sensitive [value redacted]";
  if (v instanceof PBinary) return Buffer.from(v.bytes).toString("base64");
  if (v instanceof PObject) return v.toString();
  if (isType(v)) return v.toString();
  return String(v);
}

/** Puppet's type name of a value for messages (`String`, `Integer`, `Array`...). */
export function typeLabel(v: PValue): string {
  if (v === undefined) return "Undef";
  if (v === DEFAULT) return "Default";
  if (typeof v === "string") return "String";
  if (typeof v === "bigint") return "Integer";
  if (typeof v === "number") return "Float";
  if (typeof v === "boolean") return "Boolean";
  if (isArr(v)) return "Array";
  if (v instanceof PHash) return "Hash";
  if (v instanceof PRegexp) return "Regexp";
  if (isType(v)) return "Type";
  if (v instanceof PObject) return v.typeName;
  return "Any";
}

function toNumber(v: PValue): bigint | number | undefined {
  if (typeof v === "bigint" || typeof v === "number") return v;
  if (typeof v !== "string") return undefined;
  const s = v.trim();
  if (/^[-+]?0[xX][0-9a-fA-F]+$/.test(s)) return BigInt(s.replace("+", ""));
  if (/^[-+]?0[0-7]+$/.test(s)) {
    const neg = s.startsWith("-");
    const n = BigInt(`0o${s.replace(/^[-+]?0/, "")}`);
    return neg ? -n : n;
  }
  if (/^[-+]?\d+$/.test(s)) return BigInt(s);
  if (/^[-+]?(\d+\.\d+([eE][-+]?\d+)?|\d+[eE][-+]?\d+)$/.test(s)) return Number(s);
  return undefined;
}

/** Puppet's comparison for `<`, sort and max: numbers, strings (case-insensitive). */
export function compareValues(a: PValue, b: PValue): number {
  if ((typeof a === "bigint" || typeof a === "number") && (typeof b === "bigint" || typeof b === "number")) {
    if (typeof a === "bigint" && typeof b === "bigint") return a < b ? -1 : a > b ? 1 : 0;
    const x = Number(a);
    const y = Number(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (typeof a === "string" && typeof b === "string") {
    const x = a.toLowerCase();
    const y = b.toLowerCase();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (typeof a === "string") throw new Error("A String is not comparable to a non String");
  if (typeof a === "bigint" || typeof a === "number")
    throw new Error("A Numeric is not comparable to non Numeric");
  throw new Error("Only Strings, Numbers, Timespans, Timestamps, and Versions are comparable");
}

export class Evaluator {
  constructor(readonly c: Compiler) {}

  fail(message: string, node: A.NodeBase | undefined, scope: Scope): never {
    throw evalError(message, node, scope.locator);
  }

  evaluate(e: A.Expression | undefined, scope: Scope): PValue {
    if (!e) return undefined;
    try {
      return this.eval(e, scope);
    } catch (err) {
      return this.rethrow(err, e, scope);
    }
  }

  /** An error of evaluating `e`: signals and evaluation errors as they are, others placed at `e`. */
  private rethrow(err: unknown, e: A.Expression, scope: Scope): never {
    if (
      err instanceof PuppetEvalError ||
      err instanceof ReturnSignal ||
      err instanceof NextSignal ||
      err instanceof PuppetCompileError
    )
      throw err;
    if (err instanceof BreakSignal) throw err;
    if (err instanceof ScopeError) this.fail(err.message, e, scope);
    if (err instanceof RangeError && /call stack/.test(err.message)) throw err;
    if (err instanceof Error) this.fail(err.message, e, scope);
    throw err;
  }

  private eval(e: A.Expression, scope: Scope): PValue {
    switch (e.kind) {
      case "Block": {
        // A resource statement whose value nobody reads (not the block's
        // last) declares its resources without making their references.
        const statements = e.statements;
        const n = statements.length - 1;
        for (let i = 0; i < n; i++) {
          const s = statements[i] as A.Expression;
          if (s.kind !== "Resource") this.evaluate(s, scope);
          else {
            try {
              this.c.resourceExpression(s, scope, false);
            } catch (err) {
              this.rethrow(err, s, scope);
            }
          }
        }
        return n >= 0 ? this.evaluate(statements[n], scope) : undefined;
      }
      case "Nop":
        return undefined;
      case "LiteralString":
        return e.value;
      case "LiteralInteger":
        return BigInt(e.value);
      case "LiteralFloat":
        return e.value;
      case "LiteralBoolean":
        return e.value;
      case "LiteralUndef":
        return undefined;
      case "LiteralDefault":
        return DEFAULT;
      case "LiteralRegex":
        return makeRegexp(e.pattern);
      case "LiteralList":
        return this.unfold(e.values, scope);
      case "LiteralHash": {
        const h = new PHash();
        for (const entry of e.entries)
          h.set(this.evaluate(entry.key, scope), this.evaluate(entry.value, scope));
        return h;
      }
      case "KeyedEntry":
        return this.fail("Illegal expression", e, scope);
      case "QualifiedName":
        return e.value;
      case "QualifiedReference":
        return this.c.resolveTypeReference(e, scope);
      case "Variable":
        return this.variable(e, scope);
      case "ConcatenatedString": {
        // Joined, the text is one flat string: `+=` would make a chain of
        // concatenations (an object per piece) that the catalog then keeps.
        // Sized at once: an array grown by push starts with room for 17.
        const segments = e.segments;
        const parts = new Array<string>(segments.length);
        for (let i = 0; i < segments.length; i++)
          parts[i] = interpolate(this.evaluate(segments[i] as A.Expression, scope));
        return parts.join("");
      }
      case "TextExpression":
        if (e.expr.kind === "QualifiedName") return interpolate(this.getVariable(e.expr.value, e, scope));
        return interpolate(this.evaluate(e.expr, scope));
      case "Heredoc":
        return this.evaluate(e.text, scope);
      case "Paren":
        return this.evaluate(e.expr, scope);
      case "Not":
        return !isTrue(this.evaluate(e.expr, scope));
      case "UnaryMinus": {
        const v = this.numeric(this.evaluate(e.expr, scope), e.expr, scope);
        return typeof v === "bigint" ? this.checkInt(-v, e, scope) : -v;
      }
      case "Unfold":
        return this.unfoldValue(this.evaluate(e.expr, scope));
      case "Arithmetic":
        return this.arithmetic(e, scope);
      case "Comparison":
        return this.comparison(e, scope);
      case "Match":
        return this.match(e, scope);
      case "In":
        return this.includes(this.evaluate(e.right, scope), this.evaluate(e.left, scope), scope);
      case "And":
        return isTrue(this.evaluate(e.left, scope)) ? isTrue(this.evaluate(e.right, scope)) : false;
      case "Or":
        return isTrue(this.evaluate(e.left, scope)) ? true : isTrue(this.evaluate(e.right, scope));
      case "Assignment":
        return this.assignment(e, scope);
      case "Relationship":
        return this.c.relationship(e, this.evaluate(e.left, scope), this.evaluate(e.right, scope), scope);
      case "Access":
        return this.access(e, scope);
      case "NamedAccess":
        return this.fail("Illegal expression", e, scope);
      case "CallNamedFunction":
        return this.callNamed(e, scope);
      case "CallMethod":
        return this.callMethod(e, scope);
      case "Lambda":
        return this.closure(e, scope);
      case "If":
      case "Unless":
        return this.conditional(e, scope);
      case "Case":
        return this.caseExpr(e, scope);
      case "Selector":
        return this.selector(e, scope);
      case "Resource":
        return this.c.resourceExpression(e, scope);
      case "ResourceDefaults":
        return this.c.defaultsExpression(e, scope);
      case "ResourceOverride":
        return this.c.overrideExpression(e, scope);
      case "Collect":
        return this.c.collectExpression(e, scope);
      case "HostClass":
      case "DefinedType":
      case "FunctionDefinition":
      case "NodeDefinition":
      case "TypeAlias":
      case "TypeMapping":
      case "TypeDefinition":
        return undefined;
      case "ReservedWord":
        return this.fail(
          `Use of reserved word: ${e.word}, must be quoted if intended to be a String value`,
          e,
          scope,
        );
      case "Epp":
        return this.c.eppBody(e, scope);
      case "RenderString":
        this.c.eppOutput(scope).push(e.value);
        return undefined;
      case "Render": {
        const v = this.evaluate(e.expr, scope);
        this.c.eppOutput(scope).push(v instanceof PSensitive ? v : interpolate(v));
        return undefined;
      }
    }
  }

  // Apart from eval: a function that makes a closure has V8 allocate a
  // context for its variables at each call, closure made or not, and eval
  // runs for every expression (~9 MB of contexts on ten thousand resources).
  private conditional(e: A.IfExpression, scope: Scope): PValue {
    return this.guarded(scope, () => {
      const t = isTrue(this.evaluate(e.test, scope));
      return (e.kind === "If" ? t : !t) ? this.evaluate(e.thenExpr, scope) : this.evaluate(e.elseExpr, scope);
    });
  }

  guarded<T>(scope: Scope, f: () => T): T {
    const level = scope.level();
    try {
      return f();
    } finally {
      scope.popTo(level);
    }
  }

  // --- variables -------------------------------------------------------------

  private variable(e: A.Variable, scope: Scope): PValue {
    const x = e.expr;
    if (x.kind === "QualifiedName") return this.getVariable(x.value, e, scope);
    if (x.kind === "LiteralInteger") return this.getVariable(String(x.value), e, scope);
    return this.fail("Illegal variable expression", e, scope);
  }

  getVariable(name: string, node: A.NodeBase, scope: Scope): PValue {
    const r = scope.lookup(name);
    if (r.found) return r.value;
    if (!/^\d+$/.test(name)) this.c.unknownVariable(name, node, scope);
    return undefined;
  }

  private assignment(e: A.Assignment, scope: Scope): PValue {
    const value = this.evaluate(e.right, scope);
    if (e.operator !== "=")
      this.fail(
        `The operator '${e.operator}' is no longer supported. See http://links.puppet.com/remove-plus-equals`,
        e,
        scope,
      );
    this.assign(e.left, value, e, scope);
    return value;
  }

  private assign(target: A.Expression, value: PValue, e: A.Assignment, scope: Scope): void {
    if (target.kind === "Variable") {
      const x = target.expr;
      if (x.kind !== "QualifiedName") {
        this.fail(
          `Illegal attempt to assign to the numeric match result variable '$${x.kind === "LiteralInteger" ? x.value : x.value}'. Numeric variables are not assignable`,
          target,
          scope,
        );
      }
      const name = x.value;
      if (name.includes("::"))
        this.fail(
          `Illegal attempt to assign to '$${name}'. Cannot assign to variables in other namespaces`,
          target,
          scope,
        );
      if (/^\d+$/.test(name))
        this.fail(
          `Illegal attempt to assign to the numeric match result variable '$${name}'. Numeric variables are not assignable`,
          target,
          scope,
        );
      if (name === "server_facts" || ((name === "facts" || name === "trusted") && scope.isBound(name))) {
        this.fail(`Attempt to assign to a reserved variable name: '$${name}'`, e, scope);
      }
      if (scope.isBound(name)) {
        if (name === "name" || name === "title")
          this.fail(`Cannot reassign built in (or already assigned) variable '$${name}'`, e, scope);
        this.fail(`Cannot reassign variable '$${name}'`, e, scope);
      }
      scope.setVar(name, value);
      return;
    }
    if (target.kind === "LiteralList") {
      if (value instanceof PHash) {
        for (const t of target.values) {
          const key = t.kind === "Variable" && t.expr.kind === "QualifiedName" ? t.expr.value : undefined;
          if (key === undefined || !value.has(key))
            this.fail(`No value for required key '${key}' in assignment to variables from hash`, e, scope);
          this.assign(t, value.get(key), e, scope);
        }
        return;
      }
      const ref = asResourceRef(value);
      if (ref && ref.typeName === "Class" && ref.title !== undefined) {
        const cls = ref.title.toLowerCase();
        for (const t of target.values) {
          const key = t.kind === "Variable" && t.expr.kind === "QualifiedName" ? t.expr.value : "";
          const r = scope.lookup(`${cls}::${key}`);
          if (!r.found)
            this.fail(
              `No value for required variable '$${cls}::${key}' in assignment to variables from class reference`,
              t,
              scope,
            );
          this.assign(t, r.value, e, scope);
        }
        return;
      }
      const values: PValue[] = isArr(value) ? value : [value];
      if (values.length !== target.values.length) {
        this.fail(
          `Mismatched number of assignable entries and values, expected ${target.values.length}, got ${values.length}`,
          e,
          scope,
        );
      }
      for (const [i, t] of target.values.entries()) this.assign(t, values[i], e, scope);
      return;
    }
    this.fail(`Illegal attempt to assign via [${label(target)}]. Not an assignable reference`, e, scope);
  }

  // --- collections --------------------------------------------------------------

  unfold(exprs: readonly A.Expression[], scope: Scope): PValue[] {
    // Without a splat (most lists, every `$x['key']`), an array of the exact
    // size: one made by push starts with room for 17 values, and access keys
    // alone make thirty thousand of them on a large environment.
    const n = exprs.length;
    let plain = true;
    for (let i = 0; i < n; i++) {
      const k = (exprs[i] as A.Expression).kind;
      if (k === "Unfold" || k === "Paren") {
        plain = false;
        break;
      }
    }
    if (plain) {
      if (n === 1) return [this.evaluate(exprs[0], scope)];
      if (n === 2) return [this.evaluate(exprs[0], scope), this.evaluate(exprs[1], scope)];
      const values: PValue[] = [];
      for (let i = 0; i < n; i++) values.push(this.evaluate(exprs[i], scope));
      return values;
    }
    const out: PValue[] = [];
    for (let x of exprs) {
      while (x.kind === "Paren") x = (x as A.UnaryExpression).expr;
      if (x.kind === "Unfold")
        out.push(...this.unfoldValue(this.evaluate((x as A.UnaryExpression).expr, scope)));
      else out.push(this.evaluate(x, scope));
    }
    return out;
  }

  private unfoldValue(v: PValue): PValue[] {
    if (v === undefined) return [];
    if (isArr(v)) return v;
    if (v instanceof PHash) return [...v].map(([k, x]) => [k, x]);
    if (v instanceof PIterator) return [...v.produce()];
    return [v];
  }

  // --- arithmetic ---------------------------------------------------------------

  private checkInt(v: bigint, e: A.NodeBase, scope: Scope): bigint {
    if (v > MAX_INT || v < MIN_INT) {
      this.fail(`The result of the ${(e as A.Arithmetic).operator ?? "-"} expression is Infinity`, e, scope);
    }
    return v;
  }

  numeric(v: PValue, e: A.NodeBase, scope: Scope): bigint | number {
    const n = toNumber(v);
    if (n === undefined) this.fail(`The value '${interpolate(v)}' cannot be converted to Numeric.`, e, scope);
    return n;
  }

  private arithmetic(e: A.Arithmetic, scope: Scope): PValue {
    const left = this.evaluate(e.left, scope);
    const right = this.evaluate(e.right, scope);
    const op = e.operator;
    if ((isArr(left) || left instanceof PHash) && (op === "+" || op === "-" || op === "<<")) {
      return this.collectionOp(left, right, e, scope);
    }
    const a = this.numeric(left, e.left, scope);
    const b = this.numeric(right, e.right, scope);
    if (typeof a === "bigint" && typeof b === "bigint") {
      let r: bigint;
      switch (op) {
        case "+":
          r = a + b;
          break;
        case "-":
          r = a - b;
          break;
        case "*":
          r = a * b;
          break;
        case "/":
          if (b === 0n) this.fail("Division by 0", e.right, scope);
          r = a / b;
          if (a % b !== 0n && a < 0n !== b < 0n) r -= 1n;
          break;
        case "%":
          if (b === 0n) this.fail("Division by 0", e.right, scope);
          r = a % b;
          if (r !== 0n && r < 0n !== b < 0n) r += b;
          break;
        case "<<":
          r = b >= 0n ? a << b : a >> -b;
          break;
        case ">>":
          r = b >= 0n ? a >> b : a << -b;
          break;
      }
      if (r > MAX_INT || r < MIN_INT) {
        this.fail(
          `resulted in a value outside of Puppet Integer max range, got '${r < 0n ? "-" : ""}0x${(r < 0n ? -r : r).toString(16).toUpperCase()}'`,
          e,
          scope,
        );
      }
      return r;
    }
    const x = Number(a);
    const y = Number(b);
    if (op === "%") {
      this.fail(`Operator '%' is not applicable to a Float.`, e.left, scope);
    }
    if (op === "<<" || op === ">>")
      this.fail(`Operator '${op}' is not applicable to a Float.`, e.left, scope);
    let r: number;
    switch (op) {
      case "+":
        r = x + y;
        break;
      case "-":
        r = x - y;
        break;
      case "*":
        r = x * y;
        break;
      default:
        if (y === 0) this.fail("Division by 0", e.right, scope);
        r = x / y;
    }
    if (!Number.isFinite(r)) this.fail(`The result of the ${op} expression is Infinity`, e.left, scope);
    return r;
  }

  private collectionOp(left: PValue[] | PHash, right: PValue, e: A.Arithmetic, scope: Scope): PValue {
    const op = e.operator;
    if (isArr(left)) {
      if (op === "<<") return [...left, right];
      const items: PValue[] = isArr(right)
        ? right
        : right instanceof PHash
          ? [...right].map(([k, v]) => [k, v])
          : [right];
      if (op === "+") return [...left, ...items];
      return left.filter((x) => !items.some((y) => equals(x, y)));
    }
    if (op === "<<") this.fail(`Operator '<<' is not applicable to a Hash.`, e.left, scope);
    if (op === "+") {
      const h = left.clone();
      if (right instanceof PHash) for (const [k, v] of right) h.set(k, v);
      else if (isArr(right)) {
        if (right.every((x) => isArr(x))) for (const p of right as PValue[][]) h.set(p[0], p[1]);
        else {
          if (right.length % 2 !== 0) this.fail("odd number of arguments for Hash", e, scope);
          for (let i = 0; i < right.length; i += 2) h.set(right[i], right[i + 1]);
        }
      } else this.fail("Can only append Array or Hash to a Hash", e, scope);
      return h;
    }
    const h = left.clone();
    const keys: PValue[] = isArr(right) ? right : right instanceof PHash ? [...right.keys()] : [right];
    for (const k of keys) h.delete(k);
    return h;
  }

  // --- comparison and matching ----------------------------------------------------

  private comparison(e: A.Comparison, scope: Scope): PValue {
    const left = this.evaluate(e.left, scope);
    const right = this.evaluate(e.right, scope);
    const op = e.operator;
    if (op === "==") return equals(left, right);
    if (op === "!=") return !equals(left, right);
    if (isType(left)) {
      if (!isType(right)) return false;
      const eq = left.equals(right);
      switch (op) {
        case "<":
          return right.isAssignable(left) && !eq;
        case "<=":
          return right.isAssignable(left);
        case ">":
          return left.isAssignable(right) && !eq;
        default:
          return left.isAssignable(right);
      }
    }
    let c: number;
    try {
      c = compareValues(left, right);
    } catch (err) {
      this.fail(
        `Comparison of: ${describe(left)} ${op} ${describe(right)}, is not possible. Caused by '${(err as Error).message}'.`,
        e,
        scope,
      );
    }
    switch (op) {
      case "<":
        return c < 0;
      case "<=":
        return c <= 0;
      case ">":
        return c > 0;
      default:
        return c >= 0;
    }
  }

  private match(e: A.Match, scope: Scope): PValue {
    const left = this.evaluate(e.left, scope);
    const pattern = this.evaluate(e.right, scope);
    if (isType(pattern)) {
      let m: boolean;
      try {
        m = isInstance(pattern, left);
      } catch (err) {
        // A type that cannot answer (Init of a type without `new`): Puppet's runtime error.
        if (err instanceof TypeSystemError)
          this.fail(`Error while evaluating a '${e.operator}' expression, ${err.message}`, e, scope);
        throw err;
      }
      return e.operator === "=~" ? m : !m;
    }
    let re: PRegexp;
    if (pattern instanceof PRegexp) re = pattern;
    else if (typeof pattern === "string") {
      try {
        re = makeRegexp(pattern);
      } catch (err) {
        this.fail(
          `Can not convert right match operand to a regular expression. Caused by '${(err as Error).message}'.`,
          e.right,
          scope,
        );
      }
    } else
      this.fail(
        `Can not convert right match operand to a regular expression. Caused by 'no implicit conversion of ${typeLabel(pattern)} into String'.`,
        e.right,
        scope,
      );
    if (typeof left !== "string")
      this.fail(
        `Left match operand must result in a String value. Got ${article(typeLabel(left))}.`,
        e.left,
        scope,
      );
    const m = this.regexMatch(re, left, scope);
    return e.operator === "=~" ? m : !m;
  }

  regexMatch(re: PRegexp, s: string, scope: Scope | undefined): boolean {
    const m = re.re.exec(s);
    re.re.lastIndex = 0;
    if (m && scope) scope.pushMatch([...m]);
    return m !== null;
  }

  /** `a in b`: `b` the container. */
  includes(container: PValue, x: PValue, scope: Scope): boolean {
    if (typeof container === "string") {
      if (typeof x === "string") return container.toLowerCase().includes(x.toLowerCase());
      if (x instanceof PRegexp) return this.regexMatch(x, container, scope);
      if (typeof x === "bigint" || typeof x === "number") return equals(container, x);
      return false;
    }
    if (isArr(container)) {
      if (x instanceof PRegexp) {
        for (const el of container) if (typeof el === "string" && this.regexMatch(x, el, scope)) return true;
        return false;
      }
      if (typeof x === "string") return container.some((el) => this.isMatch(el, x, scope));
      if (isType(x)) return container.some((el) => isInstance(x, el));
      return container.some((el) => equals(el, x));
    }
    if (container instanceof PHash) return this.includes([...container.keys()], x, scope);
    return false;
  }

  /** Case/selector matching: `test` against an option value. */
  isMatch(test: PValue, option: PValue, scope: Scope | undefined): boolean {
    if (option === DEFAULT) return true;
    if (option instanceof PRegexp) return typeof test === "string" && this.regexMatch(option, test, scope);
    if (isType(option)) return isInstance(option, test);
    if (isArr(option)) {
      return (
        isArr(test) &&
        test.length === option.length &&
        option.every((p, i) => this.isMatch(test[i], p, scope))
      );
    }
    if (option instanceof PHash) {
      return test instanceof PHash && [...option].every(([k, p]) => this.isMatch(test.get(k), p, scope));
    }
    return equals(test, option);
  }

  private caseExpr(e: A.CaseExpression, scope: Scope): PValue {
    return this.guarded(scope, () => {
      const test = this.evaluate(e.test, scope);
      let theDefault: A.CaseOption | undefined;
      for (const o of e.options) {
        for (let v of o.values) {
          while (v.kind === "Paren") v = (v as A.UnaryExpression).expr;
          if (v.kind === "LiteralDefault") {
            theDefault = o;
            continue;
          }
          const matched =
            v.kind === "Unfold"
              ? this.unfoldValue(this.evaluate((v as A.UnaryExpression).expr, scope)).some((x) =>
                  this.isMatch(test, x, scope),
                )
              : this.isMatch(test, this.evaluate(v, scope), scope);
          if (matched) return this.evaluate(o.thenExpr, scope);
        }
      }
      return theDefault ? this.evaluate(theDefault.thenExpr, scope) : undefined;
    });
  }

  private selector(e: A.Selector, scope: Scope): PValue {
    return this.guarded(scope, () => {
      const test = this.evaluate(e.left, scope);
      let theDefault: A.SelectorEntry | undefined;
      for (const s of e.entries) {
        let m = s.match;
        while (m.kind === "Paren") m = (m as A.UnaryExpression).expr;
        if (m.kind === "LiteralDefault") {
          theDefault = s;
          continue;
        }
        const matched =
          m.kind === "Unfold"
            ? this.unfoldValue(this.evaluate((m as A.UnaryExpression).expr, scope)).some((x) =>
                this.isMatch(test, x, scope),
              )
            : this.isMatch(test, this.evaluate(m, scope), scope);
        if (matched) return this.evaluate(s.value, scope);
      }
      if (theDefault) return this.evaluate(theDefault.value, scope);
      return this.fail(
        `No matching entry for selector parameter with value '${interpolate(test)}'`,
        e.left,
        scope,
      );
    });
  }

  // --- access -----------------------------------------------------------------------

  private access(e: A.Access, scope: Scope): PValue {
    const left = this.evaluate(e.left, scope);
    // `$facts['os']`: a hash with one key (the most common access) is read
    // without a list of keys made for it.
    if (left instanceof PHash && e.keys.length === 1) {
      const k = e.keys[0] as A.Expression;
      if (k.kind !== "Unfold" && k.kind !== "Paren") return left.get(this.evaluate(k, scope));
    }
    // `Class[Foo]`: Puppet evaluates a type name key without failing on an unknown type (Class[] then refuses it).
    const keys =
      left instanceof PClassType && left.className === undefined
        ? e.keys.flatMap((k): PValue[] =>
            k.kind === "QualifiedReference"
              ? [this.c.resolveTypeReference(k as A.QualifiedReference, scope, true)]
              : this.unfold([k], scope),
          )
        : this.unfold(e.keys, scope);
    return this.accessValue(left, keys, e, scope);
  }

  accessValue(left: PValue, keys: PValue[], e: A.Access, scope: Scope): PValue {
    if (typeof left === "string") return this.accessString(left, keys, e, scope);
    if (isArr(left)) return this.accessArray(left, keys, e, scope);
    if (left instanceof PHash) {
      if (keys.length === 0) this.fail("Hash supports [] with one or more arguments. Got 0", e, scope);
      if (keys.length === 1) return left.get(keys[0]);
      return keys.filter((k) => left.has(k)).map((k) => left.get(k));
    }
    if (left instanceof PSensitive)
      return this.fail("Operator '[]' is not applicable to a Sensitive value.", e, scope);
    // `File['/x']`: a type without a title is parameterized (no reference made to look at it).
    const ref = left instanceof PResourceType && left.title === undefined ? undefined : asResourceRef(left);
    if (ref && ref.title !== undefined) return this.accessRef(ref, keys, e, scope);
    if (isType(left)) {
      let t: PType | PType[];
      try {
        t = parameterize(left, keys);
      } catch (err) {
        const at = err instanceof SliceTypeError ? (e.keys[err.index] ?? e) : e;
        this.fail((err as Error).message, at, scope);
      }
      // `Object[{...}]` is checked as it is made (its parent resolved), as
      // Puppet does, except a TypeSet's types (resolved with the TypeSet).
      if (t instanceof PUserObjectType && !this.c.inTypeSetDefinition) {
        try {
          t.validate();
        } catch (err) {
          if (!(err instanceof TypeSystemError)) throw err;
          this.fail(`Error while evaluating a '[]' expression, ${err.message}`, e, scope);
        }
      }
      return t;
    }
    return this.fail(`Operator '[]' is not applicable to ${article(typeLabel(left))}.`, e.left, scope);
  }

  private accessRef(ref: ResourceRef, keys: PValue[], e: A.Access, scope: Scope): PValue {
    // File['x']['param']: a parameter's value.
    if (keys.length !== 1 || typeof keys[0] !== "string")
      this.fail("A resource reference supports [] with one parameter name", e, scope);
    return this.c.resourceParameter(ref, keys[0] as string, e, scope);
  }

  private accessString(s: string, keys: PValue[], e: A.Access, scope: Scope): PValue {
    const chars = [...s];
    const [start, count] = this.sliceArgs(keys, chars.length, e, scope);
    if (start === undefined) return keys.length === 1 ? undefined : "";
    if (keys.length === 1) return chars[start] ?? undefined;
    return chars.slice(start, start + (count ?? 0)).join("");
  }

  private accessArray(a: PValue[], keys: PValue[], e: A.Access, scope: Scope): PValue {
    const [start, count] = this.sliceArgs(keys, a.length, e, scope);
    if (keys.length === 1) return start === undefined ? undefined : a[start];
    if (start === undefined) return [];
    return a.slice(start, start + (count ?? 0));
  }

  /** Puppet's `[start]`/`[start, count]` with negative indexes; start undefined when out of range. */
  private sliceArgs(
    keys: PValue[],
    len: number,
    e: A.Access,
    scope: Scope,
  ): [number | undefined, number | undefined] {
    if (keys.length < 1 || keys.length > 2)
      this.fail(`String supports [] with one or two arguments. Got ${keys.length}`, e, scope);
    const k0 = keys[0];
    if (typeof k0 !== "bigint")
      this.fail(`The value '${interpolate(k0)}' cannot be converted to Numeric.`, e, scope);
    let start = Number(k0);
    if (keys.length === 1) {
      if (start < 0) start += len;
      return start < 0 || start >= len ? [undefined, undefined] : [start, 1];
    }
    const k1 = keys[1];
    let count = typeof k1 === "bigint" ? Number(k1) : 1;
    if (start < 0) {
      if (start + len < 0) {
        count += start + len;
        start = 0;
      } else start += len;
    }
    if (count < 0) count = Math.max(0, len + count + 1 - start);
    if (start > len) return [undefined, undefined];
    return [start, count];
  }

  // --- calls ----------------------------------------------------------------------

  private callNamed(e: A.CallNamedFunction, scope: Scope): PValue {
    const f = e.functor;
    if (f.kind === "QualifiedReference" || (f.kind === "Access" && f.left.kind === "QualifiedReference")) {
      const type = this.evaluate(f, scope);
      return this.c.callFunction(
        "new",
        [type, ...this.unfold(e.args, scope)],
        this.lambdaOf(e.lambda, scope),
        e,
        scope,
      );
    }
    if (f.kind !== "QualifiedName")
      this.fail("Illegal expression. A function name is not valid here", f, scope);
    const args = this.unfold(e.args, scope);
    return this.c.callFunction(f.value, args, this.lambdaOf(e.lambda, scope), e, scope);
  }

  private callMethod(e: A.CallMethod, scope: Scope): PValue {
    const receiver = this.unfold([e.functor.left], scope);
    const name = e.functor.right.value;
    const rest = this.unfold(e.args, scope);
    if (receiver[0] instanceof PObject && receiver.length === 1) {
      let member: { value: PValue } | undefined;
      try {
        member = objectMember(receiver[0], name, rest);
      } catch (err) {
        // Puppet calls the member as a method: its errors are the call's.
        if (err instanceof TypeSystemError)
          this.fail(`Error while evaluating a Method call, ${err.message}`, e, scope);
        throw err;
      }
      if (member) return member.value;
    }
    const args = [...receiver, ...rest];
    return this.c.callFunction(name, args, this.lambdaOf(e.lambda, scope), e, scope);
  }

  private lambdaOf(l: A.Lambda | undefined, scope: Scope): PCallable | undefined {
    return l ? this.closure(l, scope) : undefined;
  }

  /** A lambda as a callable closing over `scope`. */
  closure(l: A.Lambda, scope: Scope): PCallable {
    const params = l.parameters;
    const required = params.filter((p) => p.value === undefined && !p.capturesRest).length;
    const rest = params.some((p) => p.capturesRest);
    // Only a typed `*$rest` can make the count of values the lambda takes wrong.
    const typedRest = params.some((p) => p.capturesRest && p.typeExpr !== undefined);
    if (!this.orderedLambdas.has(l) && this.checkParameterOrder(l, scope)) this.orderedLambdas.add(l);
    const ev = this;
    let type: PCallableType | undefined;
    return {
      kind: "callable",
      minArgs: required,
      maxArgs: rest ? Number.POSITIVE_INFINITY : params.length,
      callableType: () => {
        type ??= ev.lambdaType(l, scope);
        return type;
      },
      call(given: readonly PValue[]): PValue {
        // As Puppet's closures: arguments beyond the parameters are dropped
        // (the function calling the lambda checks the counts it accepts), a
        // missing one without a default is an error at that parameter.
        const args = !rest && given.length > params.length ? given.slice(0, params.length) : given;
        if (args.length < required) {
          const p = params[args.length] as A.Parameter;
          ev.fail(`Parameter $${p.name} is required but no value was given`, p, scope);
        }
        const vars = ev.bindParameters(params, args, scope, l, "block");
        if (typedRest) {
          type ??= ev.lambdaType(l, scope);
          ev.checkLambdaCount(l, type, vars);
        }
        const level = scope.level();
        scope.pushLocal(vars);
        try {
          return ev.evaluate(l.body, scope);
        } catch (err) {
          if (err instanceof NextSignal) return err.value;
          throw err;
        } finally {
          scope.popTo(level);
        }
      },
    };
  }

  /**
   * The number of values a lambda's parameters took (a `*$rest` counting
   * its values) against the counts its Callable type allows: Puppet checks
   * the call with that type (`Array[String, 2] *$r` needs 2 at least).
   */
  checkLambdaCount(l: A.Lambda, type: PCallableType, vars: ReadonlyMap<string, PValue>): void {
    let n = 0;
    for (const p of l.parameters) {
      const v = vars.get(p.name);
      n += p.capturesRest && isArr(v) ? v.length : 1;
    }
    const size = type.paramTypes?.sizeType;
    const min = Number(size?.from ?? 0n);
    const max = size?.to === undefined ? Number.POSITIVE_INFINITY : Number(size.to);
    if (n >= min && n <= max) return;
    // Puppet's CountMismatch wording.
    let range = `between ${min} and ${max}`;
    if (min === max) range = String(min);
    else if (min === 0) range = max === Number.POSITIVE_INFINITY ? "unlimited" : `at most ${max}`;
    else if (max === Number.POSITIVE_INFINITY) range = `at least ${min}`;
    const one = (min === 1 && (max === 1 || max === Number.POSITIVE_INFINITY)) || (min === 0 && max === 1);
    throw new Error(`block expects ${range} argument${one ? "" : "s"}, got ${n === 0 ? "none" : n}`);
  }

  /** Lambdas whose parameter order is checked (once each). */
  private readonly orderedLambdas = new WeakSet<A.Lambda>();

  /**
   * A lambda's required parameter after an optional one is an error where
   * the lambda is given to a function: Puppet's dispatch makes the
   * lambda's Callable type, which refuses it. Whether the answer holds for
   * every call (not when a typed `*$rest` follows an optional parameter:
   * `Array[T, 1] *$r` is required, which its type, evaluated here, tells).
   */
  private checkParameterOrder(l: A.Lambda, scope: Scope): boolean {
    let optional = false;
    for (const p of l.parameters) {
      if (p.capturesRest && p.typeExpr !== undefined && optional) {
        this.lambdaType(l, scope);
        return false;
      }
      if (p.value !== undefined || p.capturesRest) optional = true;
      else if (optional)
        this.fail(`Parameter $${p.name} is required but appears after optional parameters`, p, scope);
    }
    return true;
  }

  /**
   * A lambda's Callable type, as Puppet's closures make it: each parameter's
   * type (Any when untyped; the element type of a typed `*$rest` array,
   * whose size gives the count), the counts summed, and the return type.
   */
  lambdaType(l: A.Lambda, scope: Scope): PCallableType {
    const types: PType[] = [];
    let from = 0n;
    let to: bigint | undefined = 0n;
    let optional = false;
    for (const p of l.parameters) {
      let t = p.typeExpr ? this.evaluate(p.typeExpr, scope) : ANY;
      if (!isType(t)) t = ANY;
      let range: [bigint, bigint | undefined] = p.value === undefined ? [1n, 1n] : [0n, 1n];
      if (p.capturesRest) {
        range = [0n, undefined];
        if (t instanceof PArrayType) {
          range = [t.sizeType?.from ?? 0n, t.sizeType ? t.sizeType.to : undefined];
          t = t.elementType;
        }
      }
      if (range[0] === 0n) optional = true;
      else if (optional)
        this.fail(`Parameter $${p.name} is required but appears after optional parameters`, p, scope);
      types.push(t);
      from += range[0];
      to = to === undefined || range[1] === undefined ? undefined : to + range[1];
    }
    const ret = l.returnType ? this.evaluate(l.returnType, scope) : undefined;
    return new PCallableType(
      new PTupleType(types, new PIntegerType(from, to)),
      undefined,
      isType(ret) ? ret : undefined,
    );
  }

  /** Binds call arguments to parameters (defaults evaluated in `scope`, types checked). */
  bindParameters(
    params: readonly A.Parameter[],
    args: readonly PValue[],
    scope: Scope,
    node: A.NodeBase,
    what: string,
  ): Map<string, PValue> {
    const vars = new Map<string, PValue>();
    const level = scope.level();
    try {
      params.forEach((p, i) => {
        let v: PValue;
        if (p.capturesRest) {
          if (i >= args.length && p.value) {
            scope.pushLocal(vars);
            const d = this.evaluate(p.value, scope);
            v = isArr(d) ? d : [d];
          } else v = args.slice(i);
        } else if (i < args.length) v = args[i];
        else if (p.value) {
          scope.pushLocal(vars);
          v = this.evaluate(p.value, scope);
        } else {
          this.fail(`${what} expects ${params.length} arguments, got ${args.length}`, node, scope);
        }
        if (p.typeExpr) {
          let t = this.evaluate(p.typeExpr, scope);
          // A lambda's `Array[T, n] *$rest` takes arguments of type T (their
          // count is checked with the lambda's others: see closure()).
          const each = what === "block" && p.capturesRest && t instanceof PArrayType;
          if (each) t = (t as PArrayType).elementType;
          const whole =
            !each && (!p.capturesRest || (isType(t) && (t.name === "Array" || t.name === "Tuple")));
          const values: PValue[] = !whole && isArr(v) ? v : [v];
          for (const x of values) {
            if (isType(t) && !isInstance(t, x)) {
              const message = describeMismatch(`${what} parameter '${p.name}'`, t, x);
              // A lambda's arguments are checked by the function calling it:
              // Puppet reports the mismatch as that call's error.
              if (what === "block") throw new Error(message);
              this.fail(message, node, scope);
            }
          }
        }
        vars.set(p.name, v);
      });
    } finally {
      scope.popTo(level);
    }
    return vars;
  }

  /** Evaluates a class/define/function body, ending early on `return`. */
  evaluateBody(body: A.Expression | undefined, scope: Scope): PValue {
    try {
      return this.evaluate(body, scope);
    } catch (err) {
      if (err instanceof ReturnSignal || err instanceof NextSignal) return err.value;
      throw err;
    }
  }
}

/** Puppet's arity text: "expects 1 argument", "expects at least 2 arguments", "expects between 1 and 2 arguments". */
export function expectsCount(min: number, max: number): string {
  const plural = (n: number) => (n === 1 ? "argument" : "arguments");
  if (min === max) return `expects ${min} ${plural(min)}`;
  if (max === Number.POSITIVE_INFINITY) return `expects at least ${min} ${plural(min)}`;
  return `expects between ${min} and ${max} arguments`;
}

function article(name: string): string {
  return /^[AEIOU]/.test(name) ? `an ${name}` : `a ${name}`;
}

function describe(v: PValue): string {
  if (typeof v === "string") return `'${v}'`;
  return interpolate(v);
}

function label(e: A.Expression): string {
  switch (e.kind) {
    case "Access":
      return "Access Expression";
    case "LiteralString":
      return "Literal String";
    default:
      return e.kind;
  }
}

export { inferType };
export type { ParamEntry, PType };
