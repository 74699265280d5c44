/**
 * Copying a regular file's bytes into a new file the way cf-agent does:
 * blocks of zeros are skipped, not written, so a sparse source gives a
 * sparse copy. The new file is flushed to disk before it is closed, since
 * it is about to be renamed over the file it replaces.
 */
import { closeSync, fstatSync, fsyncSync, ftruncateSync, readSync, writeSync } from "node:fs";
import { openSync } from "../../system/safe-fs.js";

const CHUNK_BLOCKS = 64;

function isZero(bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== 0) return false;
  return true;
}

function writeAll(fd: number, bytes: Buffer, position: number): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
}

/**
 * Creates `destination` (which must not exist: O_EXCL) with `mode` (the
 * umask applies, as with cf-agent) and the bytes of `source`. Throws the
 * system error; a partly written destination is removed by the caller.
 */
export function copyFileSparse(source: string, destination: string, mode: number): void {
  const input = openSync(source, "r");
  try {
    const blockSize = Math.max(512, fstatSync(input).blksize || 4096);
    const output = openSync(destination, "wx", mode);
    try {
      copyBlocks(input, output, blockSize);
      fsyncSync(output);
    } finally {
      closeSync(output);
    }
  } finally {
    closeSync(input);
  }
}

function copyBlocks(input: number, output: number, blockSize: number): void {
  const buffer = Buffer.allocUnsafe(blockSize * CHUNK_BLOCKS);
  let position = 0;
  for (;;) {
    const read = readSync(input, buffer, 0, buffer.length, null);
    if (read === 0) break;
    for (let offset = 0; offset < read; offset += blockSize) {
      const block = buffer.subarray(offset, Math.min(offset + blockSize, read));
      if (!isZero(block)) writeAll(output, block, position + offset);
    }
    position += read;
  }
  // A trailing hole still counts towards the size.
  ftruncateSync(output, position);
}
