/**
 * The Puppet 7 type system: CONTRACT (filled in by the type-system work).
 * Every type is a `PType`; `typeByName` knows the built-in names, the
 * evaluator resolves aliases and resource types through a `TypeResolver`.
 * Resource and class references are types too: `File['/x']` is
 * `Resource['file', '/x']`, `Class['ntp']` is a Class type with a title.
 */
import type { PValue } from "./values.js";

export class TypeSystemError extends Error {}

export abstract class PType {
  readonly isPuppetType = true as const;
  /** The type's name without parameters: `Integer`, `Resource`, `Class`, `Struct`... */
  abstract readonly name: string;
  /** Whether `v` is an instance of this type. */
  abstract isInstance(v: PValue): boolean;
  /** Whether every instance of `t` is an instance of this type. */
  abstract isAssignable(t: PType): boolean;
  /** Puppet's rendering: `Integer[1, 10]`, `Enum['a', 'b']`, `File['/x']`, `Class[Ntp]`. */
  abstract toString(): string;
  abstract equals(other: PType): boolean;
}

/** How the type system reaches names it does not own (aliases, resource types, classes). */
export interface TypeResolver {
  /** A type alias or a resource type by lower-case name (`my::type`, `file`), or undefined. */
  resolve(name: string): PType | undefined;
}

/** The built-in type named `name` (case as written: `Integer`, `Optional`), unparameterised; undefined when not built in. */
export function typeByName(name: string): PType | undefined {
  throw new TypeSystemError("the type system is not written yet");
}

/** `T[args]`: parameterise a type (`Integer[1]`, `Resource['file', 'x']`, `Class['a', 'b']` gives several). Throws a TypeSystemError on bad arguments. */
export function parameterize(t: PType, args: readonly PValue[]): PType | PType[] {
  throw new TypeSystemError("the type system is not written yet");
}

/** The type Puppet infers for a value (`Integer[3, 3]`, `String`, `Array[Integer]`...), as `type_of` returns it. */
export function inferType(v: PValue): PType {
  throw new TypeSystemError("the type system is not written yet");
}

/** `T.new(args)`: Puppet's conversions (`Integer('0x10')`, `String(v, '%x')`, `Array(h)`, `Hash(a)`, `Sensitive(v)`...). */
export function newInstance(t: PType, args: readonly PValue[]): PValue {
  throw new TypeSystemError("the type system is not written yet");
}

/** Puppet's text for a failed type check of a named value: "parameter 'x' expects an Integer value, got String". */
export function describeMismatch(subject: string, expected: PType, actual: PValue): string {
  throw new TypeSystemError("the type system is not written yet");
}

/** Puppet's `String(v)` / string interpolation of any value: `[1, 2]`, `{a => 1}`, `File[/x]`. */
export function formatValue(v: PValue): string {
  throw new TypeSystemError("the type system is not written yet");
}
