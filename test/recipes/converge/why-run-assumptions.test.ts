/**
 * Why-run's assumptions, per resource, as chef-client reports them: a
 * requirement the system does not meet yet (an enclosing directory, an
 * init script) is printed with what the run assumes instead, and the
 * resource says what it would do; the same requirement in a real run is
 * the resource's failure, worded as chef-client's.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { ConvergeEvent } from "../../../src/recipes/converge.js";
import { compile, fakeServices, run, tempDir } from "./helpers.js";

type Action = Extract<ConvergeEvent, { kind: "action" }>;

function actions(events: readonly ConvergeEvent[]): Action[] {
  return events.filter((e): e is Action => e.kind === "action");
}

test("a file or directory in a directory not made yet: assumed made, in why-run", async (t) => {
  const dir = tempDir(t);
  const app = join(dir, "app");
  const collection = await compile((r) => {
    r.directory(app);
    r.directory(join(app, "conf"));
    r.file(join(app, "conf", "app.ini"), { content: "x\n" });
    r.file(join(dir, "top"), { content: "y\n" });
  });
  const { events } = await run(collection, { whyRun: true });
  const [a, conf, ini, top] = actions(events);
  assert.equal(a?.assumptions, undefined);
  assert.deepEqual(conf?.assumptions, [
    `Parent directory ${app} does not exist, cannot create ${join(app, "conf")}`,
    `Assuming directory ${app} would have been created`,
  ]);
  assert.deepEqual(ini?.assumptions, [
    `Parent directory ${join(app, "conf")} does not exist.`,
    `Assuming directory ${join(app, "conf")} would have been created`,
  ]);
  assert.deepEqual(ini?.lines.slice(0, 1), [`create new file ${join(app, "conf", "app.ini")}`]);
  assert.equal(ini?.status, "updated");
  assert.equal(top?.assumptions, undefined);
});

test("the same missing directory in a real run is chef-client's failure", async (t) => {
  const dir = tempDir(t);
  const collection = await compile((r) => {
    r.file(join(dir, "missing", "f"), { content: "x\n", ignoreFailure: true });
    r.directory(join(dir, "gone", "d"), { ignoreFailure: true });
  });
  const { events } = await run(collection);
  const [file, directory] = actions(events);
  assert.equal(file?.error, `Parent directory ${join(dir, "missing")} does not exist.`);
  assert.equal(
    directory?.error,
    `Parent directory ${join(dir, "gone")} does not exist, cannot create ${join(dir, "gone", "d")}`,
  );
});

test("a service whose init script is absent: assumed installed and stopped, in why-run", async (t) => {
  const dir = tempDir(t);
  const script = join(dir, "web");
  const { tools, calls } = fakeServices();
  const system = { initScriptDirectory: dir, systemdRuns: false, tools };
  const collection = await compile((r) => {
    r.service("web", { action: ["stop", "start"], provider: "init" });
  });
  const { events, status } = await run(collection, { whyRun: true, system });
  const [stop, start] = actions(events);
  const assumed = [
    `${script} does not exist!`,
    `Init script '${script}' doesn't exist, assuming a prior action would have created it.`,
  ];
  assert.deepEqual([stop?.status, stop?.assumptions], ["up-to-date", assumed]);
  assert.deepEqual(
    [start?.status, start?.lines, start?.assumptions],
    ["updated", ["start service service[web]"], assumed],
  );
  assert.equal(status.success, true);
  assert.ok(!calls.some((c) => c.includes(script)), calls.join("\n"));

  const real = await run(
    await compile((r) => {
      r.service("web", { action: "start", provider: "init" });
    }),
    {
      system,
    },
  );
  assert.equal(actions(real.events)[0]?.error, `${script} does not exist!`);
  assert.equal(real.status.success, false);

  // With the script there, nothing is assumed.
  writeFileSync(script, "#!/bin/sh\nexit 3\n", { mode: 0o755 });
  const present = await run(
    await compile((r) => {
      r.service("web", { action: "stop", provider: "init" });
    }),
    {
      whyRun: true,
      system,
    },
  );
  assert.equal(actions(present.events)[0]?.assumptions, undefined);
});
