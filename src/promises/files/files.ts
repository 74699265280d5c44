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
import { type Outcome, combineOutcomes, isNotKept } from "../../agent/outcome.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "../contract.js";
import { asBoolean, asText } from "../values.js";
import { createObject } from "./create.js";
import { verifyContent } from "./content.js";
import { verifyDelete } from "./delete.js";
import { hasEdits, scheduleEditOperation, templateMethod } from "../edit/session.js";
import { templateData } from "../edit/template-mustache.js";
import { promiseRef } from "../promise-ref.js";
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
  return lstatSync(path, { throwIfNoEntry: false });
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * rename, delete, touch, then perms: what cf-agent checks on each existing
 * object. `known` is the object's lstat when the caller has just taken it.
 */
function verifyLeaf(step: FileStep, attrs: FileAttributes, known?: Stats): void {
  let stats = known ?? lstatOrUndefined(step.path);
  if (!stats) return;
  if (attrs.rename) verifyRename(step, stats);
  if (attrs.delete) verifyDelete(step, stats);
  if (attrs.touch) touchFile(step);
  if (!attrs.perms) return;
  if (attrs.rename || attrs.delete || attrs.touch) stats = lstatOrUndefined(step.path);
  if (stats) verifyPerms(step, stats, attrs.mode);
}

/** Steps 1 and 2: returns whether the object exists, or undefined to stop. */
function ensureExistence(
  step: FileStep,
  attrs: FileAttributes,
  stats: Stats | undefined,
): boolean | undefined {
  if (!stats) {
    if (!attrs.create && !attrs.touch) return false;
    return createObject(step, attrs.mode, attrs.moveObstructions) ? true : undefined;
  }
  if (attrs.create || attrs.touch) step.kept(`File '${step.path}' exists as promised`);
  return true;
}

/**
 * A missing file promised with `content` (and no rename, delete or touch)
 * is created with its content in one atomic write: a crash never leaves
 * it empty, and it costs one file instead of two. The messages are those
 * of creating it and then writing it.
 */
function createWithContent(step: FileStep, attrs: FileAttributes, content: string): void {
  if (!createObject(step, attrs.mode, attrs.moveObstructions, content)) return;
  if (attrs.perms) verifyLeaf(step, attrs);
  if (content !== "") step.changed(`Updated file '${step.path}' with content '${content}'`);
}

function canCreateWithContent(
  attrs: FileAttributes,
  path: string,
): attrs is FileAttributes & { content: string } {
  return (
    attrs.content !== undefined &&
    !attrs.createFalse &&
    !attrs.touch &&
    !attrs.rename &&
    !attrs.delete &&
    !path.endsWith("/.")
  );
}

function verifyContentOf(
  step: FileStep,
  attrs: FileAttributes,
  content: string,
  stats: Stats | undefined,
): void {
  // Without rename or delete the object is as lstat found it (a symlink may dangle).
  const unmoved = stats && !attrs.rename && !attrs.delete;
  let present = unmoved ? !stats.isSymbolicLink() || existsSync(step.path) : existsSync(step.path);
  if (!present && !attrs.createFalse) present = createObject(step, attrs.mode, attrs.moveObstructions);
  if (present) verifyContent(step, content);
  else step.unchanged(`Cannot render file '${step.path}' with content: file does not exist`);
}

function verifyPath(step: FileStep, attrs: FileAttributes): void {
  const stats = lstatOrUndefined(step.path);
  if (!stats && canCreateWithContent(attrs, step.path)) {
    createWithContent(step, attrs, attrs.content);
    return;
  }
  const exists = ensureExistence(step, attrs, stats);
  if (exists === undefined) return;
  const namesDirectory = step.path.endsWith("/.");
  if (exists && (attrs.rename || attrs.perms || attrs.delete)) verifyLeaf(step, attrs, stats);
  if (attrs.content !== undefined) {
    verifyContentOf(step, attrs, attrs.content, stats);
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
  // cf-agent edits `/path/.` as `/path` (it cuts the promiser's last node).
  const target = step.path.endsWith("/.")
    ? new FileStep(step.promise, step.env, step.path.slice(0, -2))
    : step;
  const create = () => createObject(target, attrs.mode, attrs.moveObstructions);
  scheduleEditOperation({ step: target, exists, create });
  if (target !== step) step.update(target.outcome);
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

/** Edits cf-agent's sanity checks refuse (the promise then does nothing). */
function refusedEdit(promise: ActivePromise, attrs: FileAttributes): string | undefined {
  if (promise.raw("edit_line") !== undefined && promise.raw("edit_xml") !== undefined)
    return `Promise constraint conflicts - '${promise.promiser}' editing file as both line and xml makes no sense`;
  if (attrs.edits && promise.body("depth_search"))
    return "Recursive depth_searches are not compatible with general file editing";
  if (attrs.edits && asText(promise.value("file_type")) === "fifo") return "Editing is not allowed on fifos";
  return undefined;
}

/** The promiser as cf-agent shows it at the end: `/path/.` cut to `/path`. */
function shownPromiser(promise: ActivePromise): string {
  return promise.promiser.endsWith("/.") ? promise.promiser.slice(0, -2) : promise.promiser;
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
  const refused = refusedEdit(promise, attrs);
  if (refused) {
    env.log.error(refused);
    promiseRef(env, "error", promise);
    return "kept";
  }
  // Checked before anything is created, as cf-agent does.
  if (promise.raw("template_data") !== undefined && !templateData(promise)) {
    env.log.error(`No template data for the promise '${promise.promiser}'`);
    env.log.error(`Errors encountered when actuating files promise '${shownPromiser(promise)}'`);
    return "failed";
  }
  let outcome: Outcome = "kept";
  for (const path of pathsOf(promise)) {
    const step = new FileStep(promise, env, path);
    verifyPath(step, attrs);
    outcome = combineOutcomes(outcome, step.outcome);
  }
  if (isNotKept(outcome) && outcome !== "warn")
    env.log.error(`Errors encountered when actuating files promise '${shownPromiser(promise)}'`);
  if (outcome === "warn")
    env.log.warning(`Warnings encountered when actuating files promise '${shownPromiser(promise)}'`);
  return outcome;
}

export const filesPromiseType: PromiseType = {
  name: "files",
  waitsForResolution: true,
  oncePerRun: true,
  evaluate: evaluateFiles,
};
