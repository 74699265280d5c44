/**
 * `edit_line => bundle(args)` on a files promise: the file is read into
 * lines (a final line without a newline is still a line), the edit_line
 * bundle runs on them, and if its promises changed them and the result
 * differs from the file, the file is rewritten atomically, every line
 * followed by a newline. `edit_defaults` may start from an empty file,
 * choose the backup (`<file>.cf-before-edit` by default, none, or one
 * with a time stamp) and limit the size of the files edited.
 */
import { type Stats, linkSync, readFileSync, statSync, unlinkSync, copyFileSync } from "node:fs";
import { expandRval } from "../../eval/expand.js";
import { canonify } from "../../eval/class-expression.js";
import type { Value } from "../../eval/values.js";
import { writeFileAtomically } from "../files/atomic.js";
import { errorText, type FileStep } from "../files/step.js";
import type { EditSession } from "../contract.js";
import { holdMessages } from "./common.js";
import { type BundleCall, bundleCallOf } from "../bundle-call.js";
import { asBoolean, asText, isUnresolved } from "../values.js";

/** cf-agent's default `max_file_size` for editing. */
const DEFAULT_MAX_SIZE = 100000;
const STARTED = new Date();

function editBundleCall(step: FileStep): BundleCall | undefined {
  return bundleCallOf(step.promise, step.env, "edit_line");
}

/** The file's lines as cf-agent reads them: split at newlines, no empty last line. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

export function joinLines(lines: readonly string[]): string {
  return lines.map((l) => `${l}\n`).join("");
}

function backupName(path: string, option: string): string | undefined {
  if (option === "false" || option === "no" || option === "off") return undefined;
  if (option === "timestamp") {
    const stamp = canonify(`${STARTED.toString().slice(0, 24)}\n`);
    return `${path}_${Math.floor(STARTED.getTime() / 1000)}_${stamp}.cf-before-edit`;
  }
  return `${path}.cf-before-edit`;
}

function makeBackup(path: string, backup: string): void {
  try {
    unlinkSync(backup);
  } catch {
    // None yet.
  }
  try {
    linkSync(path, backup);
  } catch {
    copyFileSync(path, backup);
  }
}

/** Runs the edit_line bundle on the file at `step.path`. */
export function verifyEditLine(step: FileStep): void {
  const { promise, env, path } = step;
  const call = editBundleCall(step);
  if (!call || isUnresolved(call.name)) return;
  const bundle = env.findBundle(call.name, ["edit_line"]);
  if (!bundle) {
    step.failed(`Could not find the edit_line bundle '${call.name}' for file '${path}'`);
    return;
  }
  const maxSize = Number(asText(promise.bodyValue("edit_defaults", "max_file_size")) ?? DEFAULT_MAX_SIZE);
  let stats: Stats;
  let text: string;
  try {
    stats = statSync(path);
    if (!stats.isFile()) throw Object.assign(new Error("not a plain file"), { code: "EISDIR" });
    if (maxSize > 0 && stats.size > maxSize) {
      env.log.info(
        `File '${path}' is bigger than the edit limit. max_file_size = ${stats.size} > ${maxSize} bytes`,
      );
      throw new Error("too big");
    }
    text = readFileSync(path, "utf8");
  } catch {
    step.failed(`File '${path}' was marked for editing but could not be opened`);
    return;
  }
  const empty = asBoolean(promise.bodyValue("edit_defaults", "empty_file_before_editing"), false);
  const session: EditSession = { filename: path, lines: empty ? [] : splitLines(text), changed: false };
  const messages = holdMessages(session);
  env.runBundle(bundle, call.args, false, session);
  const result = joinLines(session.lines);
  if (!session.changed || result === text) {
    env.log.verbose(`No edit changes to file '${path}' need saving`);
    return;
  }
  if (!step.makingChanges(`edit file '${path}'`)) return;
  const backup = backupName(path, asText(promise.bodyValue("edit_defaults", "edit_backup")) ?? "true");
  try {
    if (backup) makeBackup(path, backup);
    writeFileAtomically(path, result, stats.mode & 0o7777, stats);
  } catch (error) {
    step.failed(`Unable to save file '${path}' after editing (${errorText(error)})`);
    return;
  }
  for (const message of messages) env.log.info(message);
  step.changed(`Edited file '${path}'`);
}
