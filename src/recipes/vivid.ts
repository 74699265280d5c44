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
