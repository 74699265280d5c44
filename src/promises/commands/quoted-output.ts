/**
 * Output lines of a command as 3.21 shows them: `Q: "...prefix": line`,
 * gathered into blocks of up to 4096 bytes that are logged as one notice
 * each (the last block after the command's verdict). A line too long for
 * any block is logged at once, quoted as `Q: 'prefix': line`.
 */
import type { Logger } from "../../system/logger.js";

const BLOCK_SIZE = 4096;

export class QuotedOutput {
  private block = "";
  /** Lines quoted so far. */
  count = 0;

  constructor(
    private readonly log: Logger,
    private readonly prefix: string,
  ) {}

  add(line: string): void {
    const entry = `Q: "...${this.prefix}": ${line}\n`;
    const size = Buffer.byteLength(entry);
    this.count++;
    if (size + 1 > BLOCK_SIZE) {
      this.log.notice(`Q: '${this.prefix}': ${line}`);
      return;
    }
    if (Buffer.byteLength(this.block) + size + 1 > BLOCK_SIZE) this.flush();
    this.block += entry;
  }

  /** Logs the block gathered so far. */
  flush(): void {
    if (this.block === "") return;
    this.log.notice(this.block.slice(0, -1));
    this.block = "";
  }
}
