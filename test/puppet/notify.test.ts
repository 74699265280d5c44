import assert from "node:assert/strict";
import { test } from "node:test";
import type { Catalog, CatalogResource } from "../../src/catalog/model.js";
import type { ApplyContext } from "../../src/catalog/resource-type.js";
import { formatValue, quote } from "../../src/puppet/format.js";
import { findPuppetType, puppetTypes } from "../../src/puppet/types/index.js";
import { type LogRecord, Logger } from "../../src/system/logger.js";

const catalog: Catalog = {
  name: "n",
  environment: "production",
  version: "1",
  resources: [],
  edges: [],
  classes: [],
};

function context(noop: boolean, records: LogRecord[], runRecords: LogRecord[]): ApplyContext {
  return {
    noop,
    logger: new Logger((r) => records.push(r), "debug"),
    runLogger: new Logger((r) => runRecords.push(r), "debug"),
    run: {},
    catalog,
  };
}

function notify(title: string, parameters: CatalogResource["parameters"] = {}): CatalogResource {
  return { type: "Notify", title, parameters, tags: ["notify"] };
}

test("the registry finds notify by any letter case", () => {
  assert.equal(findPuppetType("Notify"), puppetTypes.get("notify"));
  assert.equal(findPuppetType("Nosuchtype"), undefined);
});

test("notify logs its message as Puppet's own and reports a change", async () => {
  const own: LogRecord[] = [];
  const run: LogRecord[] = [];
  const type = puppetTypes.get("notify");
  assert.ok(type);
  const result = await type.apply(notify("hello", { message: "Hi there" }), context(false, own, run));
  assert.deepEqual(run, [{ level: "notice", message: "Hi there" }]);
  assert.deepEqual(own, []);
  assert.deepEqual(result.events, [
    {
      property: "message",
      previousValue: "absent",
      desiredValue: "Hi there",
      name: "message_changed",
      status: "success",
      message: "defined 'message' as 'Hi there'",
    },
  ]);
});

test("notify with withpath logs under the resource; its title is the default message", async () => {
  const own: LogRecord[] = [];
  const run: LogRecord[] = [];
  await puppetTypes
    .get("notify")
    ?.apply(notify("t", { withpath: true, loglevel: "info" }), context(false, own, run));
  assert.deepEqual(own, [{ level: "info", message: "t" }]);
  assert.deepEqual(run, []);
});

test("notify in noop logs nothing and reports Puppet's noop event", async () => {
  const own: LogRecord[] = [];
  const run: LogRecord[] = [];
  const result = await puppetTypes
    .get("notify")
    ?.apply(notify("x", { message: ["a", "b"] }), context(true, own, run));
  assert.deepEqual([...own, ...run], []);
  assert.equal(result?.events[0].status, "noop");
  assert.equal(result?.events[0].message, "current_value 'absent', should be 'a' (noop)");
});

test("values are shown as Puppet shows them", () => {
  assert.equal(quote("plain"), "'plain'");
  assert.equal(quote("it's"), "'it\\'s'");
  assert.equal(quote('a\t"b"$'), '"a\\t\\"b\\"\\$"');
  assert.equal(formatValue(["0", 1, { k: true }]), "['0', 1, {'k' => true}]");
});
