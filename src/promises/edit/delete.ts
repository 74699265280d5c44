/**
 * `delete_lines`: every line (or run of lines, for a promiser with
 * newlines) fully matching the promiser regex goes; `not_matching` deletes
 * the lines that do not match instead.
 */
import { type Outcome, combineOutcomes } from "../../agent/outcome.js";
import { matchesFully } from "../../eval/regex/match.js";
import { PcreError } from "../../eval/regex/pcre.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "../contract.js";
import { asBoolean } from "../values.js";
import { alreadyActed, closeEditPromise, editInfo, matchChunk, mayChange } from "./common.js";

function evaluateDeleteLines(promise: ActivePromise, env: PromiseEnvironment): Outcome {
  const session = env.editing;
  if (!session) return "skipped";
  if (alreadyActed(promise, env, session)) return "skipped";
  const notMatching = asBoolean(promise.value("not_matching"), false);
  let outcome: Outcome = "kept";
  const note = (o: Outcome) => {
    outcome = combineOutcomes(outcome, o);
  };
  let bad: PcreError | undefined;
  const same = (piece: string, line: string): boolean => {
    const result = matchesFully(piece, line);
    if (result instanceof PcreError) {
      bad = result;
      return false;
    }
    return result;
  };
  const lines = session.lines;
  let i = 0;
  let edited = false;
  while (i < lines.length) {
    let count = matchChunk(promise.promiser, lines, i, same);
    if (bad) {
      env.log.error(`Regular expression error in '${promise.promiser}': ${bad.message}`);
      return closeEditPromise("delete_lines", promise, env, "failed");
    }
    if (notMatching) count = count ? 0 : 1;
    if (!count) {
      i++;
      continue;
    }
    if (!mayChange(promise, env, `delete line '${lines[i]}' from ${session.filename}`, note)) {
      edited = true;
      i++;
      continue;
    }
    for (let k = 1; k <= count; k++) {
      editInfo(env, `Deleted the promised line ${k} '${lines[i]}' from ${session.filename}`);
      lines.splice(i, 1);
    }
    session.changed = true;
    edited = true;
    note("repaired");
  }
  if (!edited) env.log.verbose(`No need to delete lines from ${session.filename}, ok`);
  return closeEditPromise("delete_lines", promise, env, outcome);
}

export const deleteLinesPromiseType: PromiseType = {
  name: "delete_lines",
  evaluate: evaluateDeleteLines,
};
