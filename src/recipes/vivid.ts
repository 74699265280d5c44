/**
 * Auto-vivifying attribute trees: a Proxy over a plain object of one
 * precedence level, so `node.default.nginx.port = 80` creates `nginx` on
 * first touch, as Chef's VividMash does. Every change calls `touched` (the
 * node drops its merged view). Assigned values are copied in as JSON data;
 * a value JSON cannot hold (a function, a Map, a class instance) is refused
 * with a TypeError naming the path.
 */
import type { AttributeValue } from "./model.js";

/** A level's storage: objects without prototype (no `toString` key to trip on). */
export type Store = { [key: string]: StoreValue };
export type StoreValue = string | number | boolean | null | StoreValue[] | Store;

/** Property names that never vivify: what runtimes probe on any object. */
const PROBES = new Set([
  "then",
  "toJSON",
  "inspect",
  "constructor",
  "__proto__",
  "prototype",
  "asymmetricMatch",
]);

const targets = new WeakMap<object, object>();

/** An empty store. */
export function emptyStore(): Store {
  return Object.create(null) as Store;
}

/** A writable, auto-vivifying view of `store`. */
export function vivid(store: Store, touched: () => void, path = ""): Store {
  const proxy = new Proxy(store, {
    get(target, key) {
      if (typeof key === "symbol") return Reflect.get(target, key);
      if (!Object.hasOwn(target, key)) {
        if (PROBES.has(key)) return undefined;
        target[key] = emptyStore();
        touched();
      }
      return wrap(target[key] as StoreValue, touched, join(path, key));
    },
    set(target, key, value) {
      if (typeof key === "symbol") return false;
      if (value === undefined) delete target[key];
      else target[key] = importValue(value, join(path, key));
      touched();
      return true;
    },
    deleteProperty(target, key) {
      if (typeof key === "symbol") return false;
      delete target[key];
      touched();
      return true;
    },
  });
  targets.set(proxy, store);
  return proxy;
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

function wrap(value: StoreValue, touched: () => void, path: string): StoreValue {
  if (Array.isArray(value)) return vividArray(value, touched, path);
  if (typeof value === "object" && value !== null) return vivid(value, touched, path);
  return value;
}

/** Arrays: element objects wrapped, any change (push, splice, index) noticed. */
function vividArray(array: StoreValue[], touched: () => void, path: string): StoreValue[] {
  const proxy = new Proxy(array, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof key === "string" && /^\d+$/.test(key) && typeof value === "object" && value !== null)
        return wrap(value as StoreValue, touched, join(path, key));
      return value;
    },
    set(target, key, value) {
      const imported =
        typeof key === "string" && /^\d+$/.test(key) ? importValue(value, join(path, key)) : value;
      touched();
      return Reflect.set(target, key, imported);
    },
    deleteProperty(target, key) {
      touched();
      return Reflect.deleteProperty(target, key);
    },
  });
  targets.set(proxy, array);
  return proxy;
}

/** A deep copy of `value` as store data; non-JSON values are a TypeError. */
export function importValue(value: unknown, path: string): StoreValue {
  const raw = (typeof value === "object" && value !== null && targets.get(value)) || value;
  if (raw === null || typeof raw === "string" || typeof raw === "boolean") return raw as StoreValue;
  if (typeof raw === "number") {
    if (!Number.isFinite(raw)) throw new TypeError(`attribute '${path}': ${raw} is not a JSON number`);
    return raw;
  }
  if (Array.isArray(raw)) return raw.map((v, i) => importValue(v === undefined ? null : v, `${path}.${i}`));
  if (typeof raw === "object") {
    const proto = Object.getPrototypeOf(raw) as unknown;
    if (proto !== Object.prototype && proto !== null)
      throw new TypeError(
        `attribute '${path}': a ${describe(raw)} is not JSON data (use plain objects and arrays)`,
      );
    const out = emptyStore();
    for (const [k, v] of Object.entries(raw)) if (v !== undefined) out[k] = importValue(v, join(path, k));
    return out;
  }
  throw new TypeError(`attribute '${path}': a ${typeof raw} is not JSON data`);
}

function describe(value: object): string {
  return (value.constructor as { name?: string } | undefined)?.name ?? "object";
}

/** A frozen deep copy, what readers of the merged view get. */
export function frozenCopy(value: AttributeValue): AttributeValue {
  if (Array.isArray(value)) return Object.freeze(value.map(frozenCopy));
  if (typeof value === "object" && value !== null) {
    const out: { [key: string]: AttributeValue } = {};
    for (const key of Object.keys(value))
      out[key] = frozenCopy((value as Record<string, AttributeValue>)[key]!);
    return Object.freeze(out);
  }
  return value;
}

/**
 * A write-if-absent view of `store`, as Chef's `default_unless`:
 * `view.a.b = 1` writes only when the level has no value at `a.b`.
 * Reads walk the path without creating anything; a read where a plain
 * value sits returns that value.
 */
export function unlessView(store: Store, touched: () => void, path: readonly string[] = []): Store {
  return new Proxy(emptyStore(), {
    get(_target, key) {
      if (typeof key === "symbol" || PROBES.has(key)) return undefined;
      const here = readPath(store, [...path, key]);
      if (here !== undefined && (typeof here !== "object" || here === null || Array.isArray(here)))
        return here;
      return unlessView(store, touched, [...path, key]);
    },
    set(_target, key, value) {
      if (typeof key === "symbol") return false;
      const full = [...path, key];
      // Chef's test is `nil?`: a stored null counts as absent.
      if (readPath(store, full) != null || value === undefined) return true;
      let at = store;
      for (const k of path) {
        const next = at[k];
        if (typeof next !== "object" || next === null || Array.isArray(next)) at[k] = emptyStore();
        at = at[k] as Store;
      }
      at[key] = importValue(value, full.join("."));
      touched();
      return true;
    },
  });
}

/** The value at `path` in a store, or undefined. */
export function readPath(store: Store, path: readonly string[]): StoreValue | undefined {
  let at: StoreValue | undefined = store;
  for (const k of path) {
    if (typeof at !== "object" || at === null || Array.isArray(at) || !Object.hasOwn(at, k)) return undefined;
    at = at[k];
  }
  return at;
}

/** Removes the value at `path` from a store; whether there was one. */
export function unlinkPath(store: Store, path: readonly string[]): boolean {
  const parent = readPath(store, path.slice(0, -1));
  const last = path.at(-1);
  if (last === undefined || typeof parent !== "object" || parent === null || Array.isArray(parent))
    return false;
  if (!Object.hasOwn(parent, last)) return false;
  delete parent[last];
  return true;
}
