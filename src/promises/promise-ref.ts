/**
 * cf-agent's PromiseRef: the lines that say where a promise comes from,
 * logged after some errors ("Promise belongs to bundle 'b' in file 'f'
 * near line 7", then its comment if it has one).
 */
import { readFileSync } from "node:fs";
import type { LogLevel } from "../system/logger.js";
import type { Promise as PromiseNode } from "../language/ast.js";
import type { ActivePromise, PromiseEnvironment } from "./contract.js";
import { asText } from "./values.js";

const lineStarts = new Map<string, number[] | null>();

/** The 1-based line of `offset` in `file`, or undefined when the file cannot be read. */
export function lineOfOffset(file: string, offset: number): number | undefined {
  let starts = lineStarts.get(file);
  if (starts === undefined) {
    try {
      const text = readFileSync(file, "utf8");
      starts = [0];
      for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
    } catch {
      starts = null;
    }
    lineStarts.set(file, starts);
  }
  if (!starts) return undefined;
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((starts[mid] as number) <= offset) low = mid;
    else high = mid - 1;
  }
  return low + 1;
}

/** The promise's line (where its promiser is), as cf-agent numbers it. */
export function promiseLine(file: string, node: PromiseNode): number {
  return lineOfOffset(file, node.promiser.span[0]) ?? node.promiser.span[0];
}

/** Logs where `promise` comes from, at `level`. */
export function promiseRef(env: PromiseEnvironment, level: LogLevel, promise: ActivePromise): void {
  const bundle = promise.bundle.block.name.text;
  const line = lineOfOffset(promise.bundle.file, promise.node.promiser.span[0]);
  if (line === undefined) {
    // A bundle made from a template: no file, its spans hold the template's line.
    env.log.log(level, `Promise belongs to bundle '${bundle}' near line ${promise.node.span[0]}`);
  } else {
    env.log.log(
      level,
      `Promise belongs to bundle '${bundle}' in file '${promise.bundle.file}' near line ${line}`,
    );
  }
  const comment = asText(promise.value("comment"));
  if (comment !== undefined) env.log.log(level, `Comment is '${comment}'`);
}
