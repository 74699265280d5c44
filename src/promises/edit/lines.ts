/**
 * The lines of a file being edited: a doubly linked list, so that the
 * positions edit promises hold (a region's first and last line, a locator,
 * the line before it) stay valid while lines are inserted and deleted
 * around them, as cf-agent's item lists do.
 */

export interface Line {
  text: string;
  next: Line | null;
  prev: Line | null;
}

export class LineList {
  head: Line | null = null;
  tail: Line | null = null;
  size = 0;

  static of(texts: readonly string[]): LineList {
    const list = new LineList();
    for (const text of texts) list.insertAfter(list.tail, text);
    return list;
  }

  /** Inserts `text` after `after` (at the start when null); returns the new line. */
  insertAfter(after: Line | null, text: string): Line {
    const next = after ? after.next : this.head;
    const line: Line = { text, next, prev: after };
    if (after) after.next = line;
    else this.head = line;
    if (next) next.prev = line;
    else this.tail = line;
    this.size++;
    return line;
  }

  /** Removes `line`; returns the line that followed it. */
  remove(line: Line): Line | null {
    const { prev, next } = line;
    if (prev) prev.next = next;
    else this.head = next;
    if (next) next.prev = prev;
    else this.tail = prev;
    line.next = null;
    line.prev = null;
    this.size--;
    return next;
  }

  /** Drops every line. */
  clear(): void {
    this.head = null;
    this.tail = null;
    this.size = 0;
  }

  *[Symbol.iterator](): Generator<Line> {
    for (let line = this.head; line; line = line.next) yield line;
  }

  texts(): string[] {
    const out: string[] = [];
    for (let line = this.head; line; line = line.next) out.push(line.text);
    return out;
  }
}
