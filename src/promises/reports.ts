/**
 * `reports` promises: print `R: text` once per run for each distinct
 * text, append it to `report_to_file`, show `printfile`, or hand the text
 * back to a calling `methods` promise (`bundle_return_value_index`).
 * A report still holding unresolved references waits for the last pass,
 * and is then printed as it stands, as 3.21 does.
 */
import { appendFileSync, readFileSync } from "node:fs";
import { parseCfInt } from "../eval/numbers.js";
import type { Outcome } from "./outcome.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "./contract.js";
import { asText } from "./values.js";
import { errorText } from "./files/step.js";

/** 3.21 prints five lines unless `number_of_lines` says otherwise. */
const DEFAULT_PRINTED_LINES = 5;

/**
 * `printfile`: the first `number_of_lines` lines of a file as reports, or
 * with a negative number the last ones.
 */
function printFile(promise: ActivePromise, env: PromiseEnvironment): Outcome {
  const file = asText(promise.bodyValue("printfile", "file_to_print"));
  if (!file) {
    env.log.verbose("Printfile promise was incomplete, with no filename.");
    return "failed";
  }
  const count = parseCfInt(asText(promise.bodyValue("printfile", "number_of_lines")) ?? "");
  const wanted = count ?? DEFAULT_PRINTED_LINES;
  let lines: string[];
  try {
    lines = readFileSync(file, "utf8").split("\n");
  } catch (error) {
    env.log.error(`Printing of file '${file}' was not possible. (fopen: ${errorText(error)})`);
    return "failed";
  }
  if (lines[lines.length - 1] === "") lines.pop();
  const shown = wanted < 0 ? lines.slice(Math.max(0, lines.length + wanted)) : lines.slice(0, wanted);
  for (const line of shown) env.report(line);
  return "kept";
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
      appendFileSync(toFile, `${promise.promiser}\n`, { mode: 0o600 });
    } catch (error) {
      // 3.21 logs the failure but still counts the report as kept.
      env.log.error(
        `Could not open log file '${toFile}', message '${promise.promiser}'. (fopen: ${errorText(error)})`,
      );
    }
  } else env.report(promise.promiser);
  return promise.body("printfile") ? printFile(promise, env) : "kept";
}

export const reportsPromiseType: PromiseType = {
  name: "reports",
  waitsForResolution: true,
  // A report handing a value back to its caller does so in every pass (before 3.21's lock).
  oncePerRun: (promise) => promise.raw("bundle_return_value_index") === undefined,
  evaluate: evaluateReport,
};
