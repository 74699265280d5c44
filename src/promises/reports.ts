/**
 * `reports` promises: print `R: text` once per run for each distinct
 * text, append it to `report_to_file`, show `printfile`, or hand the text
 * back to a calling `methods` promise (`bundle_return_value_index`).
 * A report still holding unresolved references waits for the last pass,
 * and is then printed as it stands, as 3.21 does.
 */
import { appendFileSync, readFileSync } from "node:fs";
import { parseCfInt } from "../eval/numbers.js";
import type { Outcome } from "../agent/outcome.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "./contract.js";
import { asText } from "./values.js";

function printFile(promise: ActivePromise, env: PromiseEnvironment): Outcome {
  const file = asText(promise.bodyValue("printfile", "file_to_print"));
  if (!file) return "kept";
  const lines = parseCfInt(asText(promise.bodyValue("printfile", "number_of_lines")) ?? "inf") ?? Infinity;
  try {
    const text = readFileSync(file, "utf8").split("\n");
    if (text[text.length - 1] === "") text.pop();
    for (const line of text.slice(0, lines)) env.report(line);
    return "kept";
  } catch {
    env.log.error(`Printing file '${file}' failed: it could not be read`);
    return "failed";
  }
}

function evaluateReport(promise: ActivePromise, env: PromiseEnvironment): Outcome {
  const returnIndex = asText(promise.value("bundle_return_value_index"));
  if (returnIndex !== undefined) {
    env.ctx.setVariable(
      { ns: null, scope: null, name: "last-result", indices: returnIndex ? [returnIndex] : [] },
      { type: "string", value: promise.promiser },
    );
    return "kept";
  }
  if (env.dryRun || asText(promise.bodyValue("action", "action_policy")) === "warn") {
    env.log.warning(`Need to repair reports promise: ${promise.promiser}`);
    return "warn";
  }
  const toFile = asText(promise.value("report_to_file"));
  if (toFile) {
    try {
      appendFileSync(toFile, `${promise.promiser}\n`);
    } catch {
      // 3.21 logs the failure but still counts the report as kept.
      env.log.error(`Could not append the report to '${toFile}'`);
    }
  } else env.report(promise.promiser);
  return promise.body("printfile") ? printFile(promise, env) : "kept";
}

export const reportsPromiseType: PromiseType = {
  name: "reports",
  waitsForResolution: true,
  oncePerRun: true,
  evaluate: evaluateReport,
};
