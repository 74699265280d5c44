/**
 * The root of the Puppet type hierarchy. Assignability follows Puppet's
 * type calculator: the generic rules (aliases, variants, optionals,
 * not-undefs) live here, each type answers `assignableFrom` for the rest.
 */
import type { PValue } from "../values.js";

export class TypeSystemError extends Error {
  override readonly name = "TypeSystemError";
}

/** Guards recursion through self-referencing type aliases (Puppet's RecursionGuard). */
export class RecursionGuard {
  static readonly IN_THIS = 1;
  static readonly IN_THAT = 2;
  static readonly IN_BOTH = 3;
  state = 0;
  readonly #thisMap = new Set<unknown>();
  readonly #thatMap = new Set<unknown>();
  /** Runs `f` with `o` entered on the "this" side; `f` gets the state. */
  withThis<R>(o: unknown, f: (state: number) => R): R {
    if ((this.state & RecursionGuard.IN_THIS) === 0) {
      const before = this.#thisMap.size;
      if (this.#thisMap.has(o)) this.state |= RecursionGuard.IN_THIS;
      else this.#thisMap.add(o);
      if (before < this.#thisMap.size) {
        try {
          return f(this.state);
        } finally {
          this.state &= ~RecursionGuard.IN_THIS;
          this.#thisMap.delete(o);
        }
      }
    }
    return f(this.state);
  }
  withThat<R>(o: unknown, f: (state: number) => R): R {
    if ((this.state & RecursionGuard.IN_THAT) === 0) {
      const before = this.#thatMap.size;
      if (this.#thatMap.has(o)) this.state |= RecursionGuard.IN_THAT;
      else this.#thatMap.add(o);
      if (before < this.#thatMap.size) {
        try {
          return f(this.state);
        } finally {
          this.state &= ~RecursionGuard.IN_THAT;
          this.#thatMap.delete(o);
        }
      }
    }
    return f(this.state);
  }
  readonly #instances = new Map<unknown, Set<unknown>>();
  /** Enters an instance check of `v` against alias `t`; false when that check is already under way (a recursive alias). */
  enterInstance(t: unknown, v: unknown): boolean {
    let set = this.#instances.get(t);
    if (!set) {
      set = new Set();
      this.#instances.set(t, set);
    }
    if (set.has(v)) return false;
    set.add(v);
    return true;
  }
  leaveInstance(t: unknown, v: unknown): void {
    this.#instances.get(t)?.delete(v);
  }
  addThat(o: unknown): number {
    if ((this.state & RecursionGuard.IN_THAT) === 0) {
      if (this.#thatMap.has(o)) this.state |= RecursionGuard.IN_THAT;
      else this.#thatMap.add(o);
    }
    return this.state;
  }
}

export abstract class PType {
  /** True on every type (set on the prototype: no field to initialise per type made). */
  declare readonly isPuppetType: true;
  /** The type's name without parameters: `Integer`, `Resource`, `Class`, `Struct`... */
  abstract readonly name: string;
  /** Whether `v` is an instance of this type. */
  abstract isInstance(v: PValue, guard?: RecursionGuard): boolean;
  /** Puppet's rendering: `Integer[1, 10]`, `Enum['a', 'b']`, `File['/x']`, `Class[Ntp]`. */
  abstract toString(): string;
  abstract equals(other: PType): boolean;
  /** The rules specific to this type, once the generic ones have not decided. */
  protected abstract assignableFrom(o: PType, guard?: RecursionGuard): boolean;

  /** Whether every instance of `t` is an instance of this type. */
  isAssignable(o: PType, guard?: RecursionGuard): boolean {
    const k = o.kind;
    if (k === "Unit") return true;
    if (k === "TypeAlias") {
      const a = o as PType & { resolvedType(): PType };
      const g = guard ?? new RecursionGuard();
      if (g.addThat(o) === RecursionGuard.IN_BOTH) return true;
      return this.isAssignable(a.resolvedType(), g);
    }
    if (k === "Variant") {
      if (this.kind === "Any") return true;
      const types = (o as PType & { types: readonly PType[] }).types;
      if (this.kind === "NotUndef" && types.length === 0) return this.assignableFrom(o, guard);
      return types.length > 0 && types.every((t) => this.isAssignable(t, guard));
    }
    if (k === "Optional") {
      const inner = (o as PType & { type: PType | undefined }).type;
      return (
        this.isAssignable(UNDEF_PROBE(), guard) && (inner === undefined || this.isAssignable(inner, guard))
      );
    }
    if (k === "NotUndef") {
      const inner = (o as PType & { type: PType | undefined }).type;
      if (inner !== undefined && !inner.isAssignable(UNDEF_PROBE())) return this.isAssignable(inner, guard);
      return this.assignableFrom(o, guard);
    }
    return this.assignableFrom(o, guard);
  }

  /** The class of type: the name, or `TypeAlias`/`Unit` for the internal kinds. */
  get kind(): string {
    return this.name;
  }
  /** The general form: `Integer[1, 2]` becomes `Integer`, `String['a']` becomes `String`. */
  generalize(): PType {
    return this;
  }
  /** The simplest equivalent type (variants merged, optionals of optionals removed). */
  normalize(): PType {
    return this;
  }
  /** The iterable type instances of this type are assignable to, if any. */
  iterableType(): PType | undefined {
    return undefined;
  }
  isIterable(): boolean {
    return false;
  }
}

Object.defineProperty(PType.prototype, "isPuppetType", { value: true, enumerable: false });

let undefProbe: PType | undefined;
/** Registered by the model: the Undef type, used by the generic rules. */
export function setUndefProbe(t: PType): void {
  undefProbe = t;
}
function UNDEF_PROBE(): PType {
  if (!undefProbe) throw new TypeSystemError("type system not initialised");
  return undefProbe;
}
