/**
 * Chef repositories for the load tests: a tree of files written into a
 * temporary directory the test removes, and a loader that records the load
 * sequence through the hook (`a/libraries/x`).
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { TestContext } from "node:test";
import { loadRun } from "../../../src/recipes/load.js";
import type { AttributeTree, LoadedRun, LoadOptions } from "../../../src/recipes/model.js";
import { formatRecipesDiagnostic, RecipesError } from "../../../src/recipes/model.js";

/** Fixed host facts: no test reads the machine. */
export const FACTS: AttributeTree = { fqdn: "node1.example.com", hostname: "node1", platform: "debian" };

/** Writes `files` (path -> content; objects as JSON) under a new temporary directory. */
export function makeRepo(t: TestContext, files: Readonly<Record<string, string | object>>): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "tend-recipes-load-")));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  writeFiles(root, files);
  return root;
}

export function writeFiles(root: string, files: Readonly<Record<string, string | object>>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), typeof content === "string" ? content : JSON.stringify(content, null, 2));
  }
}

/** A metadata.json object. */
export function metadata(name: string, dependencies: Record<string, string> = {}, version = "1.0.0"): object {
  return { name, version, dependencies };
}

/** Loads `root`/cookbooks with fixed facts, recording each load step. */
export async function load(
  root: string,
  options: Partial<LoadOptions> = {},
): Promise<{ run: LoadedRun; steps: string[] }> {
  const steps: string[] = [];
  const run = await loadRun({
    cookbookPaths: [join(root, "cookbooks")],
    automatic: FACTS,
    onLoad: (s) => steps.push(`${s.cookbook}/${s.kind}/${s.file}`),
    ...options,
  });
  return { run, steps };
}

/** The diagnostics (one line each, paths relative to `root`) of a load that must fail. */
export async function loadProblems(root: string, options: Partial<LoadOptions> = {}): Promise<string[]> {
  try {
    await load(root, options);
  } catch (error) {
    if (!(error instanceof RecipesError)) throw error;
    return error.diagnostics.map((d) => formatRecipesDiagnostic(d).replaceAll(`${root}/`, ""));
  }
  assert.fail("the load succeeded");
}

/** An attribute file that sets `node.<level>.<path> = value` (path dotted). */
export function setAttribute(level: string, path: string, value: unknown): string {
  const access = path
    .split(".")
    .map((k) => `[${JSON.stringify(k)}]`)
    .join("");
  return `export default (node: any) => { node.${level}${access} = ${JSON.stringify(value)}; };\n`;
}
