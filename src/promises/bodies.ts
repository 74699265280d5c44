/**
 * Body references (`classes => if_ok("x")`, `action => warn_only`) turned
 * into the attributes they stand for, as 3.21's promise copy does: the
 * body's parameters are replaced in its text by the caller's arguments as
 * written (so `$(list)` in an argument still iterates), `inherit_from`
 * bodies come first and are overridden by the inheriting one, and only
 * attributes under class guards that hold are kept.
 */
import type { Attribute, Body, ClassGuard, FunctionCall, Rval, StringLiteral } from "../language/ast.js";
import type { EvalContext } from "../eval/context.js";
import { isGuardTrue } from "../eval/resolve.js";
import type { PolicyIndex } from "./policy-index.js";

/** A body as one promise uses it. */
export interface BodyInstance {
  readonly type: string;
  readonly name: string;
  /** Effective attributes by name, arguments substituted. */
  readonly attributes: ReadonlyMap<string, Attribute>;
}

/** 3.21 refuses deeper `inherit_from` chains. */
const MAX_INHERIT_DEPTH = 30;

/**
 * Where resolving a body reports problems; `fatal` is true for those cf-agent
 * cannot continue after (an inherited body given the wrong number of
 * arguments, a body inheriting from itself).
 */
export type BodyProblem = (message: string, fatal?: boolean) => void;

/**
 * Resolves a body reference; undefined (and a message through `problem`)
 * when the body does not exist or is used with the wrong arguments.
 */
export function resolveBody(
  ctx: EvalContext,
  index: PolicyIndex,
  type: string,
  ref: Rval,
  problem: BodyProblem,
  depth = 0,
): BodyInstance | undefined {
  const name = bodyName(ref);
  if (name === undefined) return undefined;
  const found = index.findBody(type, name, ctx.currentNamespace());
  if (!found) {
    problem(`body ${type} '${name}' is not defined`);
    return undefined;
  }
  const body = found.block;
  const args = ref.kind === "call" ? ref.args : [];
  const params = body.params ?? [];
  if (args.length !== params.length) {
    if (depth > 0) {
      problem(
        `Fatal CFEngine error: Argument count mismatch for body (gave ${args.length} arguments) vs. inherited body '${body.namespace}:${name}' (requires ${params.length} arguments)`,
        true,
      );
    } else {
      problem(`body ${type} '${name}' takes ${params.length} argument(s) but was given ${args.length}`);
    }
    return undefined;
  }
  if (isInvariant(body)) return invariantInstance(body, type, name);
  const substitutions = new Map<string, Rval>(params.map((p, i) => [p.text, args[i]]));
  const attributes = new Map<string, Attribute>();
  for (const attribute of effectiveAttributes(ctx, body)) {
    const substituted = substituteAttribute(attribute, substitutions);
    if (attribute.name.text === "inherit_from") {
      if (depth >= MAX_INHERIT_DEPTH) {
        problem(`body ${type} '${name}' inherits more than ${MAX_INHERIT_DEPTH} levels deep`);
        continue;
      }
      const parentName = bodyName(substituted.value);
      if (parentName === name) {
        problem(
          `EvalContextAppendBodyParentsAndArgs: self body inheritance in ${name}->${name}, aborting`,
          true,
        );
        return undefined;
      }
      const parent = resolveBody(ctx, index, type, substituted.value, problem, depth + 1);
      // The inheriting body's own attributes win, whatever their position.
      for (const [key, value] of parent?.attributes ?? [])
        if (!attributes.has(key)) attributes.set(key, value);
      continue;
    }
    attributes.set(attribute.name.text, substituted);
  }
  return { type, name, attributes };
}

/**
 * A body without parameters, class guards or `inherit_from` means the same
 * to every promise: one instance serves them all (a policy may use such a
 * body in thousands of promises).
 */
function isInvariant(body: Body): boolean {
  if ((body.params ?? []).length > 0) return false;
  return body.groups.every(
    (group) => group.guard === null && group.attributes.every((a) => a.name.text !== "inherit_from"),
  );
}

const invariantInstances = new WeakMap<Body, Map<string, BodyInstance>>();

function invariantInstance(body: Body, type: string, name: string): BodyInstance {
  let byName = invariantInstances.get(body);
  if (!byName) {
    byName = new Map();
    invariantInstances.set(body, byName);
  }
  let instance = byName.get(`${type} ${name}`);
  if (!instance) {
    const attributes = new Map<string, Attribute>();
    for (const group of body.groups) for (const a of group.attributes) attributes.set(a.name.text, a);
    instance = { type, name, attributes };
    byName.set(`${type} ${name}`, instance);
  }
  return instance;
}

function bodyName(ref: Rval): string | undefined {
  if (ref.kind === "symbol" || ref.kind === "call") return ref.name;
  return ref.kind === "string" ? ref.value : undefined;
}

function effectiveAttributes(ctx: EvalContext, body: Body): Attribute[] {
  const out: Attribute[] = [];
  for (const group of body.groups) {
    if (guardHolds(ctx, group.guard)) out.push(...group.attributes);
  }
  // inherit_from first, so that own attributes override what it brings.
  out.sort((a, b) => (a.name.text === "inherit_from" ? -1 : b.name.text === "inherit_from" ? 1 : 0));
  return out;
}

function guardHolds(ctx: EvalContext, guard: ClassGuard | null): boolean {
  return isGuardTrue(ctx, guard);
}

function substituteAttribute(attribute: Attribute, substitutions: ReadonlyMap<string, Rval>): Attribute {
  if (substitutions.size === 0) return attribute;
  return { ...attribute, value: substitute(attribute.value, substitutions) };
}

/** Replaces parameter references in an rval by the arguments' text. */
export function substitute(rval: Rval, substitutions: ReadonlyMap<string, Rval>): Rval {
  switch (rval.kind) {
    case "string":
      return (
        withCallArguments(rval, substitutions) ?? {
          ...rval,
          value: substituteText(rval.value, substitutions),
        }
      );
    case "nakedvar": {
      const whole = wholeParam(rval.text, substitutions);
      if (whole) return whole;
      return { ...rval, text: substituteText(rval.text, substitutions) };
    }
    case "symbol":
      return rval;
    case "list":
      return { ...rval, items: rval.items.map((i) => substitute(i, substitutions)) };
    case "call":
      return {
        ...rval,
        name: substituteText(rval.name, substitutions),
        args: rval.args.map((a) => substitute(a, substitutions)),
      };
  }
}

/** `$(p)` or `@(p)` as a whole value takes the argument itself (a list stays a list). */
function wholeParam(text: string, substitutions: ReadonlyMap<string, Rval>): Rval | undefined {
  const match = /^[$@][({]([A-Za-z0-9_]+)[)}]$/.exec(text);
  return match ? substitutions.get(match[1]) : undefined;
}

function argumentText(arg: Rval, sigil: string): string {
  switch (arg.kind) {
    case "string":
      return arg.value;
    case "symbol":
      return arg.name;
    case "nakedvar":
      return sigil === "@" && arg.text.startsWith("$") ? `@${arg.text.slice(1)}` : arg.text;
    default:
      return "";
  }
}

const PARAM_REFERENCE = /([$@])[({]([A-Za-z0-9_]+)[)}]/g;

function substituteText(text: string, substitutions: ReadonlyMap<string, Rval>): string {
  if (!text.includes("$") && !text.includes("@")) return text;
  return text.replace(PARAM_REFERENCE, (whole, sigil: string, name: string) => {
    const arg = substitutions.get(name);
    return arg ? argumentText(arg, sigil) : whole;
  });
}

/**
 * A string that embeds a parameter whose argument is a function call
 * (`select_start => "\\[$(x)\\]"` used as `INI_section(escape("s"))`): 3.21
 * evaluates the call and puts its value in the text. The text becomes the
 * pieces joined by concat(), so the call is evaluated with each
 * iteration's bindings, where the promise is expanded. Undefined when no
 * embedded argument is a call.
 */
function withCallArguments(
  rval: StringLiteral,
  substitutions: ReadonlyMap<string, Rval>,
): FunctionCall | undefined {
  const matches = [...rval.value.matchAll(PARAM_REFERENCE)];
  if (!matches.some((m) => substitutions.get(m[2] as string)?.kind === "call")) return undefined;
  const pieces: Rval[] = [];
  let text = "";
  let last = 0;
  for (const match of matches) {
    const arg = substitutions.get(match[2] as string);
    text += rval.value.slice(last, match.index);
    last = match.index + match[0].length;
    if (arg?.kind !== "call") {
      text += arg ? argumentText(arg, match[1] as string) : match[0];
      continue;
    }
    if (text !== "") pieces.push({ ...rval, value: text });
    pieces.push(arg);
    text = "";
  }
  text += rval.value.slice(last);
  if (text !== "") pieces.push({ ...rval, value: text });
  return { kind: "call", name: "concat", nameSpan: rval.span, args: pieces, span: rval.span };
}
