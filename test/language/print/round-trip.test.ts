import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "../../../src/language/parser.js";
import { formatPolicy } from "../../../src/language/print/cf.js";
import { SourceFile } from "../../../src/language/source.js";

/** Policy trees to print and read back; absent directories are skipped. */
const CORPORA = [
  { name: "Debian masterfiles", dir: "/var/lib/cfengine3/masterfiles" },
  { name: "cfengine/core 3.21.0 acceptance tests", dir: "/work/ref/tests/acceptance" },
];

function findPolicyFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...findPolicyFiles(path));
    else if (entry.name.endsWith(".cf")) found.push(path);
  }
  return found.sort();
}

/** The tree without what formatting may change: positions and trailing commas. */
function stripped(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripped);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key !== "span" && key !== "nameSpan" && key !== "trailingComma") out[key] = stripped(value);
  }
  return out;
}

function hasErrors(diagnostics: readonly { severity: string }[]): boolean {
  return diagnostics.some((d) => d.severity === "error");
}

for (const corpus of CORPORA) {
  const present = existsSync(corpus.dir);
  const files = present ? findPolicyFiles(corpus.dir) : [];
  const unparsed = files.filter((path) =>
    hasErrors(parse(new SourceFile(path, readFileSync(path, "utf8"))).diagnostics),
  );
  const title = `parse → format → parse keeps the tree: ${corpus.name} (${files.length - unparsed.length} files; ${unparsed.length} skipped as they do not parse cleanly)`;
  test(title, (t) => {
    if (!present) return t.skip(`${corpus.dir} is absent`);
    if (unparsed.length > 0) t.diagnostic(`not parsed cleanly: ${unparsed.join(", ")}`);
    const skip = new Set(unparsed);
    for (const path of files.filter((p) => !skip.has(p))) {
      const first = parse(new SourceFile(path, readFileSync(path, "utf8"))).policy;
      const text = formatPolicy(first);
      const again = parse(new SourceFile(path, text));
      assert.deepEqual(again.diagnostics, [], `${path}: formatted text does not parse cleanly`);
      assert.deepEqual(stripped(again.policy), stripped(first), `${path}: tree changed`);
      assert.equal(formatPolicy(again.policy), text, `${path}: formatting is not idempotent`);
    }
  });
}
