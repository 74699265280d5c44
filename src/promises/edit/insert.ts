/**
 * `insert_lines`, as cf-agent 3.21 inserts. The promiser is a line, or
 * several (split at newlines), or with `insert_type => "file"` /
 * `"file_preserve_block"` the path of a file whose lines are inserted.
 *
 * Where: without `location`, at the end of the file (or of the region);
 * with `before_after => "before"`, at the start of the file; with
 * `select_line_matching`, after (or before) the last (or, `first_last =>
 * "first"`, the first) line fully matching it. A line already present in
 * the file (or region) is not inserted again, unless the insert type
 * preserves blocks; `whitespace_policy` says when lines count as equal,
 * `insert_select` which lines may go in.
 */
import type { Outcome } from "../outcome.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "../contract.js";
import { asBoolean, asStrings, asText } from "../values.js";
import { matchRegion } from "./chunks.js";
import { EditRecord, alreadyActed } from "./common.js";
import { insertFileAtLocation } from "./insert-file.js";
import { type LineSelect, lineSelectOf, selectLine } from "./line-select.js";
import type { Line } from "./lines.js";
import { fullTextMatch } from "./match.js";
import { regionOf, selectRegion } from "./region.js";
import { type WhitespaceOption, matchesPolicy, whitespaceOption } from "./whitespace-policy.js";

/** What an insertion needs to know about its promise, read once. */
export interface InsertSpec {
  readonly type: string | undefined;
  readonly before: boolean;
  readonly select: LineSelect | undefined;
  readonly policy: readonly WhitespaceOption[];
  readonly expandScalars: boolean;
}

/** An insertion into the file, between the region's bounds. */
export class Insertion {
  constructor(
    readonly record: EditRecord,
    readonly spec: InsertSpec,
    readonly begin: Line | null,
    readonly end: Line | null,
  ) {}

  get env(): PromiseEnvironment {
    return this.record.env;
  }
  get lines() {
    return this.record.session.lines;
  }
  get promiser(): string {
    return this.record.promise.promiser;
  }
  get preserveAll(): boolean {
    return this.spec.type === "preserve_all_lines";
  }
  /** Types that insert lines as a block, even where some are present. */
  get preserveBlock(): boolean {
    const t = this.spec.type;
    return t === "preserve_all_lines" || t === "preserve_block" || t === "file_preserve_block";
  }

  /** No locator: at the start or the end of the region (or file). */
  intoRegion(): void {
    if (!this.lines.head) {
      this.atLocation(null, null);
      return;
    }
    if (this.spec.before) {
      if (this.begin) this.atLocation(this.begin, null);
      return;
    }
    let prev: Line | null = null;
    for (let line = this.begin; line; line = line.next) {
      if (!this.preserveAll && matchRegion(this.env, this.promiser, line, this.end, false)) {
        this.record.unchanged(
          `Promised chunk '${this.promiser}' exists within selected region of ${this.record.filename}`,
        );
        return;
      }
      if ((line.next && line.next === this.end) || !line.next) {
        this.atLocation(line, prev);
        return;
      }
      prev = line;
    }
  }

  atLocation(location: Line | null, prev: Line | null): void {
    const type = this.spec.type;
    if (type === "file" || type === "file_preserve_block") insertFileAtLocation(this, location, prev);
    else this.chunkAtLocation(this.promiser, location, prev);
  }

  /** Whether a line matching `text` (by the whitespace policy) is in the region. */
  inRegion(text: string): boolean {
    for (let line = this.begin; line && line !== this.end; line = line.next) {
      if (matchesPolicy(this.env, text, line.text, this.spec.policy, () => this.record.ref("error")))
        return true;
    }
    return false;
  }

  /** The lines of `chunk`, one after the other, from a position. */
  chunkAtLocation(chunk: string, location: Line | null, prev: Line | null): void {
    if (!this.preserveAll && matchRegion(this.env, chunk, location, null, false)) {
      this.record.unchanged(
        `Promised chunk '${this.promiser}' exists within selected region of ${this.record.filename} (promise kept)`,
      );
      return;
    }
    let at = location;
    let before = prev;
    for (const text of chunk.split("\n")) {
      if (!selectLine(this.env, text, this.spec.select)) continue;
      if (!this.preserveBlock && this.inRegion(text)) {
        this.record.unchanged(
          `Promised chunk '${this.promiser}' exists within selected region of '${this.record.filename}'`,
        );
        continue;
      }
      this.lineAtLocation(text, at, before);
      // A block inserted before the start keeps its order: the rest follows the first line.
      if (this.preserveBlock && this.spec.before && !at && !before) at = this.lines.head;
      before = before ? before.next : this.lines.head;
      at = at ? at.next : this.lines.head;
    }
  }

  private neighbourMatches(location: Line | null, text: string, after: boolean): boolean {
    if (!location) return false;
    const neighbour = after ? location.next : location.prev;
    return (
      neighbour !== null &&
      matchesPolicy(this.env, text, neighbour.text, this.spec.policy, () => this.record.ref("error"))
    );
  }

  /** One line at a position: `before` the location (after `prev`) or after it. */
  private lineAtLocation(text: string, location: Line | null, prev: Line | null): void {
    const file = this.record.filename;
    const first = this.lines.head;
    if (!prev && this.spec.before) {
      if (!first) {
        if (this.record.making(`insert promised line '${text}' into '${file}'`)) {
          this.add(null, text, `Inserted the promised line '${text}' into '${file}'`);
        }
      } else if (first.text !== text) {
        if (this.record.making(`prepend promised line '${text}' to '${file}'`)) {
          this.add(null, text, `Prepended the promised line '${text}' to ${file}`);
        }
      } else this.record.unchanged(`Promised line '${text}' exists at start of file '${file}'`);
      return;
    }
    if (this.spec.before) {
      if (!this.preserveBlock && this.neighbourMatches(location, text, false)) {
        this.record.unchanged(`Promised line '${text}' exists before locator in '${file}'`);
      } else if (this.record.making(`insert line '${text}' into '${file}' before locator`)) {
        this.add(prev, text, `Inserted the promised line '${text}' into '${file}' before locator`);
      }
      return;
    }
    if (!this.preserveBlock && this.neighbourMatches(location, text, true)) {
      this.record.unchanged(`Promised line '${text}' exists after locator in '${file}'`);
    } else if (this.record.making(`insert line '${text}' into '${file}' after locator`)) {
      this.add(
        location ?? this.lines.tail,
        text,
        `Inserted the promised line '${text}' into '${file}' after locator`,
      );
    }
  }

  /** Inserts after `after` (at the start when null). */
  private add(after: Line | null, text: string, message: string): void {
    this.lines.insertAfter(after, text);
    this.record.session.edits++;
    this.record.changed(message);
  }
}

function readSpec(promise: ActivePromise): InsertSpec {
  return {
    type: asText(promise.value("insert_type")),
    before: asText(promise.bodyValue("location", "before_after")) === "before",
    select: lineSelectOf(promise, "insert"),
    policy: asStrings(promise.value("whitespace_policy")).map(whitespaceOption),
    expandScalars: asBoolean(promise.value("expand_scalars"), false),
  };
}

/** cf-agent's refusals of contradictory insertions (logged; false to refuse). */
function sane(env: PromiseEnvironment, spec: InsertSpec): boolean {
  let ok = true;
  const select = spec.select;
  if (select && select.negative > 1) {
    env.log.error(
      "Line insertion selection promise is meaningless - the alternatives are mutually exclusive (only one is allowed)",
    );
    ok = false;
  }
  if (select && select.positive > 0 && select.negative > 0) {
    env.log.error(
      "Line insertion selection promise is meaningless - cannot mix positive and negative constraints",
    );
    ok = false;
  }
  let exact = false;
  let ignoring = false;
  for (const option of spec.policy) {
    if (option === "exact_match") exact = true;
    else {
      ignoring = true;
      if (spec.type === "preserve_block") {
        env.log.error("Line insertion should not use whitespace policy with preserve_block");
        ok = false;
      }
    }
  }
  if (exact && ignoring) {
    env.log.error(
      "Line insertion selection promise is meaningless - cannot mix exact_match with other ignore whitespace options",
    );
    ok = false;
  }
  return ok;
}

/** The last (or first) line in the region fully matching `pattern`. */
function findLocator(
  env: PromiseEnvironment,
  pattern: string,
  from: Line | null,
  to: Line | null,
  first: boolean,
) {
  let found: Line | null = null;
  for (let line = from; line && line !== to; line = line.next) {
    if (!fullTextMatch(env, pattern, line.text)) continue;
    found = line;
    if (first) break;
  }
  return found;
}

function evaluateInsertLines(promise: ActivePromise, env: PromiseEnvironment): Outcome {
  const session = env.editing;
  if (!session) return "skipped";
  const record = new EditRecord(promise, env, session);
  const spec = readSpec(promise);
  const file = session.filename;
  if (!sane(env, spec)) {
    record.failed(`The promised line insertion '${promise.promiser}' breaks its own promises`);
    return "failed";
  }
  const regionSpec = regionOf(promise, env);
  let begin = session.lines.head;
  let end: Line | null = null;
  if (regionSpec) {
    const region = selectRegion(env, session.lines.head, regionSpec, file);
    if (!region) {
      record.interrupted(
        `The promised line insertion '${promise.promiser}' could not select an edit region in '${file}'`,
      );
      return record.outcome;
    }
    ({ begin, end } = region);
    if (!end && regionSpec.end !== undefined && !regionSpec.endMatchesEof) {
      record.interrupted(
        `The promised end pattern '${regionSpec.end}' was not found when selecting region to insert in '${file}'`,
      );
      return record.outcome;
    }
  }
  const line = spec.type === "preserve_all_lines" ? `-${lineOf(promise)}` : "";
  if (alreadyActed(promise, env, `insertline-${file}${line}`)) return "skipped";
  const insertion = new Insertion(record, spec, begin, end);
  const locator = asText(promise.bodyValue("location", "select_line_matching"));
  if (locator === undefined) insertion.intoRegion();
  else {
    const first = asText(promise.bodyValue("location", "first_last")) === "first";
    const match = findLocator(env, locator, begin, end, first);
    if (!match) {
      record.interrupted(
        `The promised line insertion '${promise.promiser}' could not select a locator matching regex '${locator}' in '${file}'`,
      );
      return record.outcome;
    }
    insertion.atLocation(match, match.prev);
  }
  return record.close("insert_lines");
}

/** The promise's line in its policy file (what cf-agent's lock name adds for preserve_all_lines). */
function lineOf(promise: ActivePromise): string {
  return String(promise.node.span[0]);
}

export const insertLinesPromiseType: PromiseType = {
  name: "insert_lines",
  evaluate: evaluateInsertLines,
};
