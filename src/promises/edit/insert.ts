/**
 * `insert_lines`: the promiser is a line (or several, split at newlines)
 * the file must hold. A line already anywhere in the file is kept;
 * otherwise it goes at the end, or where the `location` body says: before
 * or after the first or last line fully matching `select_line_matching`,
 * or (without one) at the start with `before_after => "before"`.
 * `insert_type => "preserve_block"` inserts the lines as a block even when
 * some already appear elsewhere.
 */
import { type Outcome, combineOutcomes } from "../../agent/outcome.js";
import { matchesFully } from "../../eval/regex/match.js";
import { PcreError } from "../../eval/regex/pcre.js";
import type { ActivePromise, EditSession, PromiseEnvironment, PromiseType } from "../contract.js";
import { asText } from "../values.js";
import { alreadyActed, closeEditPromise, editInfo, matchChunk, mayChange } from "./common.js";

/** A line of the file with an identity, so positions survive insertions. */
interface Item {
  text: string;
}

class Insertion {
  outcome: Outcome = "kept";
  readonly before: boolean;
  readonly preserveBlock: boolean;
  readonly preserveAll: boolean;

  constructor(
    readonly promise: ActivePromise,
    readonly env: PromiseEnvironment,
    readonly session: EditSession,
    readonly items: Item[],
    type: string,
  ) {
    this.before = asText(promise.bodyValue("location", "before_after")) === "before";
    this.preserveAll = type === "preserve_all_lines";
    this.preserveBlock = this.preserveAll || type === "preserve_block";
  }

  note(o: Outcome): void {
    this.outcome = combineOutcomes(this.outcome, o);
  }

  next(item: Item | null): Item | null {
    if (!item) return this.items[0] ?? null;
    return this.items[this.items.indexOf(item) + 1] ?? null;
  }

  private add(index: number, text: string, message: string): void {
    this.items.splice(index, 0, { text });
    this.session.changed = true;
    editInfo(this.env, message);
    this.note("repaired");
  }

  private may(what: string): boolean {
    return mayChange(this.promise, this.env, what, (o) => this.note(o));
  }

  /** One line at a position: before `location` (after `prev`), or after `location`. */
  insertLine(text: string, location: Item | null, prev: Item | null): void {
    const file = this.session.filename;
    const first = this.items[0];
    if (!prev && this.before) {
      if (!first) {
        if (this.may(`insert promised line '${text}' into '${file}'`))
          this.add(0, text, `Inserted the promised line '${text}' into '${file}'`);
      } else if (first.text !== text) {
        if (this.may(`prepend promised line '${text}' to '${file}'`))
          this.add(0, text, `Prepended the promised line '${text}' to ${file}`);
      } else this.env.log.verbose(`Promised line '${text}' exists at start of file '${file}'`);
      return;
    }
    if (this.before) {
      const at = location ? this.items.indexOf(location) : -1;
      if (!this.preserveBlock && at > 0 && this.items[at - 1]?.text === text) {
        this.env.log.verbose(`Promised line '${text}' exists before locator in '${file}'`);
      } else if (this.may(`insert line '${text}' into '${file}' before locator`)) {
        const index = prev ? this.items.indexOf(prev) + 1 : this.items.length;
        this.add(index, text, `Inserted the promised line '${text}' into '${file}' before locator`);
      }
      return;
    }
    if (!this.preserveBlock && location && this.next(location)?.text === text) {
      this.env.log.verbose(`Promised line '${text}' exists after locator in '${file}'`);
    } else if (this.may(`insert line '${text}' into '${file}' after locator`)) {
      const index = location ? this.items.indexOf(location) + 1 : this.items.length;
      this.add(index, text, `Inserted the promised line '${text}' into '${file}' after locator`);
    }
  }

  /** The promiser's lines, one after another, from a position. */
  insertChunk(location: Item | null, prev: Item | null): void {
    const chunk = this.promise.promiser;
    const texts = this.items.map((i) => i.text);
    const at = location ? this.items.indexOf(location) : -1;
    if (!this.preserveAll && matchChunk(chunk, texts, at, (a, b) => a === b)) {
      this.env.log.verbose(
        `Promised chunk '${chunk}' exists within selected region of ${this.session.filename} (promise kept)`,
      );
      return;
    }
    for (const text of chunk.split("\n")) {
      if (!this.preserveBlock && this.items.some((i) => i.text === text)) {
        this.env.log.verbose(
          `Promised chunk '${chunk}' exists within selected region of '${this.session.filename}'`,
        );
        continue;
      }
      this.insertLine(text, location, prev);
      if (this.preserveBlock && this.before && !location && !prev) location = this.items[0] ?? null;
      prev = this.next(prev);
      location = this.next(location);
    }
  }

  /** No locator line: the start of the file, or its end. */
  insertInFile(): void {
    const items = this.items;
    if (items.length === 0) {
      this.insertChunk(null, null);
      return;
    }
    if (this.before) {
      this.insertChunk(items[0] ?? null, null);
      return;
    }
    if (!this.preserveAll) {
      const texts = items.map((i) => i.text);
      for (let i = 0; i < texts.length; i++) {
        if (matchChunk(this.promise.promiser, texts, i, (a, b) => a === b)) {
          this.env.log.verbose(
            `Promised chunk '${this.promise.promiser}' exists within selected region of ${this.session.filename}`,
          );
          return;
        }
      }
    }
    this.insertChunk(items[items.length - 1] ?? null, items[items.length - 2] ?? null);
  }
}

function evaluateInsertLines(promise: ActivePromise, env: PromiseEnvironment): Outcome {
  const session = env.editing;
  if (!session) return "skipped";
  const type = asText(promise.value("insert_type")) ?? "literal";
  if (type === "file" || type === "file_preserve_block") {
    env.log.error(
      `insert_type '${type}' is not supported by tend yet; promise '${promise.promiser}' is skipped`,
    );
    return "skipped";
  }
  if (alreadyActed(promise, env, session)) return "skipped";
  const items: Item[] = session.lines.map((text) => ({ text }));
  const insertion = new Insertion(promise, env, session, items, type);
  const locator = asText(promise.bodyValue("location", "select_line_matching"));
  if (locator === undefined) insertion.insertInFile();
  else {
    const first = asText(promise.bodyValue("location", "first_last")) === "first";
    let found = -1;
    for (let i = 0; i < items.length; i++) {
      const matched = matchesFully(locator, (items[i] as Item).text);
      if (matched instanceof PcreError) {
        env.log.error(`Regular expression error in '${locator}': ${matched.message}`);
        return closeEditPromise("insert_lines", promise, env, "failed");
      }
      if (!matched) continue;
      found = i;
      if (first) break;
    }
    if (found < 0) {
      env.log.error(
        `The promised line insertion '${promise.promiser}' could not select a locator matching regex '${locator}' in '${session.filename}'`,
      );
      return "interrupted";
    }
    insertion.insertChunk(items[found] ?? null, items[found - 1] ?? null);
  }
  session.lines = items.map((i) => i.text);
  return closeEditPromise("insert_lines", promise, env, insertion.outcome);
}

export const insertLinesPromiseType: PromiseType = {
  name: "insert_lines",
  evaluate: evaluateInsertLines,
};
