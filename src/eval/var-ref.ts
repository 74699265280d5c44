/**
 * Variable references as written inside `$( )`: `name`, `bundle.name`,
 * `ns:bundle.name`, each optionally followed by `[index]...`.
 */
export interface VarRef {
  readonly ns: string | null;
  readonly scope: string | null;
  readonly name: string;
  readonly indices: readonly string[];
}

import { memoizeText } from "../text/memo.js";

/** Scopes that live in the default namespace whatever namespace refers to them. */
export const SPECIAL_SCOPES: ReadonlySet<string> = new Set([
  "sys",
  "const",
  "this",
  "mon",
  "edit",
  "match",
  "body",
]);

/**
 * Parses a reference; indexes may themselves contain dots and colons.
 * Remembered: the same few names are looked up again and again (each
 * expansion of each promise), and a parsed reference is immutable.
 */
export const parseVarRef: (text: string) => VarRef = memoizeText(parseVarRefText, 20000, 512);

function parseVarRefText(text: string): VarRef {
  const bracket = text.indexOf("[");
  const head = bracket === -1 ? text : text.slice(0, bracket);
  const indices = bracket === -1 ? [] : splitIndices(text.slice(bracket));
  const colon = head.indexOf(":");
  const ns = colon === -1 ? null : head.slice(0, colon);
  const rest = colon === -1 ? head : head.slice(colon + 1);
  const dot = rest.indexOf(".");
  if (dot === -1) return { ns, scope: null, name: rest, indices };
  return { ns, scope: rest.slice(0, dot), name: rest.slice(dot + 1), indices };
}

function splitIndices(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "[") {
      if (depth === 0) start = i + 1;
      depth++;
    } else if (ch === "]") {
      depth--;
      if (depth === 0) out.push(text.slice(start, i));
    }
  }
  return out;
}

/** The name with its indexes, as a classic array entry is stored: `x[a][b]`. */
export function lvalKey(name: string, indices: readonly string[]): string {
  if (indices.length === 0) return name;
  let key = name;
  for (const index of indices) key += `[${index}]`;
  return key;
}

export function formatVarRef(ref: VarRef): string {
  const scope = ref.scope === null ? "" : `${ref.scope}.`;
  const ns = ref.ns === null ? "" : `${ref.ns}:`;
  return ns + scope + lvalKey(ref.name, ref.indices);
}
