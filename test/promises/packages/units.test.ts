/**
 * The pure pieces of packages promises: 3.21's built-in version
 * comparison (parts compared as strings, separators must agree), the
 * manager name an inventory line carries, and the reading of module answers.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { silentLogger } from "../../../src/system/logger.js";
import { managerName } from "../../../src/promises/packages/method-inventory.js";
import { compareVersionsBuiltin } from "../../../src/promises/packages/method-versions.js";
import { readInventoryAnswer, readPackageData } from "../../../src/providers/packages/module-protocol.js";
import { auditPackageOperations } from "../../../src/promises/packages/simulate-audit.js";

test("built-in version comparison compares parts as strings, left to right", () => {
  assert.equal(compareVersionsBuiltin("1.2.3", "1.2.3", "=="), "match");
  assert.equal(compareVersionsBuiltin("1.2.3", "1.2.4", "<"), "match");
  assert.equal(compareVersionsBuiltin("1.3", "1.2.9", ">"), "match");
  // "2" sorts after "10": 3.21 does not compare numbers.
  assert.equal(compareVersionsBuiltin("1.2", "1.10", ">"), "match");
  assert.equal(compareVersionsBuiltin("1.2.1", "1.2", ">"), "match");
  assert.equal(compareVersionsBuiltin("1.2", "1.2.1", "<="), "match");
  assert.equal(compareVersionsBuiltin("1.2", "1.2.1", ">="), "no-match");
});

test("versions whose separators differ cannot be compared", () => {
  assert.equal(compareVersionsBuiltin("1.2", "1-2", "=="), "error");
  assert.equal(compareVersionsBuiltin("1", "1.0", "<"), "match");
});

test("the manager of a list command is its program's base name, an env prefix skipped", () => {
  assert.equal(managerName("/usr/bin/printf 'a-1-b'"), "printf");
  assert.equal(managerName("/usr/bin/env /usr/bin/printf 'a-1-b'"), "printf");
  assert.equal(managerName("/usr/bin/env X=Y LANG=C /bin/rpm -qa"), "rpm");
  assert.equal(managerName("env dpkg -l"), "dpkg");
});

test("an inventory answer keeps complete groups and notes errors", () => {
  const answer = readInventoryAnswer(
    [
      "Name=a",
      "Version=1",
      "Architecture=x",
      "Name=b",
      "Version=2",
      "ErrorMessage=bad",
      "Name=c",
      "Version=3",
      "Architecture=y",
    ],
    silentLogger,
  );
  assert.deepEqual(answer.entries, [
    { name: "a", version: "1", arch: "x" },
    { name: "c", version: "3", arch: "y" },
  ]);
  assert.equal(answer.hadErrors, true);
});

test("package data with a second name is refused; an unknown type is refused", () => {
  assert.equal(readPackageData(["PackageType=repo", "Name=a", "Name=b"], silentLogger), undefined);
  assert.equal(readPackageData(["PackageType=rpm", "Name=a"], silentLogger), undefined);
  assert.deepEqual(readPackageData(["PackageType=file", "Name=a", "Version=1"], silentLogger), {
    type: "file",
    name: "a",
    version: "1",
    arch: undefined,
  });
});

test("--simulate folds the recorded package operations as cf-agent 3.21 reported them", () => {
  const root = mkdtempSync(join(tmpdir(), "tend-pkgs-ops-"));
  try {
    // The operations of a run installing zsh, vim 9.0 (latest) and a file package, removing bash.
    const ops = ["p,bash,,", "i,zsh,,", "i,vim,9.0,x86_64", "a,nano,,", "r,bash,,", "i,/tmp/x/joe_2.1.pkg,,"];
    writeFileSync(join(root, "pkgs_ops"), ops.map((op) => `${op}\r\n`).join(""));
    const shown = (mode: "diff" | "manifest") => {
      const out: string[] = [];
      auditPackageOperations(root, mode, silentLogger, (text) => out.push(text));
      return out.join("");
    };
    assert.equal(
      shown("diff"),
      "Package 'zsh' would be installed\n\nPackage 'vim-x86_64 [9.0]' would be installed\n\n" +
        "Package '/tmp/x/joe_2.1.pkg' would be installed\n\nPackage 'bash' would be removed\n\n",
    );
    assert.equal(
      shown("manifest"),
      "Package 'zsh' would be present\n\nPackage 'vim-x86_64 [9.0]' would be present\n\n" +
        "Package '/tmp/x/joe_2.1.pkg' would be present\n\nPackage 'nano' would be absent\n\nPackage 'bash' would be absent\n\n",
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
