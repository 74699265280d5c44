/**
 * The functions the compiler provides itself because they touch the catalog
 * or the scope: include, contain, require, realize, defined, tag, tagged,
 * template, inline_template, epp, inline_epp, create_resources, fail and the
 * logging functions; plus fallbacks for a few pure ones (new, type,
 * assert_type, call, file, getvar) used when no other table has them.
 */
import { isArr } from "./arr.js";
import { readFileSync } from "node:fs";
import type * as A from "../lang/ast.js";
import { parsePuppet } from "../lang/parser.js";
import { renderErb } from "../erb/index.js";
import type { Compiler } from "./compiler.js";
import { BreakSignal, PuppetEvalError, NextSignal, ReturnSignal } from "./errors.js";
import { interpolate, isTrue, typeLabel } from "./evaluator.js";
import type { PuppetFunction } from "./functions/registry.js";
import type { CResource, ParamEntry } from "./resource.js";
import type { Scope } from "./scope.js";
import {
  ResourceRef,
  asResourceRef,
  capitalizeTypeName,
  describeMismatch,
  inferType,
  isInstance,
  newInstance,
} from "./typing.js";
import { dispatcher, p } from "./functions/core/dispatch.js";
import {
  type HieraFunctionName,
  makeHieraFunction,
  makeLookupFunction,
  NO_HIERA,
} from "../hiera/function.js";
import { T } from "./functions/core/spec.js";
import { PCallableType, type PType, PTupleType, PTypeType, inferSet, parseTypeString } from "./types.js";
import { type PCallable, PHash, PSensitive, type PValue, isType } from "./values.js";

export type CompilerFunction = (
  c: Compiler,
  scope: Scope,
  args: PValue[],
  block: PCallable | undefined,
  node: A.NodeBase,
) => PValue;

function classNames(args: PValue[], fname: string): string[] {
  const out: string[] = [];
  for (const a of args.flat(Number.POSITIVE_INFINITY as 1) as PValue[]) {
    if (typeof a === "string") {
      if (a === "")
        throw new Error(
          `'${fname}' parameter 'names' expects a value of type Class, Resource, String, or Array, got ''`,
        );
      out.push(a.replace(/^::/, ""));
      continue;
    }
    const ref = asResourceRef(a);
    if (ref?.typeName === "Class" && ref.title !== undefined) out.push(ref.title);
    else if (ref && ref.typeName !== "Class" && ref.title === undefined) out.push(ref.typeName.toLowerCase());
    else if (ref && ref.typeName === "Class") throw new Error("Cannot use an unspecific Class[] Type");
    else if (a === undefined) throw new Error("Cannot use undef as a class name");
    else
      throw new Error(
        `'${fname}' parameter 'names' expects a value of type Class, Resource, String, or Array, got ${typeLabel(a)}`,
      );
  }
  return out;
}

/** Declares every class first, then evaluates the new ones (Puppet's evaluate_classes). */
function declareAll(c: Compiler, scope: Scope, names: string[], node: A.NodeBase): CResource[] {
  const rs = names.map((n) => c.declareClass(n, scope, undefined, node, true));
  for (const r of rs) c.evaluateResource(r);
  return rs;
}

const include: CompilerFunction = (c, scope, args, _b, node) => {
  const names = classNames(args, "include");
  declareAll(c, scope, names, node);
  return names.map(classRef);
};

function classRef(name: string): PValue {
  return new ResourceRef("Class", name.toLowerCase().replace(/^::/, "")).toType();
}

const contain: CompilerFunction = (c, scope, args, _b, node) => {
  const names = classNames(args, "contain");
  for (const r of declareAll(c, scope, names, node)) {
    if (scope.resource && r !== scope.resource) c.catalog.addEdge(scope.resource, r);
  }
  return names.map(classRef);
};

const requireFn: CompilerFunction = (c, scope, args, _b, node) => {
  const names = classNames(args, "require");
  for (const r of declareAll(c, scope, names, node)) {
    const holder = scope.resource;
    if (holder) {
      const cur = holder.get("require");
      const list: PValue[] = cur === undefined ? [] : isArr(cur) ? [...cur] : [cur];
      list.push(r.toRef().toType());
      holder.set({ name: "require", value: list, source: scope.source });
    }
  }
  return names.map(classRef);
};

const realize: CompilerFunction = (c, scope, args) => {
  const refs: ResourceRef[] = [];
  for (const a of args.flat(Number.POSITIVE_INFINITY as 1) as PValue[]) {
    const ref = asResourceRef(a);
    if (ref && ref.title !== undefined) refs.push(ref);
    else if (typeof a === "string") {
      const m = /^([\w:]+)\[(.*)\]$/s.exec(a);
      if (m) refs.push(new ResourceRef(capitalizeTypeName((m[1] as string).toLowerCase()), m[2] as string));
    }
  }
  c.realize(refs, scope);
  return undefined;
};

const defined: CompilerFunction = (c, scope, args) => {
  if (args.length === 0) throw new Error("'defined' expects at least 1 argument, got none");
  return args.some((a) => {
    if (typeof a === "string") {
      if (a.startsWith("$")) return scope.lookup(a.slice(1)).found;
      const n = a.toLowerCase().replace(/^::/, "");
      return c.findClass(n) !== undefined || c.resourceTypeKind(n) !== undefined;
    }
    const ref = asResourceRef(a);
    if (ref) {
      if (ref.typeName === "Class") {
        if (ref.title === undefined) return true;
        return c.catalog.find("Class", capitalizeTypeName(ref.title)) !== undefined;
      }
      if (ref.typeName === "Resource") return true;
      if (ref.title === undefined) return c.resourceTypeKind(ref.typeName.toLowerCase()) !== undefined;
      return c.catalog.findRef(ref.refString()) !== undefined;
    }
    if (isType(a)) return true;
    throw new Error(`'defined' parameter 'args' expects a value of type String or Type, got ${typeLabel(a)}`);
  });
};

const tag: CompilerFunction = (_c, scope, args) => {
  const r = scope.resource;
  if (r) r.tagWith(args.flat(Number.POSITIVE_INFINITY as 1) as PValue[]);
  return undefined;
};

const tagged: CompilerFunction = (_c, scope, args) => {
  const wanted = (args.flat(Number.POSITIVE_INFINITY as 1) as PValue[]).map((t) => String(t).toLowerCase());
  for (let r = scope.resource, s: Scope | undefined = scope; r; ) {
    if (wanted.some((t) => r?.tags.has(t))) return true;
    s = r.scope;
    const next: typeof r | undefined = s?.resource;
    if (next === r) break;
    r = next;
  }
  return false;
};

function templateScope(c: Compiler, scope: Scope, node: A.NodeBase) {
  return {
    lookupVariable: (n: string) => scope.lookup(n).value,
    hasVariable: (n: string) => scope.lookup(n).found,
    callFunction: (n: string, a: readonly PValue[]) => c.callFunction(n, [...a], undefined, node, scope),
  };
}

const template: CompilerFunction = (c, scope, args, _b, node) => {
  let out = "";
  for (const a of args) {
    const ref = String(a);
    const file = c.input.autoloader.moduleFile("templates", ref);
    if (!file) throw new Error(`Could not find template '${ref}'`);
    out += renderErb(readFileSync(file, "utf8"), file, templateScope(c, scope, node));
  }
  return out;
};

const inlineTemplate: CompilerFunction = (c, scope, args, _b, node) =>
  renderErb(args.map((a) => String(a)).join(""), "inline template", templateScope(c, scope, node));

function renderEpp(
  c: Compiler,
  text: string,
  file: string,
  params: PValue,
  node: A.NodeBase,
  caller: Scope,
): PValue {
  const result = parsePuppet(text, { file, epp: true });
  if (!result.ok) {
    const pos = result.error.offset === undefined ? undefined : result.locator.position(result.error.offset);
    throw new PuppetEvalError(result.error.message, file || undefined, pos?.line, pos?.column);
  }
  const program = result.program;
  const lambda = program.body.kind === "Lambda" ? program.body : undefined;
  const epp = lambda?.body?.kind === "Epp" ? lambda.body : undefined;
  const scope = c.topScope.newScope(undefined, caller.resource, program.locator);
  const given = params instanceof PHash ? params : new PHash();
  if (epp?.parametersSpecified && lambda) {
    const names = new Set(lambda.parameters.map((p) => p.name));
    for (const k of given.keys()) {
      if (!names.has(String(k))) throw new Error(`Too many arguments: ${given.size} for ${names.size}`);
    }
    for (const p of lambda.parameters) {
      let v: PValue;
      if (given.has(p.name)) v = given.get(p.name);
      else if (p.value) v = c.ev.evaluate(p.value, scope);
      else throw new Error(`expects a value for parameter '${p.name}'`);
      if (p.typeExpr) {
        const t = c.ev.evaluate(p.typeExpr, scope);
        if (isType(t) && !isInstance(t, v)) throw new Error(describeMismatch(`parameter '${p.name}'`, t, v));
      }
      scope.setVar(p.name, v);
    }
  } else {
    for (const [k, v] of given) scope.setVar(String(k), v);
  }
  void node;
  return epp ? c.ev.evaluate(epp, scope) : "";
}

const epp: CompilerFunction = (c, scope, args, _b, node) => {
  const ref = String(args[0]);
  const file = c.input.autoloader.moduleFile("templates", ref);
  if (!file) throw new Error(`Could not find template '${ref}'`);
  return renderEpp(c, readFileSync(file, "utf8"), file, args[1], node, scope);
};

const inlineEpp: CompilerFunction = (c, scope, args, _b, node) =>
  renderEpp(c, String(args[0] ?? ""), "", args[1], node, scope);

const createResources: CompilerFunction = (c, scope, args, _b, node) => {
  const [typeArg, instances, defaults] = args;
  if (typeof typeArg !== "string" && !asResourceRef(typeArg))
    throw new Error("create_resources(): first argument must be a type name");
  const typeName = (typeof typeArg === "string" ? typeArg : (asResourceRef(typeArg) as ResourceRef).typeName)
    .toLowerCase()
    .replace(/^@+/, "");
  const form =
    typeof typeArg === "string" && typeArg.startsWith("@@")
      ? "exported"
      : typeof typeArg === "string" && typeArg.startsWith("@")
        ? "virtual"
        : "regular";
  if (!(instances instanceof PHash))
    throw new Error(`create_resources(): second argument must be a Hash, got ${typeLabel(instances)}`);
  const locator = scope.locator;
  const pos = locator?.position(node.offset);
  const base = {
    source: scope.source,
    ...(locator?.file ? { file: locator.file } : {}),
    ...(pos ? { line: pos.line } : {}),
  };
  for (const [title, params] of instances) {
    const entries: ParamEntry[] = [];
    const merged = new PHash();
    if (defaults instanceof PHash) for (const [k, v] of defaults) merged.set(k, v);
    if (params instanceof PHash) for (const [k, v] of params) merged.set(k, v);
    for (const [k, v] of merged) entries.push({ name: String(k), value: v, ...base });
    const fake: A.Resource = {
      kind: "Resource",
      typeName: { kind: "QualifiedName", value: typeName, offset: node.offset, length: node.length },
      bodies: [],
      form,
      offset: node.offset,
      length: node.length,
    };
    const body: A.ResourceBody = {
      kind: "ResourceBody",
      title: { kind: "Nop", offset: node.offset, length: 0 },
      operations: [],
      offset: node.offset,
      length: node.length,
    };
    c.createResourceFromFunction(fake, body, scope, typeName, String(title), entries);
  }
  return undefined;
};

const fail: CompilerFunction = (_c, _scope, args) => {
  throw new Error(args.map(interpolate).join(" "));
};

function logger(
  level: "debug" | "info" | "notice" | "warning" | "err" | "alert" | "emerg" | "crit",
): CompilerFunction {
  return (c, scope, args) => {
    const text = args
      .map((a) => (a instanceof PSensitive ? "Sensitive [value redacted]" : interpolate(a)))
      .join(" ");
    const lvl = level === "alert" || level === "emerg" || level === "crit" ? "err" : level;
    c.log(lvl, text, scope.toString());
    return undefined;
  };
}

const file: CompilerFunction = (c, _scope, args) => {
  for (const a of args) {
    const ref = String(a);
    const path = ref.startsWith("/") ? ref : c.input.autoloader.moduleFile("files", ref);
    if (path) {
      try {
        return readFileSync(path, "utf8");
      } catch {
        // try the next
      }
    }
  }
  throw new Error(`Could not find any files from ${args.map((a) => String(a)).join(", ")}`);
};

function signal(kind: "break" | "next" | "return"): CompilerFunction {
  return (_c, scope, args, _b, node) => {
    const pos = scope.locator?.position(node.offset);
    if (kind === "next") throw new NextSignal(args[0], scope.locator?.file || undefined, pos?.line);
    if (kind === "return") throw new ReturnSignal(args[0], scope.locator?.file || undefined, pos?.line);
    throw new BreakSignal(scope.locator?.file || undefined, pos?.line);
  };
}

export const compilerFunctions: ReadonlyMap<string, CompilerFunction> = new Map<string, CompilerFunction>([
  ["include", include],
  ["contain", contain],
  ["require", requireFn],
  ["realize", realize],
  ["defined", defined],
  ["tag", tag],
  ["tagged", tagged],
  ["template", template],
  ["inline_template", inlineTemplate],
  ["epp", epp],
  ["inline_epp", inlineEpp],
  ["create_resources", createResources],
  ["fail", fail],
  ["debug", logger("debug")],
  ["info", logger("info")],
  ["notice", logger("notice")],
  ["warning", logger("warning")],
  ["err", logger("err")],
  ["alert", logger("alert")],
  ["crit", logger("crit")],
  ["emerg", logger("emerg")],
  ["file", file],
  ["break", signal("break")],
  ["next", signal("next")],
  ["return", signal("return")],
]);

const fbNew: PuppetFunction = (_ctx, args, block) => {
  const [t, ...rest] = args;
  if (!isType(t)) throw new Error(`'new' parameter 'type' expects a Type value, got ${typeLabel(t)}`);
  const v = newInstance(t, rest);
  return block ? block.call([v]) : v;
};

const fbType: PuppetFunction = (_ctx, args) => inferType(args[0]);

function assertType(t: PType, v: PValue, block: PCallable | undefined): PValue {
  if (isInstance(t, v)) return v;
  if (block) return block.call([t, inferSet(v)]);
  throw new Error(describeMismatch("assert_type():", t, v));
}

/** The block `assert_type` calls with the type and the value's type, when they do not match. */
const ASSERT_BLOCK = {
  name: "block",
  optional: true,
  label: "Callable[Type, Type]",
  type: new PCallableType(new PTupleType([new PTypeType(), new PTypeType()])),
};

const fbAssertType: PuppetFunction = dispatcher("assert_type", [
  {
    params: [p("type", T.type), p("value", T.any)],
    block: ASSERT_BLOCK,
    call: (_c, [t, v], b) => assertType(t as PType, v, b),
  },
  {
    params: [p("type_string", T.string), p("value", T.any)],
    block: ASSERT_BLOCK,
    call: (_c, [s, v], b) => assertType(parseTypeString(s as string), v, b),
  },
]);

const fbCall: PuppetFunction = (ctx, args, block) => ctx.callFunction(String(args[0]), args.slice(1), block);

const fbGetvar: PuppetFunction = (ctx, args) => {
  const v = ctx.lookupVariable(String(args[0]).replace(/^\$/, ""));
  return v === undefined ? args[1] : v;
};

export const fallbackFunctions: ReadonlyMap<string, PuppetFunction> = new Map<string, PuppetFunction>([
  ["new", fbNew],
  ["type", fbType],
  ["assert_type", fbAssertType],
  ["call", fbCall],
  ["getvar", fbGetvar],
  // Without Hiera: Puppet's lookup over no data (its signatures, defaults, blocks and not-found error).
  ...(["lookup", "hiera", "hiera_array", "hiera_hash", "hiera_include"] as const).map(
    (n): [string, PuppetFunction] => [n, withoutHiera(n)],
  ),
]);

/**
 * `lookup` or a hiera_* function over no Hiera, made on first call (the
 * Hiera module imports the evaluator's: made at load, it would not be ready).
 */
function withoutHiera(name: "lookup" | HieraFunctionName): PuppetFunction {
  let fn: PuppetFunction | undefined;
  return (ctx, args, block) => {
    fn ??= name === "lookup" ? makeLookupFunction(NO_HIERA) : makeHieraFunction(NO_HIERA, name);
    return fn(ctx, args, block);
  };
}

export { isTrue };
