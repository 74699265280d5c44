/**
 * New files written in the background while the applier goes on (see
 * src/providers/files/background-writes.ts): a run gives the same
 * statuses, events and log lines, in the same order, as the same catalog
 * applied with every file written at once (a front end with a failure
 * policy hook gets no background writes), failures and skipped dependents
 * included; and what runs after a file, or depends on it, sees it written.
 */
import assert from "node:assert/strict";
import { chmodSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { test } from "node:test";
import { applyCatalog } from "../../../src/catalog/apply.js";
import type { CatalogResource, ParamValue } from "../../../src/catalog/model.js";
import type { RunReport } from "../../../src/catalog/report.js";
import { backgroundWriter } from "../../../src/providers/files/index.js";
import { puppetTypes } from "../../../src/puppet/types/index.js";
import { scratchDirectory } from "../../scratch.js";
import { catalogOf, resource } from "../../catalog/fakes.js";

process.umask(0o022);

type Make = (dir: string) => CatalogResource[];

/** What a run shows, with the directory and the temporary names made comparable. */
function shown(report: RunReport, dir: string): unknown {
  const plain = (text: string) =>
    text
      .split(dir)
      .join("DIR")
      .replace(/\/proc\/self\/fd\/\d+\/(\.[^ ']*?)\.tend-\d+-\d+/g, "DIR/$1.tend-PID-N")
      .replace(/\d{8}-\d+-[0-9a-z]+\.lock/g, "LOCK");
  const logs = report.logs.map((l) => `${l.level} ${plain(l.source)}: ${plain(l.message)}`);
  const statuses = Object.values(report.resource_statuses).map((s) => ({
    resource: plain(s.resource),
    failed: s.failed,
    skipped: s.skipped,
    changed: s.changed,
    events: s.events.map((e) => `${e.property} ${e.status} ${e.name}: ${plain(e.message ?? "")}`),
  }));
  return { logs, statuses, status: report.status, metrics: report.metrics.resources };
}

/** The run of `make`'s catalog in a directory of its own, in the background or with every write at once. */
async function run(make: Make, background: boolean): Promise<{ dir: string; report: RunReport }> {
  const dir = scratchDirectory("tend-pfile-bg-");
  writeFileSync(`${dir}/blocker`, "a file where a directory is wanted\n");
  writeFileSync(`${dir}/existing`, "same\n", { mode: 0o600 });
  chmodSync(`${dir}/existing`, 0o600);
  const report = await applyCatalog(catalogOf(make(dir)), puppetTypes, {
    logLevel: "info",
    backgroundChanges: true,
    // A front end with a failure policy needs each result at once: nothing goes to the background.
    hooks: background ? {} : { failurePolicy: () => "skip-dependents" },
  });
  return { dir, report };
}

function file(path: string, parameters: Record<string, ParamValue>): CatalogResource {
  return resource("File", path, parameters);
}

const LONG = "n".repeat(255);

const failing: Make = (dir) => [
  file(`${dir}/a`, { ensure: "file", content: "a\n", mode: "0644" }),
  // Its directory is a file: refused when the write starts.
  file(`${dir}/blocker/child`, { ensure: "file", content: "c\n" }),
  // A name the file system takes, but not with a temporary name's suffix: fails on libuv's thread.
  file(`${dir}/${LONG}`, { ensure: "file", content: "l\n" }),
  // Changed beside the pending writes: its mode event is logged in its place.
  file(`${dir}/existing`, { ensure: "file", content: "same\n", mode: "0644" }),
  file(`${dir}/dep`, { ensure: "file", content: "d\n", require: `File[${dir}/blocker/child]` }),
  file(`${dir}/dep2`, { ensure: "file", content: "d\n", require: `File[${dir}/${LONG}]` }),
  file(`${dir}/after`, { ensure: "file", content: "z\n" }),
  resource("Notify", "done"),
];

test("a write that fails in the background is the same failure, and its dependents are skipped", async () => {
  const taken = backgroundWriter.filesTaken;
  const background = await run(failing, true);
  assert.ok(backgroundWriter.filesTaken > taken, "files went to the background");
  const atOnce = await run(failing, false);
  assert.deepEqual(shown(background.report, background.dir), shown(atOnce.report, atOnce.dir));

  const { dir, report } = background;
  const status = (title: string) => report.resource_statuses[`File[${dir}/${title}]`];
  assert.equal(status("blocker/child")?.failed, true);
  assert.match(
    status("blocker/child")?.events[0]?.message ?? "",
    /^change from 'absent' to 'file' failed: Could not set 'file' on ensure: Not a directory - /,
  );
  assert.equal(status(LONG)?.failed, true);
  assert.match(status(LONG)?.events[0]?.message ?? "", /ENAMETOOLONG/);
  assert.equal(status("dep")?.skipped, true);
  assert.equal(status("dep2")?.skipped, true);
  assert.equal(status("a")?.changed, true);
  assert.equal(readFileSync(`${dir}/a`, "utf8"), "a\n");
  assert.equal(readFileSync(`${dir}/after`, "utf8"), "z\n");
  assert.equal(readFileSync(`${dir}/existing`, "utf8"), "same\n");
});

test("an exec that reads new files runs once they are written, required or only after them", async () => {
  const many: Make = (dir) => [
    ...Array.from({ length: 50 }, (_, i) => file(`${dir}/f${i}`, { content: `file ${i}\n` })),
    resource("Exec", `cat ${dir}/f48 > ${dir}/later`, { provider: "shell" }),
    resource("Exec", `cat ${dir}/f49 > ${dir}/required`, {
      provider: "shell",
      require: `File[${dir}/f49]`,
    }),
  ];
  const background = await run(many, true);
  const atOnce = await run(many, false);
  assert.deepEqual(shown(background.report, background.dir), shown(atOnce.report, atOnce.dir));
  assert.equal(background.report.status, "changed");
  assert.equal(readFileSync(`${background.dir}/required`, "utf8"), "file 49\n");
  assert.equal(readFileSync(`${background.dir}/later`, "utf8"), "file 48\n");
});

test("a path through a pending file's name waits for it, though nothing relates them", async () => {
  const nested: Make = (dir) => {
    symlinkSync(dir, `${dir}/alias`);
    return [
      ...Array.from({ length: 20 }, (_, i) => file(`${dir}/g${i}`, { content: `g ${i}\n` })),
      // The same place by another path: no autorequire relates it to File[DIR/g3].
      // In noop too: it would change the content written, not create the file.
      file(`${dir}/alias/g19`, { content: "other\n", noop: true }),
      file(`${dir}/alias/g3/inside`, { content: "x\n" }),
      // Replaced (not beside pending files): after them.
      file(`${dir}/existing`, { content: "changed\n", backup: false }),
    ];
  };
  const background = await run(nested, true);
  const atOnce = await run(nested, false);
  assert.deepEqual(shown(background.report, background.dir), shown(atOnce.report, atOnce.dir));
  assert.match(
    JSON.stringify(shown(background.report, background.dir)),
    /Could not set 'file' on ensure: Not a directory - DIR\/alias\/g3\/inside/,
  );
  assert.equal(readFileSync(`${background.dir}/existing`, "utf8"), "changed\n");
  const noop = background.report.resource_statuses[`File[${background.dir}/alias/g19]`];
  assert.deepEqual(
    noop?.events.map((e) => `${e.property} ${e.status}`),
    ["content noop"],
  );
});

test("without backgroundChanges (the default) every file is written at once", async () => {
  const dir = scratchDirectory("tend-pfile-bg-");
  const taken = backgroundWriter.filesTaken;
  const report = await applyCatalog(
    catalogOf(Array.from({ length: 20 }, (_, i) => file(`${dir}/h${i}`, { content: "h\n" }))),
    puppetTypes,
  );
  assert.equal(report.status, "changed");
  assert.equal(backgroundWriter.filesTaken, taken);
});
