/** Edit distance between two words (insertions, deletions, substitutions, transpositions). */
export function getEditDistance(a: string, b: string): number {
  const cols = b.length + 1;
  // Three rolling rows: the transposition step looks two rows back.
  let before = new Array<number>(cols).fill(0);
  let previous = Array.from({ length: cols }, (_, j) => j);
  let current = new Array<number>(cols).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, before[j - 2] + 1);
      current[j] = value;
    }
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length];
}

/** Words longer than this get no suggestion: no typo makes one, and the cost grows with the square. */
const MAX_SUGGESTIBLE = 64;

/** The closest candidate to `word`, if one is close enough to be a likely typo. */
export function findSuggestion(word: string, candidates: Iterable<string>): string | undefined {
  if (word.length > MAX_SUGGESTIBLE) return undefined;
  const limit = Math.max(1, Math.floor(word.length / 3));
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    // The distance is at least the difference in length.
    if (Math.abs(candidate.length - word.length) >= bestDistance) continue;
    const distance = getEditDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** ` Did you mean 'x'?` or an empty string. */
export function formatSuggestion(word: string, candidates: Iterable<string>): string {
  const found = findSuggestion(word, candidates);
  return found === undefined ? "" : ` Did you mean '${found}'?`;
}
