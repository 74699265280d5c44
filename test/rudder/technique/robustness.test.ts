/**
 * Bad input never throws: every value of a few of rudderc's cases replaced
 * by values of other types (or removed), and each variant compiled. The
 * compiler must return a result (diagnostics or files), never an exception.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: CFEngine references, not templates
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parse, stringify } from "yaml";
import { compileTechnique, loadMethodLibrary } from "../../../src/rudder/technique/index.js";

const FIXTURES = fileURLToPath(new URL("../../../../test/fixtures/rudder/rudderc/", import.meta.url));
const { methods } = loadMethodLibrary([join(FIXTURES, "methods")]);
const REPLACEMENTS: readonly unknown[] = [null, 42, ["x"], { a: 1 }, "${x} y"];

type Path = readonly (string | number)[];

function paths(value: unknown, path: Path = []): Path[] {
  const out: Path[] = [path];
  if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value))
      out.push(...paths(v, [...path, Array.isArray(value) ? Number(k) : k]));
  }
  return out;
}

function changed(value: unknown, path: Path, replacement: unknown | typeof REMOVE): unknown {
  if (path.length === 0) return replacement === REMOVE ? null : replacement;
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let at = copy;
  for (const k of path.slice(0, -1)) at = at[k] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (replacement !== REMOVE) at[last] = replacement;
  else if (Array.isArray(at)) at.splice(last as number, 1);
  else delete at[last];
  return copy;
}

const REMOVE = Symbol("remove");

for (const name of ["ntp", "loops"]) {
  test(`every value of rudderc case ${name} made wrong gives diagnostics, never an exception`, () => {
    const dir = join(FIXTURES, "cases", name);
    const data = parse(readFileSync(join(dir, "technique.yml"), "utf8"));
    let failed = 0;
    for (const path of paths(data)) {
      for (const replacement of [...REPLACEMENTS, REMOVE]) {
        const text = stringify(changed(data, path, replacement));
        const result = compileTechnique(text, "t.yml", { methods });
        if (!result.ok) {
          failed++;
          assert.ok(result.diagnostics.some((d) => d.severity === "error" && d.line >= 1 && d.column >= 1));
        }
      }
    }
    assert.ok(failed > 0);
  });
}
