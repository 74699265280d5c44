/**
 * Puppet's `lookup` function, all its signatures:
 *   lookup(name [, value_type [, merge]])           lookup(name, value_type, merge, default)
 *   lookup(name [, value_type [, merge]]) |$n| {}   lookup({name => ..., options})
 *   lookup(name, {options}) [|$n| {}]
 * where name is a string or an array of names (the first found wins) and
 * the options are value_type, default_value, override, default_values_hash
 * and merge. Not found, without a default, is Puppet's error. The five
 * signatures are dispatched (and a call none accepts, its block included,
 * described) as Puppet dispatches them; without Hiera (NO_HIERA) nothing
 * but the call's own defaults and hashes answers.
 */
import { NOT_FOUND, PuppetCompileError } from "../eval/compile-api.js";
import { type BlockParam, dispatcher, opt, p } from "../eval/functions/core/dispatch.js";
import { type Spec, T } from "../eval/functions/core/spec.js";
import { type CallContext, FunctionError, type PuppetFunction } from "../eval/functions/registry.js";
import {
  ANY,
  describeMismatch,
  describeValueMismatches,
  PCallableType,
  POptionalType,
  type PType,
  PTupleType,
  PTypeAliasType,
  parseTypeString,
} from "../eval/types.js";
import { isType, PHash, type PCallable, type PValue } from "../eval/values.js";
import { HieraError, puppetTypeName } from "./errors.js";
import type { Invocation } from "./lookup.js";
import { mergeStrategy } from "./merge.js";

/** What `lookup` and the hiera_* functions search: a compile's Hiera, or none. */
export interface LookupEngine {
  /** The first of `names` found (override values first, default values last), or NOT_FOUND. */
  lookupNames(
    names: readonly string[],
    inv: Invocation,
    merge: PValue,
    check?: (subject: string, value: PValue) => PValue,
  ): [string, PValue] | typeof NOT_FOUND;
  /** Whether the environment has a hiera.yaml of version 5. */
  hasEnvironmentData(): boolean;
}

/**
 * No Hiera at all (a compile given none): only the override and default
 * values hashes of the call answer; the merge is still checked.
 */
export const NO_HIERA: LookupEngine = {
  lookupNames(names, inv, merge, check) {
    const assert = check ?? ((_s: string, v: PValue) => v);
    for (const name of names) {
      if (inv.override.has(name))
        return [name, assert(`Value found for key '${name}' in override hash`, inv.override.get(name))];
      mergeStrategy(merge);
    }
    for (const name of names)
      if (inv.defaults.has(name))
        return [name, assert(`Value found for key '${name}' in default values hash`, inv.defaults.get(name))];
    return NOT_FOUND;
  },
  hasEnvironmentData: () => false,
};

interface Request {
  readonly name: PValue;
  readonly valueType?: PType;
  readonly merge: PValue;
  readonly defaultValue?: PValue;
  readonly hasDefault: boolean;
  readonly override: PHash;
  readonly defaults: PHash;
}

/** lookup's `local_types`, by lower-case name: aliases Puppet names in its messages. */
const LOCAL_TYPES = new Map<string, PType>();
const resolver = { resolve: (n: string) => LOCAL_TYPES.get(n.toLowerCase()) };
function local(name: string, text: string): PType {
  const t = new PTypeAliasType(name, () => parseTypeString(text, resolver));
  LOCAL_TYPES.set(name.toLowerCase(), t);
  return t;
}
const NAME_TYPE = local("NameType", "Variant[String, Array[String]]");
const VALUE_TYPE = local("ValueType", "Type");
const MERGE_TYPE = local("MergeType", "Variant[String[1], Hash[String, Scalar]]");
local("DefaultValueType", "Any");

/**
 * A parameter of type `type`, shown as `full` in the signature list; a
 * value it refuses is described by the type system's describer, each
 * problem on its own line when there are several.
 */
function typed(full: string, type: PType): Spec {
  const test = (v: PValue) => type.isInstance(v);
  const lines = (v: PValue) => describeValueMismatches(type, v);
  return {
    cls: full,
    full,
    short: full,
    test,
    kindTest: test,
    explain: (v) => lines(v)[0],
    explainEach: lines,
  };
}

const NAME = "NameType = Variant[String, Array[String]]";
const nameT = typed(NAME, NAME_TYPE);
const valueT = typed("ValueType = Type", VALUE_TYPE);
const mergeT = typed("MergeType = Variant[String[1], Hash[String, Scalar]]", MERGE_TYPE);

/** The entries of lookup's options hash: name, its type, and its rendering in the signature list. */
const OPTION_ENTRIES: readonly [string, string, string][] = [
  ["name", "NameType", NAME],
  ["value_type", "Optional[ValueType]", "Optional[ValueType = Type]"],
  ["default_value", "DefaultValueType", "DefaultValueType = Any"],
  ["override", "Optional[Hash[String, Any]]", "Optional[Hash[String, Any]]"],
  ["default_values_hash", "Optional[Hash[String, Any]]", "Optional[Hash[String, Any]]"],
  ["merge", "Optional[MergeType]", "Optional[MergeType = Variant[String[1], Hash[String, Scalar]]]"],
];

/** OptionsWithName or OptionsWithoutName: lookup's options hash as a Struct. */
function optionsType(withName: boolean): Spec {
  const entries = OPTION_ENTRIES.filter(([k]) => withName || k !== "name");
  const alias = withName ? "OptionsWithName" : "OptionsWithoutName";
  const full = `${alias} = Struct[{${entries.map(([k, , shown]) => `'${k}' => ${shown}`).join(", ")}}]`;
  const struct = local(alias, `Struct[{${entries.map(([k, t]) => `${k} => ${t}`).join(", ")}}]`);
  const spec = typed(full, struct);
  // Not a hash at all: Puppet names the Struct with its aliases expanded (`full`), as the generic text does.
  const explain = (v: PValue) => (v instanceof PHash ? spec.explain?.(v) : undefined);
  return { ...spec, explain };
}

const BLOCK: BlockParam = {
  name: "block",
  optional: true,
  label: `BlockType = Callable[${NAME}]`,
  type: new PCallableType(new PTupleType([NAME_TYPE])),
};

type Call = (ctx: CallContext, request: Request, block: PCallable | undefined) => PValue;

/** lookup's five signatures, as Puppet dispatches (and describes) them. */
function lookupDispatcher(run: Call): PuppetFunction {
  const plain = (
    name: PValue,
    valueType: PValue,
    merge: PValue,
    hasDefault = false,
    dflt?: PValue,
  ): Request => ({
    name,
    valueType: isType(valueType) ? valueType : undefined,
    merge,
    defaultValue: dflt,
    hasDefault,
    override: new PHash(),
    defaults: new PHash(),
  });
  return dispatcher("lookup", [
    {
      params: [p("name", nameT), opt("value_type", valueT), opt("merge", mergeT)],
      call: (ctx, [n, t, m]) => run(ctx, plain(n, t, m), undefined),
    },
    {
      params: [
        p("name", nameT),
        p("value_type", typed("Optional[ValueType]", new POptionalType(VALUE_TYPE))),
        p("merge", typed("Optional[MergeType]", new POptionalType(MERGE_TYPE))),
        p("default_value", typed("DefaultValueType = Any", ANY)),
      ],
      call: (ctx, [n, t, m, d]) => run(ctx, plain(n, t, m, true, d), undefined),
    },
    {
      params: [p("name", nameT), opt("value_type", valueT), opt("merge", mergeT)],
      block: { ...BLOCK, optional: false, hidden: true },
      call: (ctx, [n, t, m], b) => run(ctx, plain(n, t, m), b),
    },
    {
      params: [p("options_hash", optionsType(true))],
      block: BLOCK,
      call: (ctx, [o], b) => run(ctx, fromOptions((o as PHash).get("name"), o as PHash), b),
    },
    {
      params: [
        p("name", typed("Variant[String, Array[String]]", parseTypeString("Variant[String, Array[String]]"))),
        p("options_hash", optionsType(false)),
      ],
      block: BLOCK,
      call: (ctx, [n, o], b) => run(ctx, fromOptions(n, o as PHash), b),
    },
  ]);
}

/** The `lookup` function over `hiera` (NO_HIERA: a compile without Hiera), with the calling scope from the call context. */
export function makeLookupFunction(hiera: LookupEngine): PuppetFunction {
  return lookupDispatcher((ctx, request, block) => {
    const names = Array.isArray(request.name) ? request.name.map(String) : [String(request.name)];
    const inv: Invocation = {
      scope: { lookupVariable: (n) => ctx.lookupVariable(n) },
      override: request.override,
      defaults: request.defaults,
      stack: [],
    };
    const check = (subject: string, v: PValue) => assertType(subject, request.valueType, v);
    const found = guard(() => hiera.lookupNames(names, inv, request.merge, check));
    if (found !== NOT_FOUND) return found[1];
    if (block) return check("Value returned from default block", block.call([request.name]));
    if (request.hasDefault) return check("Default value", request.defaultValue);
    throw notFound(names);
  });
}

/** Puppet's LookupError for a name not found: reported as it is, without the call's position. */
function notFound(names: readonly string[]): PuppetCompileError {
  return new PuppetCompileError(
    names.length === 1
      ? `Function lookup() did not find a value for the name '${names[0]}'`
      : `Function lookup() did not find a value for any of the names [${names.map((n) => `'${n}'`).join(", ")}]`,
  );
}

export type HieraFunctionName = "hiera" | "hiera_array" | "hiera_hash" | "hiera_include";

const HIERA_MERGE: Record<HieraFunctionName, string> = {
  hiera: "first",
  hiera_array: "unique",
  hiera_hash: "hash",
  hiera_include: "unique",
};

const HIERA_ARGS = typed("Tuple[String, Any, Any, 1, 3]", parseTypeString("Tuple[String, Any, Any, 1, 3]"));
const DEFAULT_BLOCK: BlockParam = { name: "default_block", arity: [1, 1], label: "Callable[1, 1]" };

/**
 * The deprecated hiera(), hiera_array(), hiera_hash() and hiera_include()
 * with Puppet's five signatures: (key), (key, default [, override]),
 * (key) { |$key| default }, (key, override) { |$key| default }, and
 * ([key, ...]); looking in the global layer only unless the environment
 * has a version 5 hiera.yaml; hiera_include includes the classes found.
 * The override (Hiera 3 location overrides) is not used.
 */
export function makeHieraFunction(hiera: LookupEngine, name: HieraFunctionName): PuppetFunction {
  const run = (
    ctx: CallContext,
    key: string,
    hasDefault: boolean,
    dflt: PValue,
    block?: PCallable,
  ): PValue => {
    const message = `The function '${name}' is deprecated in favor of using 'lookup'. See https://puppet.com/docs/puppet/7.23/deprecated_language.html\n   (file & line not available)`;
    if (ctx.warnOnce) ctx.warnOnce(`deprecations:${name}`, message);
    const inv: Invocation = {
      scope: { lookupVariable: (n) => ctx.lookupVariable(n) },
      override: new PHash(),
      defaults: new PHash(),
      stack: [],
      globalOnly: !hiera.hasEnvironmentData(),
    };
    const found = guard(() => hiera.lookupNames([key], inv, HIERA_MERGE[name]));
    let value: PValue;
    if (found !== NOT_FOUND) value = found[1];
    else if (block) value = block.call([key]);
    else if (hasDefault) value = dflt;
    else throw notFound([key]);
    if (name !== "hiera_include") return value;
    if (value === undefined) throw new FunctionError(`Could not find data item ${key}`);
    if ((Array.isArray(value) || typeof value === "string") && value.length === 0) return undefined;
    return ctx.callFunction("include", [value]);
  };
  const fn: PuppetFunction = dispatcher(name, [
    {
      params: [p("args", HIERA_ARGS)],
      // Puppet 7.23 fails here: its splat calls a method the function does not have.
      call: () => {
        throw new FunctionError(`undefined method \`hiera' for the '${name}' function`);
      },
    },
    { params: [p("key", T.string)], call: (ctx, [k]) => run(ctx, k as string, false, undefined) },
    {
      params: [p("key", T.string), p("default", T.any), opt("override", T.any)],
      call: (ctx, [k, d]) => run(ctx, k as string, true, d),
    },
    {
      params: [p("key", T.string)],
      block: DEFAULT_BLOCK,
      call: (ctx, [k], b) => run(ctx, k as string, false, undefined, b),
    },
    {
      params: [p("key", T.string), p("override", T.any)],
      block: DEFAULT_BLOCK,
      call: (ctx, [k], b) => run(ctx, k as string, false, undefined, b),
    },
  ]);
  return fn;
}

function guard<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof HieraError) throw new FunctionError(e.message);
    throw e;
  }
}

function assertType(subject: string, t: PType | undefined, v: PValue): PValue {
  if (!t || t.isInstance(v)) return v;
  let message: string;
  try {
    message = describeMismatch(`${subject} has wrong type,`, t, v);
  } catch {
    const name = t.toString();
    message = `${subject} has wrong type, expects ${/^[AEIOU]/.test(name) ? "an" : "a"} ${name} value, got ${puppetTypeName(v)}`;
  }
  throw new FunctionError(message);
}

function fromOptions(name: PValue, options: PHash): Request {
  const hash = (key: string) => {
    const v = options.get(key);
    return v instanceof PHash ? v : new PHash();
  };
  const valueType = options.get("value_type");
  return {
    name,
    valueType: isType(valueType) ? valueType : undefined,
    merge: options.get("merge"),
    defaultValue: options.get("default_value"),
    hasDefault: options.has("default_value"),
    override: hash("override"),
    defaults: hash("default_values_hash"),
  };
}

export type { CallContext, PCallable };
