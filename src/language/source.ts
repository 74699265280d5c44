/**
 * A policy file's text with a lazily built table of line starts, so that
 * offsets turn into line and column only when something is rendered.
 */
export interface Position {
  /** 1-based line. */
  readonly line: number;
  /** 1-based column, in UTF-16 code units. */
  readonly column: number;
}

export class SourceFile {
  private lineStarts: number[] | null = null;

  constructor(
    readonly path: string,
    readonly text: string,
  ) {}

  /** The line and column of an offset (clamped to the text). */
  positionAt(offset: number): Position {
    const starts = this.getLineStarts();
    const at = Math.max(0, Math.min(offset, this.text.length));
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (starts[mid] <= at) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: at - starts[low] + 1 };
  }

  /** The text of a 1-based line, without its line break. */
  lineText(line: number): string {
    const starts = this.getLineStarts();
    const start = starts[line - 1] ?? this.text.length;
    let end = starts[line] ?? this.text.length;
    while (end > start && (this.text[end - 1] === "\n" || this.text[end - 1] === "\r")) end--;
    return this.text.slice(start, end);
  }

  get lineCount(): number {
    return this.getLineStarts().length;
  }

  private getLineStarts(): number[] {
    if (this.lineStarts) return this.lineStarts;
    const starts = [0];
    const text = this.text;
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
    this.lineStarts = starts;
    return starts;
  }
}
