/**
 * `insert_select` / `delete_select`: which lines a promise may insert or
 * delete, by the first of six lists the body gives (as cf-agent checks
 * them): lines starting with, fully matching or containing (a regex
 * search) one of the list's items, or not doing so.
 */
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import { asStrings } from "../values.js";
import { blockTextMatch, fullTextMatch } from "./match.js";

type Test = "startwith" | "match" | "contains";

export interface LineSelect {
  readonly test: Test;
  readonly negated: boolean;
  readonly items: readonly string[];
  /** How many lists were given, positive and negative (for the sanity checks). */
  readonly positive: number;
  readonly negative: number;
}

const ORDER: readonly [Test, boolean][] = [
  ["startwith", false],
  ["startwith", true],
  ["match", false],
  ["match", true],
  ["contains", false],
  ["contains", true],
];

/** The promise's selection (`kind` is "insert" or "delete"); undefined selects every line. */
export function lineSelectOf(promise: ActivePromise, kind: "insert" | "delete"): LineSelect | undefined {
  const body = `${kind}_select`;
  if (!promise.body(body)) return undefined;
  let chosen: LineSelect | undefined;
  let positive = 0;
  let negative = 0;
  for (const [test, negated] of ORDER) {
    const name = `${kind}_if_${negated ? "not_" : ""}${test}_from_list`;
    if (!promise.body(body)?.attributes.has(name)) continue;
    const items = asStrings(promise.bodyValue(body, name));
    // An empty list counts as none given (a null list in cf-agent).
    if (items.length === 0) continue;
    if (negated) negative++;
    else positive++;
    chosen ??= { test, negated, items, positive: 0, negative: 0 };
  }
  return chosen ? { ...chosen, positive, negative } : undefined;
}

/** Whether the selection lets the promise act on `line`. */
export function selectLine(env: PromiseEnvironment, line: string, select: LineSelect | undefined): boolean {
  if (!select) return true;
  const hit = select.items.some((item) => {
    if (select.test === "startwith") return line.startsWith(item);
    if (select.test === "match") return fullTextMatch(env, item, line);
    return blockTextMatch(env, item, line) !== null;
  });
  return select.negated ? !hit : hit;
}
