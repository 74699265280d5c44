/**
 * stdlib's file_line and puppetlabs-concat's concat_file in a temporary
 * directory: the edits and orders of the Ruby originals.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { test } from "node:test";
import { concatFileType } from "../../../src/puppet/types/concat.js";
import { fileLineType } from "../../../src/puppet/types/file-line.js";
import { scratchDirectory } from "../../scratch.js";
import { driver, eventLines, resource } from "./file-helpers.js";

test("file_line appends, replaces, inserts after and removes as stdlib does", async () => {
  const dir = scratchDirectory("tend-pline-");
  const path = `${dir}/conf`;
  writeFileSync(path, "name = a\nport = 80\n[s]\nold = 1\nbare");
  const d = driver();
  const apply = (title: string, params: Record<string, string | boolean>) =>
    d.apply(fileLineType, title, { path, ...params });
  assert.deepEqual(eventLines(await apply("append", { line: "new = 1" })), [
    "File_line[append] ensure success file_line_created: created",
  ]);
  await apply("replace", { line: "port = 8080", match: "^port\\s*=" });
  await apply("after", { line: "in_s = 1", after: "^\\[s\\]" });
  await apply("remove", { ensure: "absent", line: "old = 1" });
  assert.equal(readFileSync(path, "utf8"), "name = a\nport = 8080\n[s]\nin_s = 1\nbare\nnew = 1\n");
  assert.deepEqual(eventLines(await apply("replace", { line: "port = 8080", match: "^port\\s*=" })), []);
  assert.deepEqual(eventLines(await apply("keep", { line: "name = b", match: "^name", replace: false })), []);
});

test("file_line refuses two matches without multiple, and a missing file", async () => {
  const dir = scratchDirectory("tend-pline-");
  writeFileSync(`${dir}/twice`, "a = 1\na = 2\n");
  const d = driver();
  const lines = eventLines(
    await d.apply(fileLineType, "t", { path: `${dir}/twice`, line: "a = 3", match: "^a" }),
  );
  assert.match(lines.join("\n"), /More than one line in file '.*twice' matches pattern '\^a'/);
  await d.apply(fileLineType, "m", { path: `${dir}/twice`, line: "a = 3", match: "^a", multiple: true });
  assert.equal(readFileSync(`${dir}/twice`, "utf8"), "a = 3\na = 3\n");
  const missing = eventLines(await d.apply(fileLineType, "x", { path: `${dir}/missing`, line: "x" }));
  assert.match(missing.join("\n"), /No such file or directory @ rb_sysopen/);
  const invalid = eventLines(await d.apply(fileLineType, "y", { path: `${dir}/twice` }));
  assert.match(invalid.join("\n"), /line is a required attribute/);
});

test("concat orders fragments numerically or as text and generates the file", async () => {
  const dir = scratchDirectory("tend-pconcat-");
  const fragment = (title: string, order: string, content: string, target = `${dir}/motd`) =>
    resource("Concat_fragment", title, { target, order, content });
  const catalog = [
    fragment("b", "10", "ten"),
    fragment("a", "2", "two\n"),
    fragment("c", "01", "one"),
    fragment("x", "10", "other", `${dir}/other`),
  ];
  const d = driver({ catalog });
  const results = await d.apply(concatFileType, `${dir}/motd`, { ensure_newline: true, mode: "0640" });
  assert.deepEqual([...results.keys()], [`Concat_file[${dir}/motd]`, `File[${dir}/motd]`]);
  assert.equal(readFileSync(`${dir}/motd`, "utf8"), "one\ntwo\nten\n");
  const alpha = await driver({ catalog }).apply(concatFileType, "alpha", {
    path: `${dir}/motd`,
    order: "alpha",
  });
  assert.match(eventLines(alpha).join("\n"), /content changed/);
  assert.equal(readFileSync(`${dir}/motd`, "utf8"), "onetentwo\n");
});
