/**
 * Lower-cased capitalised names (`File` → `file`, `Gen::C000` → `gen::c000`),
 * one string per name. Each resource is tagged with its type and each
 * reference keeps its type's name in lower case: made per resource, that
 * would be one more string per resource kept in the catalog. A thousand
 * names at most are kept.
 */
const LOWERED = new Map<string, string>();

/** `name` in lower case (the same string for the same capitalised name). */
export function lowerCaseName(name: string): string {
  const c = name.charCodeAt(0);
  if (c < 65 || c > 90) return name.toLowerCase();
  let lower = LOWERED.get(name);
  if (lower === undefined) {
    lower = name.toLowerCase();
    if (LOWERED.size < 1000) LOWERED.set(name, lower);
  }
  return lower;
}
