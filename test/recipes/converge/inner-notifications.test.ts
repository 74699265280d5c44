/**
 * Notifications from resources a custom resource's action declares (its
 * inner collection), as chef-client runs them: the action's resources
 * converge in a sub-run whose own delayed notifications run at its end;
 * the custom resource is updated when an inner resource is; a
 * notification to a resource outside goes to the run that holds it (a
 * delayed one joins the outer queue, de-duplicated with the others).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { defineResource } from "../../../src/recipes/dsl.js";
import { compile, run, tempDir } from "./helpers.js";

const app = defineResource({
  name: "app",
  properties: { dir: { type: String, nameProperty: true } },
  actions: {
    deploy: (a) => {
      a.file(join(a.props.dir, "conf"), {
        content: "x\n",
        notifies: [
          a.notifies("write", "log[inner reload]", "delayed"),
          a.notifies("write", "log[outer restart]", "delayed"),
          a.notifies("write", "log[outer now]", "immediately"),
        ],
      });
      a.log("inner reload", { action: "nothing" });
      a.log("inner after", {});
    },
  },
});

test("inner delayed notifications run at the end of the action; outer ones go to the outer run", async (t) => {
  const dir = tempDir(t);
  const collection = await compile((r) => {
    r.log("outer restart", { action: "nothing" });
    r.log("outer now", { action: "nothing" });
    r.declare(app, dir, {});
    r.log("outer next", { notifies: r.notifies("write", "log[outer restart]", "delayed") });
  });
  const first = await run(collection);
  assert.deepEqual(first.journal, [
    "log[outer restart] nothing up-to-date",
    "log[outer now] nothing up-to-date",
    `file[${join(dir, "conf")}] create updated`,
    "log[inner reload] nothing up-to-date",
    "log[inner after] write updated",
    "log[inner reload] write updated (notified)",
    `app[${dir}] deploy updated`,
    "log[outer now] write updated (notified)",
    "log[outer next] write updated",
    "log[outer restart] write updated (notified)",
  ]);
  assert.equal(first.status.success, true);
  assert.ok(first.status.updatedResources.some((r) => r.ref === `app[${dir}]`));
});

test("an unchanged inner resource notifies nothing, and the custom resource stays up to date", async (t) => {
  const dir = tempDir(t);
  const quiet = defineResource({
    name: "quiet",
    properties: { dir: { type: String, nameProperty: true } },
    actions: {
      deploy: (a) => {
        a.directory(a.props.dir, { notifies: a.notifies("write", "log[outer restart]", "delayed") });
      },
    },
  });
  const collection = await compile((r) => {
    r.log("outer restart", { action: "nothing" });
    r.declare(quiet, dir, {});
  });
  const { journal, status } = await run(collection);
  assert.deepEqual(journal, [
    "log[outer restart] nothing up-to-date",
    `directory[${dir}] create up-to-date`,
    `quiet[${dir}] deploy up-to-date`,
  ]);
  assert.equal(status.updatedResources.length, 0);
});

test("an inner notification to a resource in no collection is a failure of the action", async (t) => {
  const dir = tempDir(t);
  const lost = defineResource({
    name: "lost",
    properties: { dir: { type: String, nameProperty: true } },
    actions: {
      deploy: (a) => {
        a.file(join(a.props.dir, "f"), { content: "", notifies: a.notifies("write", "log[nowhere]") });
      },
    },
  });
  const collection = await compile((r) => {
    r.declare(lost, dir, {});
  });
  const { status } = await run(collection);
  assert.equal(status.success, false);
  assert.match(
    status.exception?.message ?? "",
    /notifies log\[nowhere\] to write, but log\[nowhere\] is not in the resource collection/,
  );
});
