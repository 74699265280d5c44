/**
 * The evaluator of the template's Ruby subset: statements append to the
 * output, `@x` reads Puppet's variables (nil when unset), `scope` is
 * Puppet's scope (`[]`, `lookupvar`, `call_function`, `function_x`), blocks
 * see and may assign the enclosing locals. Methods are in methods.ts.
 */
import { TemplateError } from "./errors.js";
import type { TemplateScope } from "./index.js";
import { callMethod } from "./methods.js";
import type { Block, Node, Param } from "./parser.js";
import { rubyRegexp } from "./regex.js";
import {
  className,
  fromPuppet,
  RClass,
  RHash,
  RRange,
  type RRegexp,
  RSpecial,
  RSymbol,
  type RValue,
  requal,
  toPuppet,
  toS,
  truthy,
} from "./ruby-values.js";

/** A block as methods call it. */
export interface BlockFn {
  /** Number of declared parameters (Hash#each yields a pair or key and value by it). */
  readonly arity: number;
  call(args: RValue[]): RValue;
}

class NextSignal {
  constructor(readonly value: RValue) {}
}
class BreakSignal {
  constructor(
    readonly value: RValue,
    readonly block: Block,
  ) {}
}

/** A Ruby exception raised by the template (`raise`) or by a method (Ruby's own errors). */
export class RubyError extends Error {
  constructor(
    message: string,
    readonly rubyClass = "RuntimeError",
  ) {
    super(message);
  }
}

class Env {
  readonly vars = new Map<string, RValue>();
  constructor(readonly parent: Env | null) {}
  lookup(name: string): Env | null {
    for (let e: Env | null = this; e; e = e.parent) if (e.vars.has(name)) return e;
    return null;
  }
  get(name: string): RValue {
    return this.lookup(name)?.vars.get(name) ?? null;
  }
  set(name: string, v: RValue): void {
    (this.lookup(name) ?? this).vars.set(name, v);
  }
}

const CLASSES = new Set([
  "Array",
  "Hash",
  "String",
  "Integer",
  "Fixnum",
  "Bignum",
  "Float",
  "Numeric",
  "Symbol",
  "NilClass",
  "TrueClass",
  "FalseClass",
  "Regexp",
  "Range",
  "Object",
  "Comparable",
  "Enumerable",
  "File",
]);

export class Interp {
  out = "";
  line = 0;
  private readonly ivars = new Map<string, RValue>();
  /** The last match (`$~`), for `$1`... */
  lastMatch: RegExpExecArray | null = null;
  /** The blocks being run, innermost last (for `break`). */
  readonly blocks: Block[] = [];

  constructor(
    readonly file: string,
    readonly scope: TemplateScope,
  ) {}

  fail(message: string, line = this.line): never {
    throw new TemplateError(message, this.file, line);
  }

  run(body: Node[]): string {
    const env = new Env(null);
    try {
      this.stmts(body, env);
    } catch (e) {
      if (e instanceof NextSignal || e instanceof BreakSignal)
        this.fail("Invalid next or break outside a block");
      if (e instanceof RubyError) this.fail(e.message);
      throw e;
    }
    return this.out;
  }

  private stmts(body: Node[], env: Env): RValue {
    let v: RValue = null;
    for (const n of body) v = this.eval(n, env);
    return v;
  }

  /** Puppet's variable `name` as `@name` sees it. */
  ivar(name: string): RValue {
    if (this.ivars.has(name)) return this.ivars.get(name) ?? null;
    const v = this.scope.hasVariable(name) ? fromPuppet(this.scope.lookupVariable(name)) : null;
    this.ivars.set(name, v);
    return v;
  }

  /** `scope['x']`, `scope.lookupvar('x')`: `::x` is the top scope's x. */
  lookupvar(name: string): RValue {
    if (name.startsWith("::") && !this.scope.hasVariable(name))
      return fromPuppet(this.scope.lookupVariable(name.slice(2)));
    return fromPuppet(this.scope.lookupVariable(name));
  }

  /** `scope.call_function(name, args)`: the arguments splatted as Ruby splats them (a Hash gives its pairs). */
  callFunction(name: string, args: RValue): RValue {
    let list: RValue[];
    if (args === null) list = [];
    else if (Array.isArray(args)) list = args;
    else if (args instanceof RHash) list = args.entries();
    else list = [args];
    return fromPuppet(this.scope.callFunction(name, list.map(toPuppet)));
  }

  eval(n: Node, env: Env): RValue {
    this.line = n.line;
    switch (n.k) {
      case "text":
        this.out += n.s;
        return null;
      case "out": {
        const v = n.e === null ? null : this.eval(n.e, env);
        this.out += toS(v);
        return null;
      }
      case "nil":
        return null;
      case "self":
        return new RSpecial("template");
      case "bool":
        return n.v;
      case "int":
        return n.v;
      case "float":
        return n.v;
      case "str":
        return this.interpolate(n.parts, env);
      case "xstr":
        return this.fail("backticks are not in the ERB subset");
      case "sym":
        return RSymbol.of(n.name);
      case "dsym":
        return RSymbol.of(this.interpolate(n.parts, env));
      case "regex":
        return rubyRegexp(this.interpolate(n.parts, env), n.flags, this.file, n.line);
      case "array":
        return this.list(n.items, env);
      case "hash": {
        const h = new RHash();
        for (const [k, v] of n.pairs) {
          const key = this.eval(k, env);
          h.set(typeof key === "string" ? key : key, this.eval(v, env));
        }
        return h;
      }
      case "range":
        return new RRange(this.eval(n.from, env), this.eval(n.to, env), n.excl);
      case "ivar":
        return this.ivar(n.name);
      case "gvar":
        return this.gvar(n.name);
      case "lvar":
        return env.get(n.name);
      case "const":
        return this.constant(n.name, n.scope ? this.eval(n.scope, env) : null);
      case "call":
        return this.call(n, env);
      case "and": {
        const l = this.eval(n.l, env);
        return truthy(l) ? this.eval(n.r, env) : l;
      }
      case "or": {
        const l = this.eval(n.l, env);
        return truthy(l) ? l : this.eval(n.r, env);
      }
      case "not":
        return !truthy(this.eval(n.e, env));
      case "if":
        return truthy(this.eval(n.cond, env)) ? this.stmts(n.yes, env) : this.stmts(n.no, env);
      case "case":
        return this.caseOf(n, env);
      case "while": {
        let guard = 0;
        while (truthy(this.eval(n.cond, env)) !== n.until) {
          if (++guard > 1_000_000) this.fail("loop ran more than a million times");
          try {
            this.stmts(n.body, env);
          } catch (e) {
            if (e instanceof NextSignal) continue;
            throw e;
          }
        }
        return null;
      }
      case "for": {
        const it = this.eval(n.iter, env);
        const items = Array.isArray(it) ? [...it] : (callMethod(this, it, "to_a", [], null) as RValue[]);
        for (const x of items) {
          bindParams(n.vars, [x], env);
          try {
            this.stmts(n.body, env);
          } catch (e) {
            if (e instanceof NextSignal) continue;
            throw e;
          }
        }
        return it;
      }
      case "assign": {
        const v = this.eval(n.value, env);
        this.assign(n.target, v, env);
        return v;
      }
      case "opassign":
        return this.opAssign(n, env);
      case "masgn": {
        const v = this.eval(n.value, env);
        const vals = Array.isArray(v) ? v : [v];
        for (const [i, t] of n.targets.entries()) this.assign(t, vals[i] ?? null, env);
        return v;
      }
      case "defined":
        return this.defined(n.e, env);
      case "seq":
        return this.stmts(n.body, env);
      case "jump": {
        const v = n.e ? this.eval(n.e, env) : null;
        if (n.kind === "next") throw new NextSignal(v);
        if (n.kind === "break") throw new BreakSignal(v, currentBlock(this));
        return this.fail("'return' is not in the ERB subset");
      }
      case "splat":
        return this.eval(n.e, env);
      case "blockpass":
        return this.fail("'&' here is not in the ERB subset");
      case "begin":
        return this.begin(n, env);
    }
  }

  private begin(n: Extract<Node, { k: "begin" }>, env: Env): RValue {
    try {
      return this.stmts(n.body, env);
    } catch (e) {
      // Ruby's rescue catches StandardError: Ruby's own errors and the functions' errors.
      if (!(e instanceof Error) || n.rescue === null) throw e;
      if (n.rescueVar) env.set(n.rescueVar, e.message);
      return this.stmts(n.rescue, env);
    } finally {
      if (n.ensure) this.stmts(n.ensure, env);
    }
  }

  private interpolate(parts: (string | Node)[], env: Env): string {
    let s = "";
    for (const p of parts) s += typeof p === "string" ? p : toS(this.eval(p, env));
    return s;
  }

  private list(items: Node[], env: Env): RValue[] {
    const out: RValue[] = [];
    for (const it of items) {
      if (it.k === "splat") {
        const v = this.eval(it.e, env);
        if (Array.isArray(v)) out.push(...v);
        else if (v instanceof RHash) out.push(...v.entries());
        else if (v instanceof RRange) out.push(...(callMethod(this, v, "to_a", [], null) as RValue[]));
        else if (v !== null) out.push(v);
      } else out.push(this.eval(it, env));
    }
    return out;
  }

  private gvar(name: string): RValue {
    if (/^[1-9]$/.test(name)) return this.lastMatch?.[Number(name)] ?? null;
    if (name === "~") return this.lastMatch ? [...this.lastMatch].map((x) => x ?? null) : null;
    return this.fail(`global variable $${name} is not in the ERB subset`);
  }

  private constant(name: string, scope: RValue): RValue {
    if (scope !== null) return this.fail(`constant ${toS(scope)}::${name} is not in the ERB subset`);
    if (CLASSES.has(name)) return new RClass(name === "Fixnum" || name === "Bignum" ? "Integer" : name);
    return this.fail(`uninitialized constant ${name} (not in the ERB subset)`);
  }

  private caseOf(n: Extract<Node, { k: "case" }>, env: Env): RValue {
    const subj = n.subj ? this.eval(n.subj, env) : null;
    for (const w of n.whens) {
      for (const c of w.conds) {
        const vals = c.k === "splat" ? this.list([c], env) : [this.eval(c, env)];
        for (const v of vals) {
          const hit = n.subj ? truthy(callMethod(this, v, "===", [subj], null)) : truthy(v);
          if (hit) return this.stmts(w.body, env);
        }
      }
    }
    return this.stmts(n.else, env);
  }

  private defined(e: Node, env: Env): RValue {
    switch (e.k) {
      case "ivar":
        return this.ivars.has(e.name) || this.scope.hasVariable(e.name) ? "instance-variable" : null;
      case "lvar":
        return env.lookup(e.name) ? "local-variable" : null;
      case "const":
        return CLASSES.has(e.name) ? "expression" : null;
      case "call":
        if (e.recv === null && e.args.length === 0) return null;
        try {
          this.eval(e, env);
          return "method";
        } catch {
          return null;
        }
      default:
        return "expression";
    }
  }

  private assign(t: Node, v: RValue, env: Env): void {
    if (t.k === "lvar") env.set(t.name, v);
    else if (t.k === "ivar") this.ivars.set(t.name, v);
    else if (t.k === "call" && t.name === "[]" && t.recv) {
      const recv = this.eval(t.recv, env);
      const args = this.list(t.args, env);
      callMethod(this, recv, "[]=", [...args, v], null);
    } else if (t.k === "call" && t.recv) {
      this.fail(`assignment to ${t.name} is not in the ERB subset`);
    } else this.fail("cannot assign to this expression");
  }

  private opAssign(n: Extract<Node, { k: "opassign" }>, env: Env): RValue {
    const target = n.target;
    const cur = target.k === "lvar" && !env.lookup(target.name) ? null : this.eval(target, env);
    let v: RValue;
    if (n.op === "||") {
      if (truthy(cur)) return cur;
      v = this.eval(n.value, env);
    } else if (n.op === "&&") {
      if (!truthy(cur)) return cur;
      v = this.eval(n.value, env);
    } else v = this.binop(cur, n.op, this.eval(n.value, env));
    this.assign(target, v, env);
    return v;
  }

  binop(l: RValue, op: string, r: RValue): RValue {
    return callMethod(this, l, op, [r], null);
  }

  private call(n: Extract<Node, { k: "call" }>, env: Env): RValue {
    if (n.recv === null) return this.selfCall(n, env);
    const recv = this.eval(n.recv, env);
    if (n.safe && recv === null) return null;
    const args = this.list(
      n.args.filter((a) => a.k !== "blockpass"),
      env,
    );
    const line = n.line;
    const block = this.blockArg(n, env);
    this.line = line;
    let result: RValue;
    try {
      result = callMethod(this, recv, n.name, args, block);
    } catch (e) {
      if (e instanceof BreakSignal && n.block && e.block === n.block) return e.value;
      throw e;
    }
    // Ruby strings are mutable: `s << x`, `s.gsub!(...)` change the variable's string.
    if (
      typeof recv === "string" &&
      (n.name === "<<" || n.name === "concat" || n.name === "prepend" || n.name.endsWith("!"))
    ) {
      const changed = n.name.endsWith("!")
        ? callMethod(this, recv, n.name.slice(0, -1), args, block)
        : result;
      const root = chainRoot(n.recv);
      if (typeof changed === "string" && root) this.assign(root, changed, env);
      if (n.name.endsWith("!")) return changed === recv ? null : changed;
    }
    return result;
  }

  private blockArg(n: Extract<Node, { k: "call" }>, env: Env): BlockFn | null {
    const bp = n.args.find((a) => a.k === "blockpass");
    if (bp && bp.k === "blockpass") {
      const v = this.eval(bp.e, env);
      if (!(v instanceof RSymbol)) return this.fail("only '&:method' blocks are in the ERB subset");
      return { arity: 1, call: (args) => callMethod(this, args[0] ?? null, v.name, args.slice(1), null) };
    }
    const b = n.block;
    if (!b) return null;
    return {
      arity: b.params.length,
      call: (args) => {
        const benv = new Env(env);
        bindParams(b.params, args, benv);
        this.blocks.push(b);
        try {
          return this.stmts(b.body, benv);
        } catch (e) {
          if (e instanceof NextSignal) return e.value;
          throw e;
        } finally {
          this.blocks.pop();
        }
      },
    };
  }

  /** A call without a receiver: a method of the template wrapper or a Kernel function. */
  private selfCall(n: Extract<Node, { k: "call" }>, env: Env): RValue {
    const args = this.list(
      n.args.filter((a) => a.k !== "blockpass"),
      env,
    );
    switch (n.name) {
      case "scope":
        return new RSpecial("scope");
      case "has_variable?":
        return this.ivarTruthy(toS(args[0] ?? null));
      case "file":
        return this.file;
      case "Integer":
      case "Float":
      case "String":
      case "Array":
        return callMethod(this, new RSpecial("template"), n.name, args, null);
      case "raise":
      case "fail":
        throw new RubyError(args.length > 0 ? toS(args[args.length - 1] ?? null) : "unhandled exception");
      case "format":
      case "sprintf":
        return callMethod(this, toS(args[0] ?? null), "%", [args.slice(1)], null);
      case "lambda":
      case "proc":
      case "loop":
      case "puts":
      case "print":
      case "p":
      case "require":
      case "eval":
      case "binding":
      case "system":
      case "exit":
        return this.fail(`'${n.name}' is not in the ERB subset`);
      case "classes":
      case "all_tags":
      case "tags":
        return this.fail(`'${n.name}' is not supported in tend's templates`);
      default:
        if (env.lookup(n.name) && n.args.length === 0) return env.get(n.name);
        return this.fail(`undefined local variable or method \`${n.name}' for ${this.file}`);
    }
  }

  private ivarTruthy(name: string): boolean {
    return this.lookupvar(name) !== null;
  }

  /** `is_a?` against a class value. */
  isA(v: RValue, cls: RValue): boolean {
    if (!(cls instanceof RClass)) this.fail("class or module required");
    const c = className(v);
    switch (cls.name) {
      case "Object":
        return true;
      case "Numeric":
        return c === "Integer" || c === "Float";
      case "Comparable":
        return c === "Integer" || c === "Float" || c === "String";
      case "Enumerable":
        return c === "Array" || c === "Hash" || c === "Range";
      default:
        return c === cls.name;
    }
  }

  equal(a: RValue, b: RValue): boolean {
    return requal(a, b);
  }

  regexpFromString(s: string): RRegexp {
    return rubyRegexp(s, "", this.file, this.line);
  }
}

/** The variable a chain of `<<` on a string appends to (`out << a << b`), if any. */
function chainRoot(n: Node): Node | null {
  let r = n;
  while (r.k === "call" && r.name === "<<" && r.recv) r = r.recv;
  if (r.k === "lvar" || r.k === "ivar" || (r.k === "call" && r.name === "[]")) return r;
  return null;
}

/** The innermost block being run (for `break`). */
function currentBlock(it: Interp): Block {
  const b = it.blocks[it.blocks.length - 1];
  if (!b) return it.fail("break outside a block");
  return b;
}

/** Binds block arguments as Ruby does: one array argument spreads over several parameters. */
function bindParams(params: Param[], args: RValue[], env: Env): void {
  let vals = args;
  if (params.length > 1 && args.length === 1 && Array.isArray(args[0])) vals = args[0];
  let i = 0;
  for (const p of params) {
    if (typeof p === "string") {
      if (p.startsWith("*")) {
        env.vars.set(p.slice(1), vals.slice(i));
        i = vals.length;
      } else env.vars.set(p, vals[i++] ?? null);
    } else {
      const v = vals[i++] ?? null;
      bindParams(p, [Array.isArray(v) ? v : [v]], env);
      if (p.length === 1) env.vars.set(p[0] as string, Array.isArray(v) ? (v[0] ?? null) : v);
    }
  }
}
