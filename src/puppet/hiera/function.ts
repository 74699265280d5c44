/**
 * Puppet's `lookup` function, all its signatures:
 *   lookup(name [, value_type [, merge]])           lookup(name, value_type, merge, default)
 *   lookup(name [, value_type [, merge]]) |$n| {}   lookup({name => ..., options})
 *   lookup(name, {options}) [|$n| {}]
 * where name is a string or an array of names (the first found wins) and
 * the options are value_type, default_value, override, default_values_hash
 * and merge. Not found, without a default, is Puppet's error.
 */
import { NOT_FOUND } from "../eval/compile-api.js";
import {
  type CallContext,
  FunctionArgumentError,
  FunctionError,
  type PuppetFunction,
} from "../eval/functions/registry.js";
import { describeMismatch, type PType } from "../eval/types.js";
import { isType, PHash, type PCallable, type PValue } from "../eval/values.js";
import { HieraError, puppetTypeName } from "./errors.js";
import type { HieraLookup, Invocation } from "./lookup.js";

interface Request {
  readonly name: PValue;
  readonly valueType?: PType;
  readonly merge: PValue;
  readonly defaultValue?: PValue;
  readonly hasDefault: boolean;
  readonly override: PHash;
  readonly defaults: PHash;
}

const OPTION_KEYS = new Set([
  "name",
  "value_type",
  "default_value",
  "override",
  "default_values_hash",
  "merge",
]);

/** The `lookup` function over `hiera`, with the calling scope from the call context. */
export function makeLookupFunction(hiera: HieraLookup): PuppetFunction {
  return (ctx, args, block) => {
    const request = parseArguments(args, block !== undefined);
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
    throw new FunctionError(
      names.length === 1
        ? `Function lookup() did not find a value for the name '${names[0]}'`
        : `Function lookup() did not find a value for any of the names [${names.map((n) => `'${n}'`).join(", ")}]`,
    );
  };
}

export type HieraFunctionName = "hiera" | "hiera_array" | "hiera_hash" | "hiera_include";

const HIERA_MERGE: Record<HieraFunctionName, string> = {
  hiera: "first",
  hiera_array: "unique",
  hiera_hash: "hash",
  hiera_include: "unique",
};

/**
 * The deprecated hiera(), hiera_array(), hiera_hash() and hiera_include():
 * (key [, default [, override]]) or (key [, override]) { |$key| default },
 * looking in the global layer only unless the environment has a version 5
 * hiera.yaml; hiera_include includes the classes found.
 */
export function makeHieraFunction(hiera: HieraLookup, name: HieraFunctionName): PuppetFunction {
  return (ctx, args, block) => {
    const [key, dflt] = args;
    if (typeof key !== "string" || args.length < 1 || args.length > (block ? 2 : 3))
      throw new FunctionArgumentError(
        `'${name}' expects a String key, and optionally a default and an override`,
      );
    const message = `The function '${name}' is deprecated in favor of using 'lookup'. See https://puppet.com/docs/puppet/7.23/deprecated_language.html`;
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
    else if (args.length >= 2 && !block) value = dflt;
    else throw new FunctionError(`Function lookup() did not find a value for the name '${key}'`);
    if (name !== "hiera_include") return value;
    const classes: PValue[] = Array.isArray(value) ? (value as PValue[]) : [value];
    return ctx.callFunction("include", classes);
  };
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

function parseArguments(args: readonly PValue[], hasBlock: boolean): Request {
  const [first, second] = args;
  if (first instanceof PHash && args.length === 1) {
    if (!first.has("name")) throw new FunctionArgumentError("'lookup' expects a value for key 'name'");
    return fromOptions(first.get("name"), first, true);
  }
  checkName(first);
  if (second instanceof PHash && args.length === 2) return fromOptions(first, second, false);
  if (args.length < 1 || args.length > 4)
    throw new FunctionArgumentError(`'lookup' expects between 1 and 4 arguments, got ${args.length}`);
  if (args.length >= 2 && args.length <= 3 && args[1] === undefined)
    throw new FunctionArgumentError(
      "The function 'lookup' was called with arguments it does not accept: 'value_type' expects a Type value, got Undef",
    );
  const valueType = optionalType(args[1]);
  if (args.length === 4 && hasBlock)
    throw new FunctionArgumentError("'lookup' expects no block when a default value is given");
  return {
    name: first,
    valueType,
    merge: checkMerge(args[2]),
    defaultValue: args[3],
    hasDefault: args.length === 4,
    override: new PHash(),
    defaults: new PHash(),
  };
}

function fromOptions(name: PValue, options: PHash, nameAllowed: boolean): Request {
  checkName(name);
  for (const k of options.keys()) {
    const key = String(k);
    if (!OPTION_KEYS.has(key) || (key === "name" && !nameAllowed))
      throw new FunctionArgumentError(`'lookup' parameter 'options_hash' unrecognized key '${key}'`);
  }
  const hashOf = (key: string) => {
    const v = options.get(key);
    if (v === undefined) return new PHash();
    if (!(v instanceof PHash))
      throw new FunctionArgumentError(
        `'lookup' parameter 'options_hash' entry '${key}' expects a Hash value`,
      );
    return v;
  };
  return {
    name,
    valueType: optionalType(options.get("value_type")),
    merge: checkMerge(options.get("merge")),
    defaultValue: options.get("default_value"),
    hasDefault: options.has("default_value"),
    override: hashOf("override"),
    defaults: hashOf("default_values_hash"),
  };
}

function checkName(name: PValue): void {
  const ok = typeof name === "string" || (Array.isArray(name) && name.every((n) => typeof n === "string"));
  if (!ok)
    throw new FunctionArgumentError(
      `'lookup' parameter 'name' expects a value of type String or Array, got ${puppetTypeName(name)}`,
    );
}

function optionalType(v: PValue): PType | undefined {
  if (v === undefined) return undefined;
  if (!isType(v))
    throw new FunctionArgumentError(
      `'lookup' parameter 'value_type' expects a Type value, got ${puppetTypeName(v)}`,
    );
  return v;
}

function checkMerge(v: PValue): PValue {
  if (v === undefined || (typeof v === "string" && v !== "") || v instanceof PHash) return v;
  throw new FunctionArgumentError(
    `'lookup' parameter 'merge' expects a value of type String or Hash, got ${puppetTypeName(v)}`,
  );
}

export type { CallContext, PCallable };
