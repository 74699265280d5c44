/**
 * `delete_lines`, as cf-agent 3.21 deletes: every line (or run of lines,
 * for a promiser with newlines) fully matching the promiser goes, within
 * the region if one is selected (its delimiters only when included);
 * `not_matching` deletes the lines that do not match instead, and
 * `delete_select` limits the lines considered.
 */
import type { Outcome } from "../outcome.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "../contract.js";
import { asBoolean } from "../values.js";
import { matchRegion } from "./chunks.js";
import { EditRecord, alreadyActed } from "./common.js";
import { type LineSelect, lineSelectOf, selectLine } from "./line-select.js";
import type { Line } from "./lines.js";
import { type RegionSpec, regionOf, selectRegion } from "./region.js";

interface Bounds {
  readonly first: Line | null;
  /** The first line past the region (null: the end of the file). */
  readonly stop: Line | null;
}

function deleteMatching(
  record: EditRecord,
  bounds: Bounds,
  notMatching: boolean,
  select: LineSelect | undefined,
) {
  const { env, session, promise } = record;
  let noEdits = true;
  let line = bounds.first;
  while (line && line !== bounds.stop) {
    const found = matchRegion(env, promise.promiser, line, bounds.stop, true);
    const count = notMatching ? (found ? 0 : 1) : found;
    if (count) env.log.verbose(`Multi-line region (${count} lines) matched text in the file`);
    if (!selectLine(env, line.text, select) || !count) {
      line = line.next;
      continue;
    }
    env.log.verbose(`Delete chunk of ${count} lines`);
    if (!record.making(`delete line '${line.text}' from ${session.filename}`)) {
      noEdits = false;
      line = line.next;
      continue;
    }
    for (let k = 1; k <= count && line; k++) {
      record.changed(`Deleted the promised line ${k} '${line.text}' from ${session.filename}`);
      noEdits = false;
      line = session.lines.remove(line);
      session.edits++;
    }
  }
  if (noEdits) record.unchanged(`No need to delete lines from ${session.filename}, ok`);
}

/** Where deletion starts and stops, given the region's delimiters. */
function boundsOf(
  spec: RegionSpec | undefined,
  begin: Line | null,
  end: Line | null,
  head: Line | null,
): Bounds {
  const first = begin === null ? head : spec?.includeStart ? begin : begin.next;
  const stop = end === null ? null : spec?.includeEnd ? end.next : end;
  return { first, stop };
}

function evaluateDeleteLines(promise: ActivePromise, env: PromiseEnvironment): Outcome {
  const session = env.editing;
  if (!session) return "skipped";
  const record = new EditRecord(promise, env, session);
  const file = session.filename;
  const notMatching = asBoolean(promise.value("not_matching"), false);
  if (promise.promiser.includes("\n") && notMatching) {
    env.log.error(
      "Makes no sense to promise multi-line delete with not_matching. Cannot be satisfied for all lines as a block.",
    );
  }
  const spec = regionOf(promise, env);
  let begin: Line | null = null;
  let end: Line | null = null;
  if (spec) {
    const region = selectRegion(env, session.lines.head, spec, file);
    if (!region) {
      const why =
        spec.includeStart || spec.includeEnd
          ? "(this is a good thing, as policy suggests deleting the markers)"
          : "(but the delimiters were expected in the file)";
      record.interrupted(
        `The promised line deletion '${promise.promiser}' could not select an edit region in '${file}' ${why}`,
      );
      return record.outcome;
    }
    ({ begin, end } = region);
    if (!end && spec.end !== undefined && !spec.endMatchesEof) {
      record.interrupted(
        `The promised end pattern '${spec.end}' was not found when selecting region to delete in '${file}'`,
      );
      return record.outcome;
    }
  }
  if (alreadyActed(promise, env, `deleteline-${file}`)) return "skipped";
  deleteMatching(
    record,
    boundsOf(spec, begin, end, session.lines.head),
    notMatching,
    lineSelectOf(promise, "delete"),
  );
  return record.close("delete_lines");
}

export const deleteLinesPromiseType: PromiseType = {
  name: "delete_lines",
  evaluate: evaluateDeleteLines,
};
