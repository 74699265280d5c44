/**
 * A pure function of a text, remembered: parsed policy strings, references
 * and class expressions are asked for again and again (each iteration, each
 * pass, the check and the run) and their results never change. At most
 * `limit` texts are kept (all forgotten at once when full, so memory stays
 * bounded whatever the policy); texts longer than `maxLength` (file
 * contents, JSON) are computed each time and not kept.
 */
export function memoizeText<T>(
  compute: (text: string) => T,
  limit: number,
  maxLength = Number.POSITIVE_INFINITY,
): (text: string) => T {
  const known = new Map<string, T>();
  return (text) => {
    if (text.length > maxLength) return compute(text);
    const found = known.get(text);
    if (found !== undefined || known.has(text)) return found as T;
    const value = compute(text);
    if (known.size >= limit) known.clear();
    known.set(text, value);
    return value;
  };
}
