/**
 * The end of an edit operation (cf-agent's FinishEditContext): when edits
 * were made and the lines differ from the file, the file is saved (with
 * its backup); with `action_policy => "warn"` each difference is reported
 * instead. Nothing is saved after a failure of the operation.
 */
import { statSync } from "node:fs";
import { type Outcome, combineOutcomes } from "../outcome.js";
import type { EditSession, PromiseEnvironment } from "../contract.js";
import { asText } from "../values.js";
import { makingChanges } from "./common.js";
import { checkedLines } from "./load.js";
import { repositoryOf, saveEditedFile } from "./save.js";
import type { EditDefaults, EditRequest } from "./session.js";
import { linesToBytes } from "./text-file.js";

/** Reports the differences between the file's lines and the edited ones, as cf-agent words them. */
function warnDifferences(env: PromiseEnvironment, before: readonly string[], after: readonly string[]): void {
  const length = Math.max(before.length, after.length);
  for (let i = 0; i < length; i++) {
    const old = before[i];
    const next = after[i];
    if (old !== undefined && next !== undefined) {
      if (old !== next) env.log.warning(`edit_line warning promised: - ${old}`);
    } else if (before.length === 0 || after.length === 0) {
      env.log.warning("File content wants to change from from/to full/empty but only a warning promised");
    } else {
      if (old !== undefined) env.log.warning(` ! edit_line change warning promised: (remove) ${old}`);
      if (next !== undefined) env.log.warning(` ! edit_line change warning promised: (add) ${next}`);
    }
  }
}

/** Whether the file holds exactly these lines (as cf-agent compares them: line by line). */
function sameAsFile(
  env: PromiseEnvironment,
  path: string,
  lines: readonly string[],
  defaults: EditDefaults,
  warn: boolean,
): boolean {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return false;
  }
  if (lines.length === 0) return size === 0;
  const current = checkedLines(env, path, defaults, false);
  if (!current) return false;
  const same = current.length === lines.length && current.every((line, i) => line === lines[i]);
  if (!same && warn) warnDifferences(env, current, lines);
  return same;
}

/** Saves the session's lines if needed; returns the operation's outcome. */
export function finishEdit(
  request: EditRequest,
  session: EditSession,
  defaults: EditDefaults,
  outcome: Outcome,
): Outcome {
  const { promise, env, path } = request.step;
  if (outcome !== "kept" && outcome !== "repaired") return outcome;
  if (session.edits === 0) {
    request.step.kept(`No edit changes to file '${path}' need saving`);
    return outcome;
  }
  const lines = session.lines.texts();
  const warn = asText(promise.bodyValue("action", "action_policy")) === "warn";
  let result: Outcome = outcome;
  const same = sameAsFile(env, path, lines, defaults, warn);
  if (!same && warn) result = combineOutcomes(result, "warn");
  if (!same && !makingChanges(promise, env, `edit file '${path}'`, (o) => (result = o))) return result;
  if (same) {
    request.step.kept(`No edit changes to file '${path}' need saving`);
    return result;
  }
  const saved = saveEditedFile(env, path, linesToBytes(lines), {
    backup: defaults.backup,
    rotate: defaults.rotate,
    repository: repositoryOf(promise, env),
  });
  if (!saved) {
    env.log.error(`Unable to save file '${path}' after editing`);
    return combineOutcomes(result, "failed");
  }
  env.log.info(`Edited file '${path}'`);
  return combineOutcomes(result, "repaired");
}
