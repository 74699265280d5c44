/**
 * A promise module as a Puppet resource type: a type tend does not have
 * that names a configured module (or one in a modules directory) is
 * validated and evaluated by the module, with the CFEngine agent's own
 * protocol client; kept, repaired, not kept, invalid, noop.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { CatalogResource, ParamValue } from "../../../src/catalog/model.js";
import type { ResourceResult } from "../../../src/catalog/resource-type.js";
import { applyCatalog } from "../../../src/catalog/apply.js";
import { findPuppetType, puppetRegistry } from "../../../src/puppet/types/index.js";
import { PromiseModules, parsePromiseModuleOption } from "../../../src/puppet/types/promise-module.js";
import { Logger, type LogRecord } from "../../../src/system/logger.js";
import { scratchDirectory } from "../../scratch.js";

const MODULE = fileURLToPath(new URL("../../../../test/fixtures/modules/file-content.sh", import.meta.url));

function resource(title: string, parameters: Record<string, ParamValue>): CatalogResource {
  return { type: "File_content", title, parameters, tags: [] };
}

async function apply(modules: PromiseModules, r: CatalogResource, noop = false) {
  const records: LogRecord[] = [];
  const type = findPuppetType(r.type, modules);
  assert.ok(type, "the module's type is found");
  const logger = new Logger((record) => records.push(record), "debug");
  const catalog = {
    name: "n",
    environment: "production",
    version: "1",
    resources: [r],
    edges: [],
    classes: [],
  };
  const result: ResourceResult = await type.apply(r, { noop, logger, run: {}, catalog });
  return { result, logs: records.map((l) => `${l.level}: ${l.message}`) };
}

test("kept, repaired, noop and not kept, through one module process", async () => {
  const dir = scratchDirectory("tend-pmod-");
  const target = join(dir, "motd");
  const option = parsePromiseModuleOption(`file_content=${MODULE}`);
  assert.ok(Array.isArray(option));
  const modules = new PromiseModules(new Map([option]));
  try {
    const wanted = resource(target, { content: "hello", require: "File[/x]" });
    const pending = await apply(modules, wanted, true);
    assert.deepEqual(
      pending.result.events.map((e) => [e.status, e.message]),
      [["noop", "current_value 'not_kept', should be 'kept' (noop)"]],
    );
    assert.equal(pending.result.failed, undefined);
    const repaired = await apply(modules, wanted);
    assert.deepEqual(
      repaired.result.events.map((e) => [e.status, e.property, e.message]),
      [["success", "result", `repaired by promise module '${MODULE}'`]],
    );
    assert.ok(repaired.logs.some((l) => l.includes(`wrote ${target}`)));
    assert.equal(readFileSync(target, "utf8"), "hello\n");
    const kept = await apply(modules, wanted);
    assert.deepEqual(kept.result.events, []);
    const broken = await apply(modules, resource(target, {}));
    assert.equal(broken.result.failed, `not kept by promise module '${MODULE}'`);
    assert.equal(broken.result.events[0]?.status, "failure");
    const invalid = await apply(modules, resource("relative", { content: "x" }));
    assert.match(invalid.result.failed ?? "", /invalid/);
    assert.ok(
      invalid.logs.some((l) => l.startsWith("error:") && l.includes("relative is not an absolute path")),
    );
  } finally {
    modules.shutdown(new Logger(() => {}));
  }
});

test("a module found in a modules directory; built-in types win; unknown types stay unknown", async () => {
  const dir = scratchDirectory("tend-pmod-");
  symlinkSync(MODULE, join(dir, "file_content"));
  const modules = new PromiseModules(new Map(), [dir]);
  try {
    const target = join(dir, "out");
    const { result } = await apply(modules, resource(target, { content: "x" }));
    assert.equal(result.events[0]?.status, "success");
    assert.equal(findPuppetType("Host", modules)?.name, "host");
    assert.equal(findPuppetType("Nosuch", modules), undefined);
    assert.equal(parsePromiseModuleOption("nameonly"), "--promise-module takes NAME=PATH, not 'nameonly'");
  } finally {
    modules.shutdown(new Logger(() => {}));
  }
});

test("the applier runs a module's resources like any other", async () => {
  const dir = scratchDirectory("tend-pmod-");
  const target = join(dir, "motd");
  const modules = new PromiseModules(new Map([["file_content", { path: MODULE }]]));
  try {
    const resources = [resource(target, { content: "hi" }), resource(join(dir, "other"), {})];
    const catalog = { name: "n", environment: "production", version: "1", resources, edges: [], classes: [] };
    const report = await applyCatalog(catalog, puppetRegistry(resources, modules));
    const statuses = Object.values(report.resource_statuses).map((s) => [s.resource, s.changed, s.failed]);
    assert.deepEqual(statuses, [
      [`File_content[${target}]`, true, false],
      [`File_content[${join(dir, "other")}]`, false, true],
    ]);
    assert.equal(readFileSync(target, "utf8"), "hi\n");
    const unknown = await applyCatalog(catalog, puppetRegistry(resources));
    assert.equal(unknown.failure?.code, "unknown-type");
  } finally {
    modules.shutdown(new Logger(() => {}));
  }
});

test("tend puppet apply --promise-module NAME=PATH applies the module's resources", () => {
  const tend = fileURLToPath(new URL("../../../bundle/tend.cjs", import.meta.url));
  const dir = scratchDirectory("tend-pmod-");
  const target = join(dir, "motd");
  const catalog = {
    name: "n",
    version: 1,
    environment: "production",
    resources: [
      { type: "File_content", title: target, tags: [], exported: false, parameters: { content: "hi" } },
    ],
    edges: [],
    classes: [],
  };
  writeFileSync(join(dir, "catalog.json"), JSON.stringify(catalog));
  const argv = [
    tend,
    "puppet",
    "apply",
    "--catalog",
    join(dir, "catalog.json"),
    "--vardir",
    join(dir, "var"),
  ];
  const withModule = [...argv, "--detailed-exitcodes", "--promise-module", `file_content=${MODULE}`];
  const first = spawnSync(process.execPath, withModule, { encoding: "utf8" });
  assert.equal(first.status, 2, first.stderr);
  assert.match(first.stdout, /result: repaired by promise module/);
  assert.equal(readFileSync(target, "utf8"), "hi\n");
  assert.equal(spawnSync(process.execPath, withModule, { encoding: "utf8" }).status, 0);
  const without = spawnSync(process.execPath, argv, { encoding: "utf8" });
  assert.equal(without.status, 1);
  assert.match(without.stderr, /Unknown resource type: 'file_content'/);
});
