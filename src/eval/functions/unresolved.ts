/**
 * When 3.21 postpones a function call because an argument still holds a
 * variable reference (`RlistIsUnresolved`): the call fails for now, and the
 * promise that made it is retried in a later pass.
 */
import { type Value, isList, isScalar } from "../values.js";

/**
 * 3.21's `IsCf3Scalar`: whether the text holds a complete `$(...)` or
 * `${...}`. `@(...)` does not count, and a `/` inside the brackets means it
 * is no reference (`$(/bin/cat file)` is shell syntax).
 */
export function holdsScalarReference(text: string): boolean {
  if (!text.includes("$")) return false;
  let left = "";
  let right = "";
  let dollar = false;
  let depth = 0;
  let found = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "$") {
      if (text[i + 1] === "{" || text[i + 1] === "(") dollar = true;
    } else if ((ch === "(" || ch === "{") && dollar) {
      left = ch;
      depth++;
    } else if ((ch === ")" || ch === "}") && dollar) {
      depth--;
      right = ch;
    }
    if (depth > 0 && ch === "/") return false;
    if (dollar && depth === 0 && ((left === "(" && right === ")") || (left === "{" && right === "}"))) {
      found = true;
      dollar = false;
    }
  }
  return found;
}

// The references maplist(), maparray() and mapdata() fill in themselves.
const THIS_REFERENCES = ["this", "this.k", "this.k[1]", "this.v"].flatMap((n) => [`$(${n})`, `\${${n}}`]);

/** Whether a scalar argument makes 3.21 postpone the call. */
function isUnresolvedText(text: string): boolean {
  if (!holdsScalarReference(text)) return false;
  return !THIS_REFERENCES.some((ref) => text.includes(ref));
}

/**
 * Whether an evaluated argument makes 3.21 postpone the call: a scalar (or
 * an item of a list) holding a reference; data containers never do.
 */
export function isUnresolvedArgument(value: Value): boolean {
  if (isScalar(value)) return isUnresolvedText(value.value);
  if (isList(value)) return value.value.some(isUnresolvedText);
  return false;
}

/**
 * Functions 3.21 marks "collecting": a list or data argument reaches them
 * whole (as a container); others get a list's items as separate arguments.
 */
export const COLLECTING_FUNCTIONS: ReadonlySet<string> = new Set([
  "data_expand",
  "difference",
  "every",
  "filesexist",
  "filter",
  "getindices",
  "getvalues",
  "grep",
  "intersection",
  "join",
  "length",
  "makerule",
  "maparray",
  "mapdata",
  "maplist",
  "max",
  "mean",
  "mergedata",
  "min",
  "none",
  "nth",
  "product",
  "regarray",
  "reglist",
  "reverse",
  "shuffle",
  "some",
  "sort",
  "storejson",
  "string_mustache",
  "sublist",
  "sum",
  "unique",
  "variance",
]);
