/**
 * `insert_type => "file"` / `"file_preserve_block"`: the promiser names a
 * file whose lines are inserted, one at a time, at the location (with
 * `expand_scalars`, each expanded in the promise's bundle first). A line
 * already in the region is left out, unless the block is preserved.
 */
import { readFileSync, statSync } from "node:fs";
import { decodeBytes } from "../../eval/regex/bytes.js";
import { errorText } from "../files/step.js";
import { expandString } from "../../eval/expand.js";
import type { Insertion } from "./insert.js";
import { selectLine } from "./line-select.js";
import type { Line } from "./lines.js";
import { splitFileLines } from "./text-file.js";

function readLines(insertion: Insertion): string[] | undefined {
  const path = insertion.promiser;
  const record = insertion.record;
  try {
    if (statSync(path).isDirectory()) {
      record.interrupted(`Could not insert lines from a directory '${path}'`);
      return undefined;
    }
  } catch {
    // Reported when it cannot be read.
  }
  try {
    return splitFileLines(decodeBytes(readFileSync(path)));
  } catch (error) {
    record.interrupted(`Could not read file '${path}'. (fopen: ${errorText(error)})`);
    return undefined;
  }
}

export function insertFileAtLocation(insertion: Insertion, location: Line | null, prev: Line | null): void {
  const lines = readLines(insertion);
  if (!lines) return;
  const { record, spec } = insertion;
  const preserveBlock = spec.type === "file_preserve_block";
  let at = location;
  let before = prev;
  for (const raw of lines) {
    const text = spec.expandScalars ? expandString(record.env.ctx, raw, record.promise.options) : raw;
    if (!selectLine(record.env, text, spec.select)) continue;
    if (!preserveBlock && insertion.inRegion(text)) {
      record.unchanged(`Promised file line '${text}' exists within file '${record.filename}'`);
      continue;
    }
    insertion.chunkAtLocation(text, at, before);
    before = before ? before.next : insertion.lines.head;
    if (at) at = at.next;
  }
}
