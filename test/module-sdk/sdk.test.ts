import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import {
  ValidationError,
  boolean,
  checkAttributes,
  int,
  list,
  oneOf,
  runPromiseModule,
  string,
} from "../../src/module-sdk/index.js";
import { repoRoot, runPolicy } from "../promises/custom/run-module.js";
import { scratchDirectory } from "../scratch.js";

test("attributes are checked and converted as declared", () => {
  const specs = {
    name: string({ required: true }),
    count: int({ default: 3 }),
    enabled: boolean(),
    items: list(),
    mode: oneOf(["fast", "slow"] as const, { default: "slow" }),
    port: int({ check: (p) => (p > 0 && p < 65536 ? undefined : "must be a port number") }),
  };
  assert.deepEqual(
    checkAttributes(specs, { name: "x", enabled: "yes", count: "12", items: ["a"], handle: "h" }),
    {
      name: "x",
      count: 12,
      enabled: true,
      items: ["a"],
      mode: "slow",
      port: undefined,
    },
  );
  const refused = (attributes: Record<string, string | string[]>) => {
    try {
      checkAttributes(specs, attributes);
      return "accepted";
    } catch (error) {
      assert.ok(error instanceof ValidationError);
      return error.message;
    }
  };
  assert.equal(refused({}), "Missing required attribute 'name'");
  assert.equal(refused({ name: "x", colour: "red" }), "Unknown attribute 'colour'");
  assert.equal(refused({ name: "x", count: "many" }), `Attribute 'count' must be an integer, not "many"`);
  assert.equal(refused({ name: "x", items: "a" }), `Attribute 'items' must be a list of strings, not "a"`);
  assert.equal(
    refused({ name: "x", mode: "medium" }),
    `Attribute 'mode' must be one of 'fast', 'slow', not "medium"`,
  );
  assert.equal(refused({ name: "x", port: "70000" }), "Attribute 'port' must be a port number");
});

/** Talks to a module run in-process: the frames it answers, as parsed JSON after the header. */
async function converse(requests: readonly object[], evaluate: () => never | "kept"): Promise<string[]> {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = "";
  output.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
  });
  const done = runPromiseModule(
    { name: "unit", version: "1.0", attributes: { a: string() }, evaluate },
    { input, output },
  );
  input.write("cf-agent 3.21.0 v1\n\n");
  for (const request of requests) input.write(`${JSON.stringify(request)}\n\n`);
  input.end();
  await done;
  return text.split("\n\n").filter(Boolean);
}

test("the SDK speaks the JSON protocol, and a failing module answers error instead of dying", async () => {
  const base = { promise_type: "unit", promiser: "p", filename: "./x.cf", line_number: 3, log_level: "info" };
  const frames = await converse(
    [
      { operation: "validate_promise", ...base, attributes: { a: "1" } },
      { operation: "validate_promise", ...base, attributes: { b: "1" } },
      { operation: "evaluate_promise", ...base, attributes: { a: "1" } },
      { operation: "frobnicate" },
      { operation: "terminate" },
    ],
    () => {
      throw new Error("boom");
    },
  );
  assert.equal(frames[0], "unit 1.0 v1 json_based action_policy");
  assert.deepEqual(
    frames.slice(1).map((f) => JSON.parse(f)),
    [
      { result: "valid", operation: "validate_promise" },
      {
        result: "invalid",
        operation: "validate_promise",
        log: [
          { level: "error", message: "Unknown attribute 'b' for unit promise with promiser 'p' (./x.cf:3)" },
        ],
      },
      {
        result: "error",
        operation: "evaluate_promise",
        log: [{ level: "critical", message: "unit: Error: boom (a bug in the promise module)" }],
      },
      {
        result: "error",
        operation: "frobnicate",
        log: [{ level: "error", message: "unit: unknown operation 'frobnicate'" }],
      },
      { result: "success", operation: "terminate" },
    ],
  );
});

test("the example module (examples/modules/setting.mjs) under the agent: repairs, keeps, warns, refuses", () => {
  const dir = scratchDirectory("tend-sdk-");
  const file = join(dir, "app.conf");
  writeFileSync(file, "# app\nport=1\n");
  const policy = `promise agent setting { path => "${join(repoRoot, "examples", "modules", "setting.mjs")}"; }
bundle agent main
{
  setting:
      "${file}" key => "port", value => "8080";
      "${file}" key => "name", value => "demo", separator => ": ";
      "relative.conf" key => "a", value => "b";
      "${file}" key => "a", value => "b", colour => "red";
  classes:
      "port_changed" expression => "setting_port_changed", scope => "namespace";
}
`;
  const first = runPolicy(policy);
  assert.deepEqual(
    first.records.filter((r) => r.type === "setting").map((r) => `${r.promiser}: ${r.outcome}`),
    [`${file}: repaired`, `${file}: repaired`, "relative.conf: failed", `${file}: failed`],
  );
  assert.equal(readFileSync(file, "utf8"), "# app\nport=8080\nname: demo\n");
  assert.ok(first.classes.includes("port_changed"));
  assert.equal(first.logged(/^info: Set 'port' to '8080' in '.*app\.conf'$/).length, 1);
  assert.equal(
    first.logged(/^error: 'relative\.conf' is not an absolute path for setting promise/).length,
    1,
  );
  assert.equal(first.logged(/^error: Unknown attribute 'colour' for setting promise/).length, 1);
  assert.equal(first.logged(/^CRITICAL|^critical/).length, 0);

  const second = runPolicy(policy);
  assert.deepEqual(
    second.records.filter((r) => r.type === "setting" && r.promiser === file).map((r) => r.outcome),
    ["kept", "kept", "failed"],
  );
  writeFileSync(file, "port=1\n");
  const dry = runPolicy(policy, { dryRun: true });
  assert.equal(dry.outcome(file), "failed");
  assert.equal(
    dry.logged(/^warning: Should set 'port' to '8080' in '.*app\.conf', but only warning promised$/).length,
    1,
  );
  assert.equal(readFileSync(file, "utf8"), "port=1\n");
  assert.ok(!existsSync(join(dir, "relative.conf")));
});
