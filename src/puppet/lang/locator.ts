/**
 * Positions in a Puppet source: offsets are kept on tokens and nodes, and
 * turned into 1-based lines and columns only when a diagnostic or a catalog
 * needs them (a table of line starts built on first use, then a binary search).
 * Columns count UTF-16 code units (Puppet counts characters: the two differ
 * only after a character outside the Basic Multilingual Plane on that line).
 */
export interface Position {
  line: number;
  column: number;
}

export class Locator {
  private starts: number[] | undefined;
  /** The index in `starts` of the line last found. */
  private last: number;

  /** `file` is "" for a string given on the command line (`-e`). */
  constructor(
    readonly text: string,
    readonly file: string,
  ) {
    this.starts = undefined;
    this.last = 0;
  }

  private lineStarts(): number[] {
    if (this.starts) return this.starts;
    const starts = [0];
    const text = this.text;
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
    this.starts = starts;
    return starts;
  }

  /** The 1-based line of an offset. */
  line(offset: number): number {
    const starts = this.lineStarts();
    // The compiler asks in source order: the line last found, or one of the
    // next two, answers most questions without a search.
    const last = this.last;
    if ((starts[last] as number) <= offset) {
      const end = Math.min(last + 3, starts.length);
      for (let i = last + 1; i < end; i++) {
        if ((starts[i] as number) > offset) {
          this.last = i - 1;
          return i;
        }
      }
      if (end === starts.length) {
        this.last = end - 1;
        return end;
      }
    }
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((starts[mid] as number) <= offset) low = mid;
      else high = mid - 1;
    }
    this.last = low;
    return low + 1;
  }

  /** The 1-based line and column of an offset. */
  position(offset: number): Position {
    const line = this.line(offset);
    return { line, column: offset - (this.lineStarts()[line - 1] as number) + 1 };
  }
}
