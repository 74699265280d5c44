import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { Diagnostic } from "../../../src/language/diagnostics.js";
import { parseText } from "../../../src/language/parser.js";
import { SourceFile } from "../../../src/language/source.js";
import { validatePolicy } from "../../../src/language/validate/index.js";
import { CASES } from "./cases.js";

/** Parses and validates one file as a whole policy, as `cf-promises -c` would. */
function check(text: string, fullCheck = true): Diagnostic[] {
  const { policy, diagnostics } = parseText(text, "t.cf");
  const set = { files: [{ source: new SourceFile("t.cf", text), policy }] };
  return [...diagnostics, ...validatePolicy(set, { fullCheck })];
}

const errors = (ds: Diagnostic[]) => ds.filter((d) => d.severity === "error");

for (const c of CASES) {
  test(c.name, () => {
    const found = check(c.policy);
    const errs = errors(found);
    if (c.code === null) assert.deepEqual(errs, [], "expected no errors");
    else {
      const hit = errs.find((d) => d.code === c.code);
      assert.ok(hit, `expected ${c.code}, got ${JSON.stringify(errs.map((d) => [d.code, d.message]))}`);
      if (c.message) assert.ok(hit.message.includes(c.message), hit.message);
    }
    if (c.warning)
      assert.ok(
        found.some((d) => d.severity === "warning" && d.code === c.warning),
        `expected warning ${c.warning}`,
      );
  });
}

test("undefined bodies are warnings without body common control or a full check", () => {
  const found = check('bundle agent x\n{\nfiles:\n  "/tmp/x" perms => nope;\n}\n', false);
  assert.deepEqual(errors(found), []);
  assert.ok(found.some((d) => d.code === "undefined-body" && d.severity === "warning"));
});

test("a custom promise may call a parameterised body; a call that names no body is a function", () => {
  const policy =
    'promise agent x\n{\n  path => "/x";\n}\nbody perms mode(m)\n{\n  mode => "$(m)";\n}\n' +
    'bundle agent main\n{\nx:\n  "y" perms => mode("644"), other => nosuch("a");\n}\n';
  const warnings = check(policy).filter((d) => d.code === "unknown-function");
  assert.deepEqual(
    warnings.map((d) => d.message),
    ["unknown function 'nosuch'. (cf-agent will fail to evaluate it)"],
  );
});

test("redefinition across files names the other file", () => {
  const a = "bundle agent b\n{\n}\n";
  const files = ["a.cf", "b.cf"].map((path) => ({
    source: new SourceFile(path, a),
    policy: parseText(a, path).policy,
  }));
  const found = validatePolicy({ files });
  assert.equal(found.length, 1);
  assert.match(found[0].message, /already defined in a\.cf/);
  assert.equal(found[0].file, "b.cf");
});

test("agrees with cf-promises on every case", (t) => {
  if (spawnSync("cf-promises", ["--version"]).error) {
    t.skip("cf-promises not installed");
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "tend-validate-"));
  try {
    for (const c of CASES) {
      writeFileSync(join(dir, "t.cf"), c.policy);
      const run = spawnSync("cf-promises", ["-c", "-f", "./t.cf"], { cwd: dir, encoding: "utf8" });
      const rejected = run.status !== 0;
      assert.equal(
        errors(check(c.policy)).length > 0,
        rejected,
        `${c.name}: cf-promises ${rejected ? "rejects" : "accepts"} it\n${run.stderr}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
