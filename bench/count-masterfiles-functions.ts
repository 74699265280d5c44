/**
 * Counts the call sites of each built-in function in a Masterfiles Policy
 * Framework tree, to choose the functions bench/functions.ts calls:
 *
 *   node dist/bench/count-masterfiles-functions.js DIR [--top 40]
 *
 * Every `*.cf` and `*.cf.in` file under DIR, except those under its top-level
 * `tests/` (the framework's own acceptance tests, not policy), is parsed with
 * tend's parser and
 * every function-call node whose name is a 3.21 built-in is counted (calls
 * nested in other calls' arguments too). Comments and quoted strings are not
 * calls, so they are not counted. Prints JSON: the tree's files and the
 * `top` functions by count, ties broken by name.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { parseText } from "../src/language/parser.js";
import { getFunction } from "../src/language/syntax/index.js";

function policyFiles(dir: string, top = true): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!(top && entry.name === "tests")) found.push(...policyFiles(path, false));
    } else if (entry.name.endsWith(".cf") || entry.name.endsWith(".cf.in")) found.push(path);
  }
  return found.sort();
}

/** Walks any AST value and counts the built-in calls in it. */
function countCalls(node: unknown, counts: Map<string, number>): void {
  if (Array.isArray(node)) {
    for (const item of node) countCalls(item, counts);
    return;
  }
  if (node === null || typeof node !== "object") return;
  const record = node as Record<string, unknown>;
  if (record.kind === "call" && typeof record.name === "string" && getFunction(record.name)) {
    counts.set(record.name, (counts.get(record.name) ?? 0) + 1);
  }
  for (const [key, value] of Object.entries(record)) {
    if (key !== "span" && key !== "nameSpan") countCalls(value, counts);
  }
}

export function countMasterfilesFunctions(dir: string): { files: number; counts: Map<string, number> } {
  const files = policyFiles(dir);
  const counts = new Map<string, number>();
  for (const path of files) countCalls(parseText(readFileSync(path, "utf8"), path).policy, counts);
  return { files: files.length, counts };
}

function main(): void {
  const { values, positionals } = parseArgs({
    options: { top: { type: "string" } },
    allowPositionals: true,
  });
  const dir = positionals[0];
  if (!dir) {
    process.stderr.write("usage: count-masterfiles-functions DIR [--top N]\n");
    process.exitCode = 2;
    return;
  }
  const top = Number(values.top ?? 40);
  const { files, counts } = countMasterfilesFunctions(dir);
  const ranked = [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, top)
    .map(([name, callSites]) => ({ name, callSites }));
  process.stdout.write(`${JSON.stringify({ files, functions: ranked }, null, 2)}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
