/**
 * Golden-file tests of error messages. Each `test/fixtures/errors/NNN-name.cf`
 * is a small policy with exactly one mistake; `NNN-name.expected` holds the
 * diagnostics tend renders for it (through the CLI renderer). `UPDATE_GOLDEN=1 npm test` rewrites the
 * golden files; review the diff before committing it.
 *
 * Each fixture is also given to `cf-promises -c -f` (`-c` because tend
 * validates with `fullCheck`, its equivalent), which must reject it when the
 * golden file holds an error and accept it when it holds only warnings, so
 * tend and CFEngine 3.21 agree on what is broken.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Diagnostic } from "../../src/language/diagnostics.js";
import { renderDiagnostics } from "../../src/cli/render.js";
import { parse } from "../../src/language/parser.js";
import type { PolicySet } from "../../src/language/policy-set.js";
import { validatePolicy } from "../../src/language/validate/index.js";
import { SourceFile } from "../../src/language/source.js";

const FIXTURES = fileURLToPath(new URL("../../../test/fixtures/errors/", import.meta.url));
const UPDATE = process.env.UPDATE_GOLDEN === "1";

/** Parses one fixture and, when the syntax is sound, validates it as cf-promises would. */
function check(source: SourceFile): readonly Diagnostic[] {
  const parsed = parse(source);
  if (parsed.diagnostics.length > 0) return parsed.diagnostics;
  const set: PolicySet = { files: [{ source, policy: parsed.policy }] };
  return validatePolicy(set, { fullCheck: true });
}

/** Runs `cf-promises -c -f`; null when it is not installed. */
function runCfPromises(path: string): { status: number | null; output: string } | null {
  const result = spawnSync("cf-promises", ["-c", "-f", path], { encoding: "utf8", timeout: 30_000 });
  if ((result.error as { code?: string } | undefined)?.code === "ENOENT") return null;
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

interface KnownGap {
  /** What tend gets wrong. */
  readonly reason: string;
  /** What cf-promises does with the fixture, which the test still checks. */
  readonly cfPromises: "accepts" | "rejects";
}

/**
 * Fixtures tend does not yet get right; their golden comparison runs as
 * `todo`. Each entry is a bug report: remove it once the validator is fixed.
 */
const KNOWN_GAPS: Readonly<Record<string, KnownGap>> = {
  "106-quoted-body-reference.cf": {
    reason: "tend only warns about a quoted body name",
    cfPromises: "rejects",
  },
  "115-unknown-body-type.cf": {
    reason: "tend says nothing about a body of an unknown type",
    cfPromises: "accepts",
  },
  "122-invalid-json-in-data.cf": {
    reason: "tend does not check the JSON literal given to parsejson()",
    cfPromises: "accepts",
  },
  "138-vars-without-type.cf": {
    reason: "tend does not warn about a vars promise without a value",
    cfPromises: "accepts",
  },
  "140-edit-line-bundle-type-mismatch.cf": {
    reason: "tend does not check the type of the bundle given to edit_line",
    cfPromises: "accepts",
  },
  "143-warning-deprecated-function.cf": {
    reason: "tend does not warn about deprecated functions",
    cfPromises: "accepts",
  },
  "144-duplicate-promise-block.cf": {
    reason: "tend does not report a promise type declared twice",
    cfPromises: "accepts",
  },
  "152-invalid-mode-string.cf": { reason: "tend does not check permission strings", cfPromises: "rejects" },
  "153-scalar-for-list-attribute.cf": {
    reason: "tend accepts a string where the list attribute meta needs a list",
    cfPromises: "rejects",
  },
  "154-edit-line-bundle-wrong-argument-count.cf": {
    reason: "tend does not check the argument count of a bundle given to edit_line",
    cfPromises: "accepts",
  },
};

const fixtures = readdirSync(FIXTURES)
  .filter((name) => name.endsWith(".cf"))
  .sort();

test("there are at least 70 error fixtures", () => {
  assert.ok(fixtures.length >= 70, `only ${fixtures.length} fixtures`);
});

for (const name of fixtures) {
  const path = join(FIXTURES, name);
  const source = new SourceFile(name, readFileSync(path, "utf8"));
  const diagnostics = check(source);
  const gap = KNOWN_GAPS[name];
  const todo = gap?.reason;
  const golden = path.replace(/\.cf$/, ".expected");
  const rendered = renderDiagnostics(diagnostics, () => source);
  const rejects = gap ? gap.cfPromises === "rejects" : diagnostics.some((d) => d.severity === "error");

  test(`${name}: diagnostics match ${name.replace(/\.cf$/, ".expected")}`, { todo }, () => {
    assert.ok(diagnostics.length > 0, "the mistake went unreported");
    for (const d of diagnostics) {
      assert.ok(d.span[0] >= 0 && d.span[0] <= d.span[1] && d.span[1] <= source.text.length, "span in text");
    }
    // A known gap's golden file holds what tend should say, so it is not overwritten.
    if (UPDATE && !gap) writeFileSync(golden, rendered);
    assert.ok(existsSync(golden), `no golden file; run with UPDATE_GOLDEN=1 to write ${golden}`);
    assert.equal(rendered, readFileSync(golden, "utf8"));
  });

  test(`${name}: cf-promises ${rejects ? "rejects" : "accepts"} it`, (t) => {
    const result = runCfPromises(path);
    if (!result) {
      t.skip("cf-promises not installed");
      return;
    }
    if (rejects) assert.notEqual(result.status, 0, `cf-promises accepted ${name}`);
    else assert.equal(result.status, 0, `cf-promises rejected ${name}:\n${result.output}`);
  });
}
