/**
 * stdlib's functions that look at the catalog or the environment being
 * compiled (ensure_resource, ensure_resources, ensure_packages,
 * defined_with_params, getparam, assert_private, has_function,
 * get_module_path, load_module_metadata, str2resource). They reach the
 * compiler through `ctx.compile` (registry.ts) and create resources with
 * the compiler's `create_resources`; without `ctx.compile` they fail saying so.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseJson } from "../../../hiera/data.js";
import { blk as _blk, dispatcher, opt, p } from "../core/dispatch.js";
import { type Spec, T } from "../core/spec.js";
import { type CallContext, type CompileView, FunctionError, type PuppetFunction } from "../registry.js";
import { parameterize, typeByName } from "../../types.js";
import { PHash, type PValue, isType } from "../../values.js";
import { deprecate, fail, legacy, rubyEq, rubyToS } from "./support.js";

function view(ctx: CallContext, name: string): CompileView {
  if (!ctx.compile)
    throw new FunctionError(
      `${name}(): needs the compiler's view of the catalog, which this caller does not give`,
    );
  return ctx.compile;
}

/** `Type[title]` (a string or a resource reference) as type and title; Puppet::Resource.type_and_title. */
function typeAndTitle(ref: PValue): [string, string] {
  if (isType(ref)) {
    const text = ref.toString();
    const m = /^(\w[\w:]*)\['?(.*?)'?\]$/s.exec(text);
    if (m) return [(m[1] as string).toLowerCase(), m[2] as string];
    return [text.toLowerCase(), ""];
  }
  const s = rubyToS(ref);
  const m = /^([^[\]]+)\[(.+)\]$/s.exec(s);
  if (!m) throw new FunctionError(`Reference is not understood: '${s}'`);
  return [(m[1] as string).toLowerCase(), m[2] as string];
}

function definedWithParams(ctx: CallContext, ref: PValue, params: PValue): boolean {
  if (ref === undefined || ref === "") throw new FunctionError("Must specify a reference");
  const v = view(ctx, "defined_with_params");
  const [type, title] = typeAndTitle(ref);
  const wanted = params instanceof PHash ? params : new PHash();
  const candidates =
    title === "" ? v.resourcesOfType(type) : [v.findResource(type, title)].filter((r) => r !== undefined);
  const current = v.currentResource;
  for (const res of candidates) {
    if (!res) continue;
    if (current && current.type === res.type && current.title === res.title) continue;
    let all = true;
    for (const [k, want] of wanted) {
      const have = res.parameters.get(rubyToS(k));
      const bothUndef = (have === undefined || have === "") && want === undefined;
      if (!(bothUndef || rubyEq(have, want))) all = false;
    }
    if (all) return true;
  }
  return false;
}

export const defined_with_params: PuppetFunction = legacy((ctx, [ref, params]) =>
  definedWithParams(ctx, ref, params === "" ? undefined : params),
);

/** `Package` from `package`, `Foo::Bar` from `foo::bar`, as create_resources wants the type. */
function capitalizeType(t: string): string {
  return t.charAt(0).toUpperCase() + t.slice(1);
}

function ensureResource(ctx: CallContext, type: PValue, title: PValue, params: PValue): void {
  if (type === undefined || type === "") throw new FunctionError("Must specify a type");
  if (title === undefined || title === "") throw new FunctionError("Must specify a title");
  const p0 = params instanceof PHash ? params : new PHash();
  const items = Array.isArray(title) ? title.flat(Number.POSITIVE_INFINITY as 1) : [title];
  for (const item of items as PValue[]) {
    const ref = `${rubyToS(type)}[${rubyToS(item)}]`;
    if (definedWithParams(ctx, ref, p0)) continue;
    ctx.callFunction("create_resources", [capitalizeType(rubyToS(type)), PHash.from([[item, p0]])]);
  }
}

export const ensure_resource: PuppetFunction = legacy((ctx, [type, title, params]) => {
  ensureResource(ctx, type, title, params);
  return undefined;
});

export const ensure_resources: PuppetFunction = legacy((ctx, [type, title, params]) => {
  if (type === undefined || type === "") throw new FunctionError("Must specify a type");
  if (title === undefined || title === "") throw new FunctionError("Must specify a title");
  if (!(title instanceof PHash)) fail("ensure_resources(): Requires second argument to be a Hash");
  const base = params instanceof PHash ? params : new PHash();
  for (const [name, own] of title) {
    const merged = base.clone();
    if (own instanceof PHash) for (const [k, v] of own) merged.set(k, v);
    ensureResource(ctx, type, name, merged);
  }
  return undefined;
});

const nonEmpty: Spec = {
  cls: "String",
  full: "String[1]",
  short: "String",
  test: (v) => typeof v === "string" && v !== "",
  kindTest: (v) => typeof v === "string",
};

function ensurePackage(ctx: CallContext, name: PValue, attrs: PHash): void {
  const defaults = PHash.fromRecord({ ensure: "installed" });
  for (const [k, v] of attrs) defaults.set(k, v);
  const e = defaults.get("ensure");
  if (e === "present" || e === "installed")
    defaults.set(
      "ensure",
      definedWithParams(ctx, `Package[${rubyToS(name)}]`, PHash.fromRecord({ ensure: "present" }))
        ? "present"
        : "installed",
    );
  ensureResource(ctx, "package", name, defaults);
}

export const ensure_packages = dispatcher("stdlib::ensure_packages", [
  {
    params: [p("packages", T.variant(nonEmpty, T.arrayOf(nonEmpty))), opt("default_attributes", T.hash)],
    call: (ctx, [pkgs, attrs]) => {
      for (const name of Array.isArray(pkgs) ? pkgs : [pkgs as PValue])
        ensurePackage(ctx, name, attrs instanceof PHash ? attrs : new PHash());
      return undefined;
    },
  },
  {
    params: [p("packages", T.hashOf(nonEmpty, T.any)), opt("default_attributes", T.hash)],
    call: (ctx, [pkgs, attrs]) => {
      for (const [name, own] of pkgs as PHash) {
        const merged = attrs instanceof PHash ? attrs.clone() : new PHash();
        if (own instanceof PHash) for (const [k, v] of own) merged.set(k, v);
        ensurePackage(ctx, name, merged);
      }
      return undefined;
    },
  },
]);

export const getparam: PuppetFunction = legacy((ctx, [ref, param]) => {
  if (ref === undefined || ref === "") throw new FunctionError("Must specify a reference");
  if (typeof param !== "string") throw new FunctionError("Must specify name of a parameter");
  if (param === "") return "";
  const [type, title] = typeAndTitle(ref);
  const res = view(ctx, "getparam").findResource(type, title);
  const v = res?.parameters.get(param);
  return v === undefined ? "" : v;
});

export const assert_private: PuppetFunction = legacy((ctx, args) => {
  if (args.length > 1)
    fail(`assert_private(): Wrong number of arguments given (${args.length}}) for 0 or 1)`);
  if (rubyToS(ctx.lookupVariable("module_name")) === rubyToS(ctx.lookupVariable("caller_module_name")))
    return undefined;
  if (typeof args[0] === "string" && args[0] !== "") fail(args[0]);
  const current = ctx.compile?.currentResource;
  const kind = !current || current.type === "class" ? "Class" : "Definition";
  const name = current
    ? current.type === "class"
      ? current.title
      : current.type
    : rubyToS(ctx.lookupVariable("name"));
  return fail(`${kind} ${name} is private`);
});

export const get_module_path: PuppetFunction = legacy((ctx, args) => {
  if (args.length !== 1) fail("get_module_path(): Wrong number of arguments, expects one");
  const path = view(ctx, "get_module_path").modulePath(rubyToS(args[0]));
  if (!path)
    fail(
      `Could not find module ${rubyToS(args[0])} in environment ${rubyToS(ctx.lookupVariable("environment"))}`,
    );
  return path;
});

export const load_module_metadata: PuppetFunction = legacy((ctx, args) => {
  if (args.length !== 1 && args.length !== 2)
    fail("load_module_metadata(): Wrong number of arguments, expects one or two");
  const [mod, allowEmpty] = args;
  const path = view(ctx, "load_module_metadata").modulePath(rubyToS(mod));
  if (!path)
    fail(
      `Could not find module ${rubyToS(mod)} in environment ${rubyToS(ctx.lookupVariable("environment"))}`,
    );
  const file = join(path, "metadata.json");
  if (existsSync(file)) return parseJson(readFileSync(file, "utf8"));
  if (allowEmpty === undefined || allowEmpty === false || allowEmpty === "")
    fail(`load_module_metadata(): No metadata.json file for module ${rubyToS(mod)}`);
  return new PHash();
});

export const has_function = dispatcher("stdlib::has_function", [
  {
    params: [p("function_name", nonEmpty)],
    call: (ctx, [name]) => view(ctx, "stdlib::has_function").hasFunction(name as string),
  },
]);

export const str2resource = dispatcher("stdlib::str2resource", [
  {
    params: [p("res_string", T.string)],
    call: (ctx, [s]) => {
      const [type, title] = typeAndTitle(s);
      const res = ctx.compile?.findResource(type, title);
      if (!res)
        throw new FunctionError(
          `stdlib::str2resource(): could not find ${capitalizeSegments(type)}[${title}], this is parse order dependent and values should not be quoted`,
        );
      return parameterize(typeByName("Resource") as never, [type, title]) as PValue;
    },
  },
]);

function capitalizeSegments(t: string): string {
  return t
    .split("::")
    .map((s) => s.charAt(0).toUpperCase() + s.slice(1))
    .join("::");
}

void deprecate;
void _blk;
