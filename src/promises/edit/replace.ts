/**
 * `replace_patterns`: in each line, every match of the promiser regex is
 * replaced by the `replace_with` body's `replace_value` (only the first
 * with `occurrences => "first"`), the line searched again from its start
 * after each replacement, at most a fixed number of times. The groups of
 * each match are `$(match.0)`, `$(match.1)`... while the value expands.
 * A pattern that still matches the replaced line is not convergent: an
 * error, and the promise is interrupted.
 */
import { type Outcome, combineOutcomes } from "../../agent/outcome.js";
import { fromByteString, toByteString } from "../../eval/regex/bytes.js";
import { compileCfRegex, searchBytes } from "../../eval/regex/match.js";
import { PcreError } from "../../eval/regex/pcre.js";
import { expandRval } from "../../eval/expand.js";
import { scalar } from "../../eval/values.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "../contract.js";
import { asText } from "../values.js";
import { alreadyActed, closeEditPromise, editInfo, mayChange } from "./common.js";

/** Replacements tried on one line before giving up on it. */
const MAX_REPLACEMENTS = 20;

function setMatchScope(env: PromiseEnvironment, groups: readonly (string | undefined)[]): void {
  groups.forEach((group, i) => {
    env.ctx.setVariable(
      { ns: null, scope: "match", name: String(i), indices: [] },
      scalar(fromByteString(group ?? "")),
    );
  });
}

/** `replace_value`, expanded afresh for each match (the match scope changes). */
function replacement(promise: ActivePromise, env: PromiseEnvironment): string {
  const rval = promise.body("replace_with")?.attributes.get("replace_value")?.value;
  return (rval && asText(expandRval(env.ctx, rval, promise.options))) ?? "";
}

function evaluateReplacePatterns(promise: ActivePromise, env: PromiseEnvironment): Outcome {
  const session = env.editing;
  if (!session) return "skipped";
  const pattern = promise.promiser;
  const regex = compileCfRegex(pattern, { global: true });
  if (regex instanceof PcreError) {
    env.log.error(`Regular expression error in '${pattern}': ${regex.message}`);
    return closeEditPromise("replace_patterns", promise, env, "failed");
  }
  if (alreadyActed(promise, env, session)) return "skipped";
  const onlyFirst = asText(promise.bodyValue("replace_with", "occurrences")) === "first";
  if (onlyFirst) env.log.warning("Setting replace-occurrences policy to 'first' is not convergent");
  const anchored = pattern.startsWith("^") && pattern.endsWith("$");
  let outcome: Outcome = "kept";
  const note = (o: Outcome) => {
    outcome = combineOutcomes(outcome, o);
  };
  let found = false;
  const lines = session.lines;
  for (let i = 0; i < lines.length; i++) {
    const original = lines[i] as string;
    let buffer = toByteString(original);
    let replaced = false;
    let lastLength = 0;
    for (let tries = 1; ; tries++) {
      const match = searchBytes(regex, buffer);
      if (!match) break;
      if (lastLength === buffer.length) {
        env.log.verbose("Improper convergent expression matches defacto convergence, so accepting");
        break;
      }
      if (tries > MAX_REPLACEMENTS) {
        env.log.verbose("Too many replacements on this line");
        break;
      }
      lastLength = match.end - match.start;
      setMatchScope(env, match.groups);
      const value = toByteString(replacement(promise, env));
      buffer = buffer.slice(0, match.start) + value + buffer.slice(match.end);
      found = true;
      replaced = true;
      if (onlyFirst) break;
    }
    const line = fromByteString(buffer);
    if (!anchored && searchBytes(regex, buffer)) {
      env.log.error(
        `Promised replacement '${line}' on line '${original}' for pattern '${pattern}' is not convergent while editing '${session.filename}' (regular expression matches the replacement string)`,
      );
      note("interrupted");
      break;
    }
    if (!replaced) continue;
    if (!mayChange(promise, env, `replace pattern '${pattern}' in '${session.filename}'`, note)) continue;
    lines[i] = line;
    session.changed = true;
    editInfo(env, `Replaced pattern '${pattern}' in '${session.filename}'`);
    note("repaired");
    if (onlyFirst) break;
    if (searchBytes(regex, buffer)) {
      env.log.error(
        `Promised replacement '${line}' for pattern '${pattern}' is not properly convergent while editing '${session.filename}' (pattern still matches the end-state replacement string '${line}', consider use of a negative look ahead)`,
      );
      note("interrupted");
    }
  }
  if (!found) env.log.verbose(`No match for pattern '${pattern}' in '${session.filename}'`);
  return closeEditPromise("replace_patterns", promise, env, outcome);
}

export const replacePatternsPromiseType: PromiseType = {
  name: "replace_patterns",
  evaluate: evaluateReplacePatterns,
};
