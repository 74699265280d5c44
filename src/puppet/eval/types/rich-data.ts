/**
 * Puppet's "will be converted to" warnings: a catalog's parameter values
 * that are not Data (an Object value, a Deferred, a type, a hash with keys
 * other than strings) are turned into strings when the catalog is
 * rendered, and Puppet warns about each, naming where it is. The path in
 * the message is built as Puppet 7.23 builds it: its message prefix grows
 * by the current path at every warning of the same resource.
 */
import { asResourceRef } from "../refs.js";
import { type PValue, isHash, isType, PDeferred, type PHash, PObject, PSensitive } from "../values.js";
import { rubyClassName } from "./access.js";
import { PClassType, PResourceType } from "./model.js";

interface ResourceView {
  readonly ref: string;
  readonly virtual: boolean;
  readonly params: ReadonlyMap<string, { readonly value: PValue }> & {
    /** Whether `test` holds for the value of a parameter. */
    someValue(test: (value: PValue) => boolean): boolean;
  };
}

/** `['a'][0]`: a path as Puppet's JSON path, without the root. */
function jsonPath(path: readonly (string | number)[]): string {
  return path.map((p) => (typeof p === "number" ? `[${p}]` : `['${p}']`)).join("");
}

/**
 * The warnings of every resource kept in the catalog, in order.
 * `stringOf` is how the catalog renders a value or key that is not Data.
 */
export function richDataWarnings(
  resources: readonly ResourceView[],
  stringOf: (v: PValue) => string,
  keyString: (k: PValue) => string,
): string[] {
  const out: string[] = [];
  // An indexed loop, and no closure in it (its variables would take a
  // context made at each step): this pass runs once over every resource.
  for (let i = 0; i < resources.length; i++) {
    const r = resources[i] as ResourceView;
    // Most parameters hold strings only: a value that may be something else is looked for first.
    if (!r.virtual && r.params.someValue(mayBeRich)) warnAbout(r, stringOf, keyString, out);
  }
  return out;
}

/** The warnings of one resource whose parameters may hold values that are not Data. */
function warnAbout(
  r: ResourceView,
  stringOf: (v: PValue) => string,
  keyString: (k: PValue) => string,
  out: string[],
): void {
  let prefix = r.ref;
  const path: (string | number)[] = [];
  const warn = (what: string, converted: string): void => {
    prefix += jsonPath(path);
    out.push(`${prefix} contains ${what}. It will be converted to the String '${converted}'`);
  };
  const walk = (v: PValue): void => {
    if (v === undefined || typeof v !== "object" || v === null) return;
    if (Array.isArray(v)) {
      v.forEach((x, i) => {
        path.push(i);
        walk(x);
        path.pop();
      });
      return;
    }
    if (isHash(v)) {
      for (const [k, x] of v as PHash) {
        let key: string;
        if (typeof k === "string") key = k;
        else {
          key = keyString(k);
          warn(`a hash with ${anOrA(rubyClassName(k))} key`, key);
        }
        path.push(key);
        walk(x);
        path.pop();
      }
      return;
    }
    if (v instanceof PSensitive) walk(v.value);
    else if (asResourceRef(v)) return;
    else if (isType(v)) warn(`${anOrA(`${v.kind}-Type`)} value`, v.toString());
    else if (v instanceof PDeferred) warn("a Deferred value", stringOf(v));
    else if (v instanceof PObject && isType((v as { type?: PValue }).type))
      warn(`${anOrA(v.typeName)} value`, stringOf(v));
  };
  for (const [name, p] of r.params) {
    if (p.value === undefined) continue;
    path.push(name);
    walk(p.value);
    path.pop();
  }
}

function mayBeRich(v: PValue): boolean {
  if (typeof v !== "object" || v === null) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (mayBeRich(v[i])) return true;
    return false;
  }
  return !(v instanceof PResourceType || v instanceof PClassType);
}

function anOrA(word: string): string {
  return `${/^[AEIOU]/i.test(word) ? "an" : "a"} ${word}`;
}
