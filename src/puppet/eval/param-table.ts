/**
 * A resource's parameters by name, in the order they were first set (as a
 * Map keeps them): a list searched by name. A resource has a handful of
 * parameters and ten thousand resources keep theirs to the end of the
 * compile: a Map of five takes ~450 bytes (a table of four, outgrown at the
 * fifth, then one of eight), this table and its list ~130.
 */
import type { Definition } from "./definitions.js";
import type { PValue } from "./values.js";

/** One parameter's value and where it was set. */
export interface ParamEntry {
  readonly name: string;
  value: PValue;
  readonly source: Definition | undefined;
  /** `+>`: appended to the current value by an override. */
  readonly add?: boolean;
  /**
   * The offset of the attribute in its source (the file of `source`, or a
   * main manifest): one number kept, made a line only when an error needs it.
   */
  readonly at?: number;
}

/** The names seen, each as V8's internalized string (one per text). */
const NAMES = new Map<string, string>();

/**
 * `name` as the one string V8 keeps for its text, as it keeps the names
 * written in the code: the compiler looks parameters up by such names
 * (`stage`, `alias`, `require`), and two of them compare by identity
 * alone. A parser's name is a string of its own, compared character by
 * character, in a call, with each entry a lookup passes.
 */
export function internName(name: string): string {
  let known = NAMES.get(name);
  if (known === undefined) {
    // A property's key is internalized: Object.keys gives it back.
    known = Object.keys({ [name]: true })[0] ?? name;
    NAMES.set(name, known);
  }
  return known;
}

/** Beyond this many parameters a table indexes them (below it, a search of the list is quicker). */
const INDEXED = 16;

export class ParamTable implements ReadonlyMap<string, ParamEntry> {
  declare private readonly list: ParamEntry[];
  declare private index: Map<string, ParamEntry> | undefined;

  /** A table of `list`, which becomes its own: its names must differ. */
  constructor(list: ParamEntry[] = []) {
    this.list = list;
    this.index = list.length > INDEXED ? new Map(list.map((p) => [p.name, p])) : undefined;
  }

  get size(): number {
    return this.list.length;
  }

  get(name: string): ParamEntry | undefined {
    if (this.index !== undefined) return this.index.get(name);
    const list = this.list;
    for (let i = 0; i < list.length; i++) if ((list[i] as ParamEntry).name === name) return list[i];
    return undefined;
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  /** Sets the entry of its name: in the place of the one it replaces, else last. */
  set(entry: ParamEntry): void {
    const list = this.list;
    if (this.index === undefined || this.index.has(entry.name)) {
      for (let i = 0; i < list.length; i++) {
        if ((list[i] as ParamEntry).name === entry.name) {
          list[i] = entry;
          this.index?.set(entry.name, entry);
          return;
        }
      }
    }
    list.push(entry);
    if (this.index !== undefined) this.index.set(entry.name, entry);
    else if (list.length > INDEXED) this.index = new Map(list.map((p) => [p.name, p]));
  }

  /** Whether `test` holds for the value of an entry (those of undef too). */
  someValue(test: (value: PValue) => boolean): boolean {
    const list = this.list;
    for (let i = 0; i < list.length; i++) if (test((list[i] as ParamEntry).value)) return true;
    return false;
  }

  /** Indexed, not for-of: no iterator result made per entry in code not yet optimized. */
  forEach(f: (entry: ParamEntry, name: string, table: ReadonlyMap<string, ParamEntry>) => void): void {
    const list = this.list;
    for (let i = 0; i < list.length; i++) {
      const p = list[i] as ParamEntry;
      f(p, p.name, this);
    }
  }

  *entries(): MapIterator<[string, ParamEntry]> {
    for (const p of this.list) yield [p.name, p];
  }

  *keys(): MapIterator<string> {
    for (const p of this.list) yield p.name;
  }

  *values(): MapIterator<ParamEntry> {
    for (const p of this.list) yield p;
  }

  [Symbol.iterator](): MapIterator<[string, ParamEntry]> {
    return this.entries();
  }
}
