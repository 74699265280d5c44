/**
 * Resource and class references as the compiler handles them: `File['/x']`,
 * `Class['ntp']`, `Foo::Bar` (an unparameterised resource type). They are
 * types (PType), so they flow through values as Puppet's do; the compiler
 * reads their `typeName` and `title` to find resources. Types built by the
 * type system with the same shape are recognised by `asResourceRef`.
 */
import { PType } from "./types.js";
import { type PValue, isType } from "./values.js";

/** `Foo::bar` → `Foo::Bar`: Puppet's capitalisation of a resource type name. */
export function capitalizeTypeName(name: string): string {
  return name
    .split("::")
    .map((s) => (s.length === 0 ? s : s[0]?.toUpperCase() + s.slice(1)))
    .join("::");
}

/**
 * A resource reference: `typeName` is capitalised (`File`, `Class`,
 * `Foo::Bar`); `title` is undefined for the type alone (`File`).
 */
export class ResourceRef extends PType {
  readonly name: string;
  constructor(
    readonly typeName: string,
    readonly title?: string,
  ) {
    super();
    this.name = typeName === "Class" ? "Class" : "Resource";
  }
  isInstance(_v: PValue): boolean {
    return false;
  }
  isAssignable(t: PType): boolean {
    const r = asResourceRef(t);
    if (!r) return false;
    if (this.typeName === "Resource") return true;
    if (r.typeName.toLowerCase() !== this.typeName.toLowerCase()) return false;
    return this.title === undefined || this.title === r.title;
  }
  /** Puppet's type rendering: `File['/x']`, `Class[Ntp]`... */
  toString(): string {
    if (this.title === undefined) return this.typeName;
    if (this.typeName === "Class") return `Class[${capitalizeTypeName(this.title)}]`;
    return `${this.typeName}['${this.title.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}']`;
  }
  /** The catalog's reference text: `File[/x]`, `Class[Ntp]`. */
  refString(): string {
    if (this.typeName === "Class") return `Class[${capitalizeTypeName(this.title ?? "")}]`;
    return `${this.typeName}[${this.title ?? ""}]`;
  }
  equals(other: PType): boolean {
    const r = asResourceRef(other);
    return r !== undefined && r.typeName === this.typeName && r.title === this.title;
  }
}

/** The reference a value stands for, if it is one (ours or the type system's). */
export function asResourceRef(v: PValue): ResourceRef | undefined {
  if (v instanceof ResourceRef) return v;
  if (!isType(v)) return undefined;
  const o = v as unknown as { typeName?: unknown; title?: unknown; className?: unknown };
  if (v.name === "Class") {
    const title = typeof o.className === "string" ? o.className : typeof o.title === "string" ? o.title : undefined;
    return new ResourceRef("Class", title);
  }
  if (v.name === "Resource" && typeof o.typeName === "string") {
    return new ResourceRef(capitalizeTypeName(o.typeName), typeof o.title === "string" ? o.title : undefined);
  }
  return undefined;
}
