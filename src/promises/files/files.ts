/**
 * `files` promises, in the order cf-agent 3.21 acts on them:
 *
 * 1. a missing object is created (`create`, `touch`);
 * 2. an existing object gets its leaf checks (`rename`, `delete`,
 *    `touch`, `perms`);
 * 3. `content` replaces the file's whole text (creating it unless
 *    `create => "false"`), or `edit_line` edits it;
 * 4. a regular file gets its leaf checks once more (so a file created or
 *    edited in this run gets its permissions).
 *
 * Each step logs in cf-agent's words and the outcome combines them all.
 * With `action_policy => "warn"` or a dry run nothing changes: each change
 * is reported as a warning and the promise is not kept.
 */
import { type Stats, existsSync, lstatSync, statSync } from "node:fs";
import { type Outcome, combineOutcomes } from "../../agent/outcome.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "../contract.js";
import { asBoolean, asText } from "../values.js";
import { createObject } from "./create.js";
import { verifyContent } from "./content.js";
import { verifyDelete } from "./delete.js";
import { hasEdits, scheduleEditOperation, templateMethod } from "../edit/session.js";
import type { ModeMasks } from "./modes.js";
import { expandPathPattern, isPathPattern } from "./pathtype.js";
import { promisedMode, verifyPerms, warnDefaultRxdirs } from "./perms.js";
import { verifyRename } from "./rename.js";
import { FileStep } from "./step.js";
import { touchFile } from "./touch.js";

/** The attributes a files promise acts on, read once per promise. */
interface FileAttributes {
  readonly create: boolean;
  readonly createFalse: boolean;
  readonly touch: boolean;
  readonly delete: boolean;
  readonly rename: boolean;
  readonly perms: boolean;
  readonly mode: ModeMasks | undefined;
  readonly content: string | undefined;
  /** edit_line, edit_xml or a template (cf-agent's `haveedit`). */
  readonly edits: boolean;
  readonly moveObstructions: boolean;
}

function readAttributes(promise: ActivePromise, mode: ModeMasks | undefined): FileAttributes {
  return {
    create: asBoolean(promise.value("create"), false),
    createFalse: asText(promise.value("create")) !== undefined && !asBoolean(promise.value("create"), false),
    touch: asBoolean(promise.value("touch"), false),
    delete: promise.body("delete") !== undefined,
    rename: promise.body("rename") !== undefined,
    perms: promise.body("perms") !== undefined,
    mode,
    content: asText(promise.value("content")),
    edits: hasEdits(promise),
    moveObstructions: asBoolean(promise.value("move_obstructions"), false),
  };
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** rename, delete, touch, then perms: what cf-agent checks on each existing object. */
function verifyLeaf(step: FileStep, attrs: FileAttributes): void {
  let stats = lstatOrUndefined(step.path);
  if (!stats) return;
  if (attrs.rename) verifyRename(step, stats);
  if (attrs.delete) verifyDelete(step, stats);
  if (attrs.touch) touchFile(step);
  if (!attrs.perms) return;
  stats = lstatOrUndefined(step.path);
  if (stats) verifyPerms(step, stats, attrs.mode);
}

/** Steps 1 and 2: returns whether the object exists, or undefined to stop. */
function ensureExistence(step: FileStep, attrs: FileAttributes): boolean | undefined {
  if (!lstatOrUndefined(step.path)) {
    if (!attrs.create && !attrs.touch) return false;
    return createObject(step, attrs.mode, attrs.moveObstructions) ? true : undefined;
  }
  if (attrs.create || attrs.touch) step.unchanged(`File '${step.path}' exists as promised`);
  return true;
}

function verifyPath(step: FileStep, attrs: FileAttributes): void {
  let exists = ensureExistence(step, attrs);
  if (exists === undefined) return;
  const namesDirectory = step.path.endsWith("/.");
  if (exists && (attrs.rename || attrs.perms || attrs.delete)) verifyLeaf(step, attrs);
  if (attrs.content !== undefined) {
    if (!existsSync(step.path) && !attrs.createFalse)
      exists = createObject(step, attrs.mode, attrs.moveObstructions);
    if (existsSync(step.path)) verifyContent(step, attrs.content);
    else step.unchanged(`Cannot render file '${step.path}' with content: file does not exist`);
    return;
  }
  if (attrs.edits && !editFile(step, attrs)) return;
  // Once more: a file created above gets its permissions and timestamps.
  const final = statOrUndefined(step.path);
  if (final?.isFile() && !namesDirectory) verifyLeaf(step, attrs);
}

/** Step 3b: edit_line, edit_xml, templates. False when the file cannot be rendered (nothing more to do). */
function editFile(step: FileStep, attrs: FileAttributes): boolean {
  const exists = existsSync(step.path);
  const renders = ["mustache", "inline_mustache", "cfengine"].includes(templateMethod(step.promise));
  if (!exists && !(renders && !attrs.createFalse)) {
    step.unchanged(`Cannot render file '${step.path}': file does not exist`);
    return false;
  }
  const create = () => createObject(step, attrs.mode, attrs.moveObstructions);
  scheduleEditOperation({ step, exists, create });
  return true;
}

/** The paths a promiser stands for: itself, or every match of a pattern. */
function pathsOf(promise: ActivePromise): string[] {
  const pathtype = asText(promise.value("pathtype"));
  if (!isPathPattern(promise.promiser, pathtype)) return [promise.promiser];
  return expandPathPattern(promise.promiser).filter((p) => lstatOrUndefined(p) !== undefined);
}

function conflicts(attrs: FileAttributes, promise: ActivePromise): string | undefined {
  if (promise.raw("edit_line") !== undefined && promise.raw("edit_xml") !== undefined)
    return `Promise constraint conflicts - '${promise.promiser}' editing file as both line and xml makes no sense`;
  if (attrs.delete && (attrs.create || attrs.rename))
    return "Promise constraint conflicts - delete cannot be combined with create or rename";
  if (attrs.rename && attrs.create)
    return "Promise constraint conflicts - rename cannot be combined with create";
  if (attrs.content !== undefined && attrs.edits)
    return "A file promise with content attribute cannot have edit operations";
  return undefined;
}

function evaluateFiles(promise: ActivePromise, env: PromiseEnvironment): Outcome {
  const mode = promisedMode(promise, env);
  if (mode === null) return "failed";
  warnDefaultRxdirs(promise, env);
  const attrs = readAttributes(promise, mode);
  const conflict = conflicts(attrs, promise);
  if (conflict) {
    env.log.error(conflict);
    return "failed";
  }
  // Checked before anything is created, as cf-agent does.
  if (promise.raw("template_data") !== undefined && promise.value("template_data")?.type !== "data") {
    env.log.error(`No template data for the promise '${promise.promiser}'`);
    return "failed";
  }
  let outcome: Outcome = "kept";
  for (const path of pathsOf(promise)) {
    const step = new FileStep(promise, env, path);
    verifyPath(step, attrs);
    outcome = combineOutcomes(outcome, step.outcome);
  }
  if (outcome === "failed")
    env.log.error(`Errors encountered when actuating files promise '${promise.promiser}'`);
  if (outcome === "warn")
    env.log.warning(`Warnings encountered when actuating files promise '${promise.promiser}'`);
  return outcome;
}

export const filesPromiseType: PromiseType = {
  name: "files",
  waitsForResolution: true,
  oncePerRun: true,
  evaluate: evaluateFiles,
};
