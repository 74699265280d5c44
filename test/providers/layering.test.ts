/**
 * The providers are the layer every front end stands on, so they must not
 * reach up into one: a file under src/providers imports only Node's own
 * modules, other providers, and the system primitives below them
 * (src/system, src/text). Read from the TypeScript sources themselves.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const SRC = fileURLToPath(new URL("../../../src/", import.meta.url));
const ALLOWED = ["providers", "system", "text"];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Every module specifier a file imports or re-exports, statically or dynamically. */
function specifiers(text: string): string[] {
  const found: string[] = [];
  const patterns = [
    /^(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']/gm,
    /\bimport\s*\(\s*["']([^"']+)["']/g,
  ];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) found.push(match[1] as string);
  }
  return found;
}

test("providers import only node:*, other providers, src/system and src/text", () => {
  const files = sources(join(SRC, "providers"));
  assert.ok(files.length > 0, "no provider sources found");
  const wrong: string[] = [];
  for (const file of files) {
    for (const spec of specifiers(readFileSync(file, "utf8"))) {
      if (spec.startsWith("node:")) continue;
      if (!spec.startsWith(".")) {
        wrong.push(`${relative(SRC, file)}: imports package '${spec}'`);
        continue;
      }
      const top = relative(SRC, resolve(dirname(file), spec)).split("/")[0] as string;
      if (!ALLOWED.includes(top)) wrong.push(`${relative(SRC, file)}: imports '${spec}' (src/${top})`);
    }
  }
  assert.deepEqual(wrong, []);
});
