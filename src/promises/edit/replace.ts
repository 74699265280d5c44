/**
 * `replace_patterns`, as cf-agent 3.21 replaces. In each line of the file
 * (or of the region, its start delimiter included) the first match of the
 * promiser is replaced by `replace_value` (expanded afresh for each match,
 * its groups as `$(match.0)`, `$(match.1)`...), and the line searched again
 * from its start, up to 20 times (only once with `occurrences =>
 * "first"`, which also stops after the first line changed).
 *
 * A pattern that is not anchored at both ends and still matches the line
 * after replacing is not convergent: an error, and the promise stops.
 */
import type { Outcome } from "../outcome.js";
import { expandRval } from "../../eval/expand.js";
import { fromByteString, toByteString } from "../../eval/regex/bytes.js";
import { type ByteMatch, searchBytes } from "../../eval/regex/match.js";
import type { PcreRegExp } from "../../eval/regex/pcre.js";
import { scalar } from "../../eval/values.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "../contract.js";
import { asText } from "../values.js";
import { EditRecord, alreadyActed } from "./common.js";
import type { Line } from "./lines.js";
import { searchRegex } from "./match.js";
import { regionOf, selectRegion } from "./region.js";

/** Replacements tried on one line before giving up on it (CF_MAX_REPLACE). */
const MAX_REPLACEMENTS = 20;

/** The match scope as cf-agent sets it: groups up to the last one that took part. */
function setMatchScope(env: PromiseEnvironment, match: ByteMatch): void {
  env.ctx.clearScope("default", "match");
  let count = match.groups.length;
  while (count > 1 && match.groups[count - 1] === undefined) count--;
  for (let i = 0; i < count; i++) {
    env.ctx.setVariable(
      { ns: null, scope: "match", name: String(i), indices: [] },
      scalar(fromByteString(match.groups[i] ?? "")),
    );
  }
}

/** `replace_value`, expanded for the current match. */
function replacement(promise: ActivePromise, env: PromiseEnvironment): string {
  const rval = promise.body("replace_with")?.attributes.get("replace_value")?.value;
  return (rval && asText(expandRval(env.ctx, rval, promise.options))) ?? "";
}

function notAnchored(pattern: string): boolean {
  return !pattern.startsWith("^") || !pattern.endsWith("$");
}

class Replacement {
  found = false;

  constructor(
    readonly record: EditRecord,
    readonly regex: PcreRegExp,
    readonly onlyFirst: boolean,
  ) {}

  private search(bytes: string): ByteMatch | null {
    const match = searchBytes(this.regex, bytes);
    if (match) setMatchScope(this.record.env, match);
    return match;
  }

  /** The line with its matches replaced, as a byte string; whether anything was replaced. */
  private replaceIn(text: string): [string, boolean] {
    const { env, promise } = this.record;
    let buffer = toByteString(text);
    let replaced = false;
    let lastLength = 0;
    for (let tries = 1; ; tries++) {
      const match = this.search(buffer);
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
      const value = replacement(promise, env);
      env.log.verbose(`Verifying replacement of '${promise.promiser}' with '${value}', cutoff ${tries + 1}`);
      buffer = buffer.slice(0, match.start) + toByteString(value) + buffer.slice(match.end);
      this.found = true;
      replaced = true;
      if (this.onlyFirst) break;
    }
    return [buffer, replaced];
  }

  /** Works through the lines from `first` to `stop`. */
  run(first: Line | null, stop: Line | null): void {
    const { promise, session } = this.record;
    const pattern = promise.promiser;
    const file = session.filename;
    for (let line = first; line && line !== stop; line = line.next) {
      const [buffer, replaced] = this.replaceIn(line.text);
      const result = fromByteString(buffer);
      if (notAnchored(pattern) && this.search(buffer)) {
        this.record.interrupted(
          `Promised replacement '${result}' on line '${line.text}' for pattern '${pattern}' is not convergent while editing '${file}' (regular expression matches the replacement string)`,
        );
        this.record.ref("error");
        return;
      }
      if (!this.record.making(`replace pattern '${pattern}' in '${file}'`) || !replaced) continue;
      line.text = result;
      this.record.changed(`Replaced pattern '${pattern}' in '${file}'`);
      session.edits++;
      if (this.onlyFirst) return;
      if (this.search(buffer)) {
        this.record.interrupted(
          `Promised replacement '${result}' for pattern '${pattern}' is not properly convergent while editing '${file}' (pattern still matches the end-state replacement string '${result}', consider use of a negative look ahead)`,
        );
        this.record.ref("info");
      }
    }
  }
}

function evaluateReplacePatterns(promise: ActivePromise, env: PromiseEnvironment): Outcome {
  const session = env.editing;
  if (!session) return "skipped";
  const record = new EditRecord(promise, env, session);
  const file = session.filename;
  env.log.verbose(`Looking at pattern '${promise.promiser}'`);
  if (!promise.body("replace_with")?.attributes.has("replace_value")) {
    record.failed(`The promised pattern replace '${promise.promiser}' has no replacement string`);
    return "failed";
  }
  let first = session.lines.head;
  let stop: Line | null = null;
  const spec = regionOf(promise, env);
  if (spec) {
    const region = selectRegion(env, session.lines.head, spec, file);
    if (!region) {
      record.interrupted(
        `The promised pattern replace '${promise.promiser}' could not select an edit region in '${file}'`,
      );
      return record.outcome;
    }
    first = region.begin;
    stop = region.end;
  }
  if (alreadyActed(promise, env, `replace-${file}`)) return "skipped";
  const onlyFirst = asText(promise.bodyValue("replace_with", "occurrences")) === "first";
  if (onlyFirst) env.log.warning("Setting replace-occurrences policy to 'first' is not convergent");
  const regex = searchRegex(env, promise.promiser);
  const replacement = regex && new Replacement(record, regex, onlyFirst);
  replacement?.run(first, stop);
  env.ctx.clearScope("default", "match");
  if (!replacement?.found) record.unchanged(`No match for pattern '${promise.promiser}' in '${file}'`);
  return record.close("replace_patterns");
}

export const replacePatternsPromiseType: PromiseType = {
  name: "replace_patterns",
  evaluate: evaluateReplacePatterns,
};
