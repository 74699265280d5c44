/**
 * Text made a piece at a time and kept as UTF-8 chunks of about 64 kB:
 * a large document (a report of ten thousand resources) is never one
 * string, nor a rope of a million small ones, and its bytes live outside
 * the JavaScript heap until they are written.
 */
const CHUNK_CHARS = 1 << 16;

export class TextChunks {
  private parts: string[] = [];
  private chars = 0;
  private readonly done: Buffer[] = [];

  /** Appends text; bound, so that it can be handed on as a writer. */
  readonly write = (text: string): void => {
    this.parts.push(text);
    this.chars += text.length;
    if (this.chars >= CHUNK_CHARS) this.seal();
  };

  /** Everything written so far, as UTF-8 chunks in order. */
  chunks(): readonly Buffer[] {
    this.seal();
    return this.done;
  }

  private seal(): void {
    if (this.parts.length === 0) return;
    this.done.push(Buffer.from(this.parts.join(""), "utf8"));
    this.parts = [];
    this.chars = 0;
  }
}
