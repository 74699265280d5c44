/**
 * Resource and class references as the compiler reads them: the type
 * system's `Resource['file', '/x']` (PResourceType) and `Class['ntp']`
 * (PClassType) seen as a capitalised type name and a title, the text the
 * catalog uses (`File[/x]`, `Class[Ntp]`), and back to a type value.
 */
import { PClassType, PResourceType, type PType } from "./types.js";
import type { PValue } from "./values.js";

/** `foo::bar` → `Foo::Bar`: Puppet's capitalisation of a resource type name. */
/** Capitalised one-segment names (`file` → `File`), a thousand at most. */
const CAPITALIZED = new Map<string, string>();

export function capitalizeTypeName(name: string): string {
  // The common case, one segment (`file`, `File`): no split, no join.
  if (name.indexOf("::") === -1) {
    const c = name.charCodeAt(0);
    if (c >= 97 && c <= 122) {
      // One string per type name, not one per resource (kept in the catalog).
      let capitalized = CAPITALIZED.get(name);
      if (capitalized === undefined) {
        capitalized = String.fromCharCode(c - 32) + name.slice(1);
        if (CAPITALIZED.size < 1000) CAPITALIZED.set(name, capitalized);
      }
      return capitalized;
    }
    if (c < 128 || Number.isNaN(c)) return name;
  }
  return name
    .split("::")
    .map((s) => (s.length === 0 ? s : s[0]?.toUpperCase() + s.slice(1)))
    .join("::");
}

/** A reference: `typeName` capitalised (`File`, `Class`, `Foo::Bar`); `title` undefined for the type alone. */
export class ResourceRef {
  declare readonly typeName: string;
  declare readonly title?: string;
  constructor(typeName: string, title?: string) {
    this.typeName = typeName;
    this.title = title;
  }

  /** The catalog's reference text: `File[/x]`, `Class[Ntp]`. */
  refString(): string {
    if (this.typeName === "Class") return `Class[${capitalizeTypeName(this.title ?? "")}]`;
    return `${this.typeName}[${this.title ?? ""}]`;
  }

  /** The type value (`File['/x']`, `Class[ntp]`). */
  toType(): PType {
    if (this.typeName === "Class") return new PClassType(this.title?.toLowerCase());
    return new PResourceType(this.typeName === "Resource" ? undefined : this.typeName, this.title);
  }
}

/** The reference a value stands for, if it is one. */
export function asResourceRef(v: PValue | ResourceRef): ResourceRef | undefined {
  if (v instanceof ResourceRef) return v;
  if (v instanceof PClassType) return new ResourceRef("Class", v.className);
  if (v instanceof PResourceType) {
    return new ResourceRef(v.typeName === undefined ? "Resource" : capitalizeTypeName(v.typeName), v.title);
  }
  return undefined;
}
