import assert from "node:assert/strict";
import { test } from "node:test";
import type { JsonValue } from "../../../src/eval/values.js";
import {
  type ModuleRequest,
  agentHeader,
  decodeReply,
  encodeRequest,
  lineBasedProblem,
  parseHeader,
  parseModuleLogLevel,
} from "../../../src/providers/modules/protocol.js";

test("the agent introduces itself as cf-agent 3.21.0 speaking v1", () => {
  assert.equal(agentHeader(), "cf-agent 3.21.0 v1\n\n");
});

test("headers: name, version, protocol and flags; the last protocol form named wins", () => {
  const json = parseHeader(["mod 1.2 v1 json_based action_policy"]);
  assert.deepEqual(json, {
    ok: true,
    value: {
      name: "mod",
      version: "1.2",
      protocolVersion: 1,
      form: "json",
      actionPolicy: true,
      warnings: [],
    },
  });
  const both = parseHeader(["mod 1 v1 json_based line_based"]);
  assert.ok(both.ok && both.value.form === "line" && both.value.warnings.length === 1);
  const none = parseHeader(["mod 1 v1"]);
  assert.ok(none.ok && none.value.form === "line" && /line_based/.test(none.value.warnings[0]));
});

test("headers that cannot be used", () => {
  const errors = [
    [],
    ["garbage"],
    ["mod 1 1 json_based"],
    ["mod 1 v2 json_based"],
    ["mod 1 v0"],
    ["a b v1", "x"],
  ].map((frame) => {
    const header = parseHeader(frame);
    return header.ok ? "ok" : header.error;
  });
  assert.deepEqual(errors, [
    "an empty line instead of a header",
    "an invalid header 'garbage' (expected 'NAME VERSION v1 FLAGS...')",
    "an invalid header 'mod 1 1 json_based' (expected 'NAME VERSION v1 FLAGS...')",
    "protocol version v2 in its header, higher than the v1 offered",
    "an unknown protocol version v0",
    "no empty line after the header 'a b v1' (got 'x')",
  ]);
});

test("requests: sorted compact JSON, or key=value lines in cf-agent's order", () => {
  const request = {
    operation: "evaluate_promise",
    log_level: "info",
    promise_type: "t",
    promiser: "p",
    line_number: 7,
    filename: "./f.cf",
    attributes: new Map<string, JsonValue>([
      ["zeta", "1"],
      ["alpha", ["a", "b"]],
      ["data", { y: 1, b: { d: 2, c: 3 } }],
    ]),
  } satisfies ModuleRequest;
  assert.equal(
    encodeRequest(request, "json"),
    '{"attributes":{"alpha":["a","b"],"data":{"b":{"c":3,"d":2},"y":1},"zeta":"1"},"filename":"./f.cf",' +
      '"line_number":7,"log_level":"info","operation":"evaluate_promise","promise_type":"t","promiser":"p"}\n\n',
  );
  const line = {
    ...request,
    attributes: new Map<string, JsonValue>([
      ["zeta", "1"],
      ["alpha", "2"],
    ]),
  };
  assert.equal(
    encodeRequest(line, "line"),
    "operation=evaluate_promise\nlog_level=info\npromise_type=t\npromiser=p\nline_number=7\nfilename=./f.cf\n" +
      "attribute_zeta=1\nattribute_alpha=2\n\n",
  );
  assert.equal(encodeRequest({ operation: "terminate" }, "json"), '{"operation":"terminate"}\n\n');
  assert.equal(encodeRequest({ operation: "terminate" }, "line"), "operation=terminate\n\n");
});

test("line-based modules take one-line strings only", () => {
  assert.equal(lineBasedProblem("fine"), undefined);
  assert.match(lineBasedProblem("two\nlines") ?? "", /newline/);
  assert.match(lineBasedProblem(["a"]) ?? "", /list or data container/);
});

test("replies: log lines, results and classes in both forms", () => {
  assert.deepEqual(
    decodeReply(["log_info=hello", "operation=x", "result=kept", "result_classes=a,b"], "line"),
    {
      ok: true,
      value: {
        result: "kept",
        resultClasses: ["a", "b"],
        log: [{ level: "info", message: "hello" }],
        operation: "x",
        promiser: undefined,
      },
    },
  );
  const json = decodeReply(
    [
      "log_error=first=still message",
      '{"result":"repaired","result_classes":["c"],"log":[{"level":"info","message":"m"}]}',
    ],
    "json",
  );
  assert.ok(json.ok);
  assert.deepEqual(json.value.log, [
    { level: "error", message: "first=still message" },
    { level: "info", message: "m" },
  ]);
  assert.deepEqual(json.value.resultClasses, ["c"]);
});

test("replies that are refused as a whole", () => {
  const refused = (frame: string[], form: "json" | "line") => {
    const reply = decodeReply(frame, form);
    return reply.ok ? "ok" : reply.error;
  };
  assert.equal(refused([], "json"), "an incomplete reply (no JSON object)");
  assert.equal(refused(["log_info=only a log"], "json"), "an incomplete reply (no JSON object)");
  assert.equal(
    refused(["{", '"result": "kept"', "}"], "json"),
    "JSON over 3 lines (a reply must be one line): '{'",
  );
  assert.equal(refused(["not json"], "json"), "invalid JSON 'not json'");
  assert.equal(refused(["[1]"], "json"), "JSON that is not an object: '[1]'");
  assert.equal(refused(['{"log": {}}'], "json"), "a 'log' that is not an array");
  assert.equal(
    refused(['{"log": [{"level": 1}]}'], "json"),
    "a 'log' entry without a string level and message",
  );
});

test("lines 3.21 cannot read are reported in order and skipped, not fatal", () => {
  const reply = decodeReply(
    ["log_info=one", "log_nothing", "no equals sign", "result=kept", "log_info"],
    "line",
  );
  assert.ok(reply.ok);
  assert.equal(reply.value.result, "kept");
  assert.deepEqual(reply.value.log, [
    { level: "info", message: "one" },
    { level: "", message: "log_nothing", invalid: "log line" },
    { level: "", message: "no equals sign", invalid: "line" },
    { level: "", message: "log_info", invalid: "log line" },
  ]);
  const json = decodeReply(["log_info", '{"result": "kept"}'], "json");
  assert.ok(json.ok);
  assert.deepEqual(json.value.log, [{ level: "", message: "log_info", invalid: "log line" }]);
});

test("log levels are read as cf-agent reads them: case-insensitive prefixes", () => {
  const levels = [
    "critical",
    "CRIT",
    "c",
    "error",
    "Err",
    "warn",
    "w",
    "notice",
    "i",
    "info",
    "inform",
    "verbose",
    "d",
  ];
  assert.deepEqual(levels.map(parseModuleLogLevel), [
    "critical",
    "critical",
    "critical",
    "error",
    "error",
    "warning",
    "warning",
    "notice",
    "info",
    "info",
    "info",
    "verbose",
    "debug",
  ]);
  for (const unknown of ["", "informational", "bogus", "errorz"])
    assert.equal(parseModuleLogLevel(unknown), undefined);
});
