/**
 * Puppet's file modes: validity, symbolic application and comparison, with
 * cases checked against Puppet 7.23's own results.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  directoryMask,
  displayMode,
  isValidMode,
  ModeError,
  modeInSync,
  modeToInt,
  normalizeMode,
} from "../../../src/puppet/types/file/mode.js";
import { parseFile } from "../../../src/puppet/types/file/params.js";

test("valid and invalid modes as Puppet judges them", () => {
  for (const mode of ["0644", "644", "7", "04755", "u+x", "a=r,ug+w", "ug=rw,o=r", "+X", "o-rwx", "u=g"])
    assert.ok(isValidMode(mode), mode);
  for (const mode of ["0999", "99999", "abc", "u", "u+q", "", "0o644"]) assert.ok(!isValidMode(mode), mode);
});

test("numeric modes lose leading zeros and show four digits", () => {
  assert.equal(normalizeMode("0644"), "644");
  assert.equal(normalizeMode("0000"), "0");
  assert.equal(displayMode(normalizeMode("0600")), "0600");
  assert.equal(displayMode("4755"), "4755");
});

test("symbolic modes apply to the current mode", () => {
  assert.equal(modeToInt("u+x,g-r", 0o644), 0o704);
  assert.equal(modeToInt("a=r,ug+w", 0o777), 0o664);
  assert.equal(modeToInt("go=u", 0o750), 0o777);
  assert.equal(modeToInt("a+X", 0o644), 0o644);
  assert.equal(modeToInt("a+X", 0o744), 0o755);
  assert.equal(modeToInt("a+X", 0o644, true), 0o755);
  assert.equal(modeToInt("u+s,g+s,+t", 0o755), 0o7755);
  assert.equal(modeToInt("0600", 0o777), 0o600);
  assert.throws(
    () => modeToInt("a-X", 0o644),
    (e: Error) => e instanceof ModeError && /X only works/.test(e.message),
  );
  assert.throws(() => modeToInt("89"), /Numeric modes must be in octal/);
});

test("directories gain search where they have read", () => {
  assert.equal(directoryMask("644"), "755");
  assert.equal(directoryMask("640"), "750");
  assert.equal(directoryMask("u+r"), "u+r");
});

test("mode comparison normalizes both sides", () => {
  assert.ok(modeInSync("644", "0644", false));
  assert.ok(!modeInSync("600", "0644", false));
  assert.ok(modeInSync("u+x", "0744", false));
  assert.ok(!modeInSync("u+x", "0644", false));
});

const file = (parameters: Record<string, unknown>, title = "/tmp/x") =>
  parseFile({ type: "File", title, tags: [], parameters: parameters as never });

test("parameter problems are worded as Puppet's", () => {
  assert.deepEqual(file({ mode: "0999" }), {
    error: 'Parameter mode failed on File[/tmp/x]: The file mode specification is invalid: "0999"',
  });
  assert.deepEqual(file({ mode: 644 }), {
    error:
      "Parameter mode failed on File[/tmp/x]: The file mode specification must be a string, not 'Integer'",
  });
  assert.deepEqual(file({}, "relative"), {
    error: "Parameter path failed on File[relative]: File paths must be fully qualified, not 'relative'",
  });
  assert.deepEqual(file({ content: "a", source: "/b" }), {
    error: "Validation of File[/tmp/x] failed: You cannot specify more than one of content, source, target",
  });
  assert.deepEqual(file({ links: "ignore" }), {
    error: 'Parameter links failed on File[/tmp/x]: Invalid value "ignore". Valid values are follow, manage.',
  });
  assert.deepEqual(file({ source: "ftp://x/y" }), {
    error: "Parameter source failed on File[/tmp/x]: Cannot use URLs of type 'ftp' as source for fileserving",
  });
  assert.deepEqual(file({ recurse: "remote" }), {
    error: "Validation of File[/tmp/x] failed: You cannot specify a remote recursion without a source",
  });
});

test("parameters are munged as Puppet munges them", () => {
  const parsed = file(
    { content: "x", backup: true, source: undefined, mode: "0640", replace: "no" },
    "/tmp//a/b/",
  );
  assert.ok("spec" in parsed);
  assert.equal(parsed.spec.path, "/tmp/a/b");
  assert.equal(parsed.spec.ensure, "file");
  assert.equal(parsed.spec.backup, ".puppet-bak");
  assert.equal(parsed.spec.mode, "640");
  assert.equal(parsed.spec.replace, false);
  const link = file({ ensure: "/etc/other" });
  assert.ok("spec" in link);
  assert.equal(link.spec.ensure, "link");
  assert.equal(link.spec.target, "/etc/other");
  const source = file({ source: ["/srv/a/", "puppet:///modules/m/f"] });
  assert.ok("spec" in source);
  assert.deepEqual(source.spec.source, ["file:///srv/a", "puppet:///modules/m/f"]);
  const binary = file({ content: { __ptype: "Binary", __pvalue: "AAEC" } });
  assert.ok("spec" in binary);
  assert.deepEqual([...(binary.spec.content ?? [])], [0, 1, 2]);
});
