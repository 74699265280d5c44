/**
 * Replays test/fixtures/functions/system.json (recorded from cf-agent 3.21
 * by scripts/record-functions/record-system.ts) against tend: same file
 * tree under a fresh temp directory, same environment, same setup variables.
 */
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { EvalContext } from "../../../src/eval/context.js";
import { expandRval } from "../../../src/eval/expand.js";
import { type Value, scalar, valueToJson } from "../../../src/eval/values.js";
import { parseVarRef } from "../../../src/eval/var-ref.js";
import { parseText } from "../../../src/language/parser.js";
import { scratchDirectory } from "../../scratch.js";
import { rval } from "../helpers.js";

export interface FixtureCase {
  readonly family: string;
  readonly expr: string;
  readonly setup?: readonly string[];
  readonly value: unknown;
}

interface Fixture {
  readonly sharedSetup: readonly string[];
  readonly files: Record<string, string | null | { link: string }>;
  readonly executables: readonly string[];
  readonly environment: Record<string, string>;
  readonly cases: readonly FixtureCase[];
}

const here = dirname(fileURLToPath(import.meta.url));
// Tests run from dist/test/eval/functions; the fixture stays in the source tree.
const FIXTURE = join(here, "..", "..", "..", "..", "test", "fixtures", "functions", "system.json");

export const fixture = JSON.parse(readFileSync(FIXTURE, "utf8")) as Fixture;

/** Builds the fixture's file tree in a new temp directory and returns it. */
export function makeTree(): string {
  const root = scratchDirectory("tend-sysfn-");
  for (const [name, spec] of Object.entries(fixture.files)) {
    const path = join(root, name);
    mkdirSync(dirname(path), { recursive: true });
    // Modes are set explicitly: the recorded permissions must not depend on the umask.
    if (spec === null) {
      mkdirSync(path, { recursive: true });
      chmodSync(path, 0o755);
    } else if (typeof spec === "string") {
      writeFileSync(path, spec);
      chmodSync(path, 0o644);
    } else symlinkSync(spec.link, path);
  }
  for (const name of fixture.executables) chmodSync(join(root, name), 0o755);
  return root;
}

/** Evaluates `vars` promise lines (`"x" slist => {...};`) into the context's current bundle. */
export function applySetup(ctx: EvalContext, lines: readonly string[]): void {
  if (lines.length === 0) return;
  const { policy } = parseText(`bundle agent main { vars: ${lines.join("\n")} }`);
  const bundle = policy.blocks[0];
  if (bundle.kind !== "bundle") return;
  for (const promise of bundle.sections[0].groups.flatMap((g) => g.promises)) {
    const value = expandRval(ctx, promise.attributes[0].value);
    if (value) ctx.setVariable(parseVarRef(promise.promiser.value), value);
  }
}

/** A context with the bundle `default:main` and a private `sys.workdir`. */
export function makeFixtureContext(setup: readonly string[] = []): EvalContext {
  const ctx = new EvalContext();
  ctx.pushFrame("default", "main");
  ctx.setVariable(parseVarRef("sys.workdir"), scalar(scratchDirectory("tend-workdir-")));
  applySetup(ctx, [...fixture.sharedSetup, ...setup]);
  return ctx;
}

/** A result as the fixture records it: null for a failure, JSON otherwise, the tree shown as {DIR}. */
export function normalise(value: Value | undefined, dir: string): unknown {
  if (!value) return null;
  return JSON.parse(JSON.stringify(valueToJson(value)).replaceAll(dir, "{DIR}"));
}

export interface Mismatch {
  readonly expr: string;
  readonly expected: unknown;
  readonly actual: unknown;
}

/**
 * Runs every recorded case of a family; returns the ones whose result
 * differs, except those `skip` names (documented differences).
 */
export function replayFamily(family: string, skip: ReadonlySet<string> = new Set()): Mismatch[] {
  Object.assign(process.env, fixture.environment);
  const dir = makeTree();
  const mismatches: Mismatch[] = [];
  for (const c of fixture.cases.filter((k) => k.family === family && !skip.has(k.expr))) {
    const ctx = makeFixtureContext(c.setup?.map((s) => s.replaceAll("{DIR}", dir)));
    const actual = normalise(expandRval(ctx, rval(c.expr.replaceAll("{DIR}", dir))), dir);
    if (comparable(c.expr, actual) !== comparable(c.expr, c.value)) {
      mismatches.push({ expr: c.expr, expected: c.value, actual });
    }
  }
  return mismatches;
}

// cf-agent lists these in hash or directory order: compare them as sets.
const UNORDERED = /^(findfiles|lsdir)\(/;

function comparable(expr: string, value: unknown): string {
  if (UNORDERED.test(expr) && Array.isArray(value)) return JSON.stringify([...value].sort());
  return JSON.stringify(value);
}

export function caseCount(family: string): number {
  return fixture.cases.filter((c) => c.family === family).length;
}
