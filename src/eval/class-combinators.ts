/**
 * The conditions of a `classes` promise (`expression`, `and`, `or`, `xor`,
 * `not`), shared by pre-evaluation and the agent's classes promise type.
 */
export const CLASS_COMBINATORS = ["expression", "and", "or", "xor", "not"] as const;
export type ClassCombinator = (typeof CLASS_COMBINATORS)[number];

export function isClassCombinator(name: string): name is ClassCombinator {
  return (CLASS_COMBINATORS as readonly string[]).includes(name);
}

/** Whether the combinator holds over the truths of its class expressions. */
export function combineTruths(combinator: ClassCombinator, truths: readonly boolean[]): boolean {
  switch (combinator) {
    case "or":
      return truths.some(Boolean);
    case "xor":
      return truths.filter(Boolean).length === 1;
    case "not":
      return !truths[0];
    default:
      return truths.every(Boolean);
  }
}
