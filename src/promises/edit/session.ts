/**
 * The edit operation of a files promise, as cf-agent 3.21's
 * ScheduleEditOperation runs it: the file is loaded into lines (for
 * edit_line), the edit_line bundle runs on them, then a template renders
 * (`template_method`: cfengine, mustache, inline_mustache), and finally
 * the lines are saved if edits were made and they differ from the file.
 * Info messages of the whole operation are printed only if it changed the
 * file (cf-agent buffers them).
 */
import { type Outcome, combineOutcomes } from "../outcome.js";
import { expandRval } from "../../eval/expand.js";
import { parseCfInt } from "../../eval/numbers.js";
import { scalar } from "../../eval/values.js";
import { type BundleCall, bundleCallOf } from "../bundle-call.js";
import type { ActivePromise, EditSession, PromiseEnvironment } from "../contract.js";
import type { FileStep } from "../files/step.js";
import { asBoolean, asText, isUnresolved } from "../values.js";
import { loadForEditing } from "./load.js";
import { LineList } from "./lines.js";
import { finishEdit } from "./finish.js";
import { renderCfengineTemplate } from "./template-cfengine.js";
import { renderMustacheTemplate } from "./template-mustache.js";
import { editXml } from "../xml/session.js";

/** `edit_defaults`, as read for one promise. */
export interface EditDefaults {
  readonly maxSize: number;
  readonly backup: "true" | "false" | "timestamp" | "rotate";
  readonly rotate: number;
  readonly emptyBefore: boolean;
  readonly join: boolean;
  readonly inherit: boolean;
}

/** cf-agent's default `max_file_size` (agent control `editfilesize`). */
const EDIT_FILE_SIZE = 100000;

function intOf(text: string | undefined): number | undefined {
  return text === undefined ? undefined : parseCfInt(text);
}

export function readEditDefaults(promise: ActivePromise, env: PromiseEnvironment): EditDefaults {
  const value = (name: string) => promise.bodyValue("edit_defaults", name);
  const backupText = asText(value("edit_backup"));
  const backup =
    backupText === "false" || backupText === "timestamp" || backupText === "rotate" ? backupText : "true";
  const template = hasTemplate(promise);
  const fallbackSize = intOf(asText(env.controlValue?.("agent", "editfilesize"))) ?? EDIT_FILE_SIZE;
  return {
    maxSize: intOf(asText(value("max_file_size"))) ?? fallbackSize,
    backup,
    rotate: backup === "rotate" ? (intOf(asText(value("rotate"))) ?? 0) : 0,
    // A template renders the whole file, in a bundle that sees the caller's classes.
    emptyBefore: template || asBoolean(value("empty_file_before_editing"), false),
    join: asBoolean(value("recognize_join"), false),
    inherit: template || asBoolean(value("inherit"), false),
  };
}

function hasTemplate(promise: ActivePromise): boolean {
  return promise.raw("edit_template") !== undefined || promise.raw("edit_template_string") !== undefined;
}

/** The method templates render with (`cfengine` unless told). */
export function templateMethod(promise: ActivePromise): string {
  return asText(promise.value("template_method")) ?? "cfengine";
}

/** Whether the files promise edits the file at all (cf-agent's `haveedit`). */
export function hasEdits(promise: ActivePromise): boolean {
  return (
    promise.raw("edit_line") !== undefined || promise.raw("edit_xml") !== undefined || hasTemplate(promise)
  );
}

/** What the edit operation needs from its files promise. */
export interface EditRequest {
  readonly step: FileStep;
  /** Whether the file existed before the operation. */
  readonly exists: boolean;
  /** Creates the file (as `create => "true"` would); whether it exists afterwards. */
  readonly create: () => boolean;
}

/** Runs the edit_line bundle on the session's lines. */
function runEditLine(
  request: EditRequest,
  call: BundleCall,
  session: EditSession,
  defaults: EditDefaults,
): void {
  const { env } = request.step;
  env.log.verbose(`Handling file edits in edit_line bundle '${call.name}'`);
  const bundle = env.findBundle(call.name, ["edit_line"]);
  if (!bundle) {
    env.log.error(`Did not find bundle '${call.name}' for edit operation`);
    return;
  }
  setEditVariables(env, defaults);
  env.runBundle(bundle, call.args, defaults.inherit, session);
}

/** `$(edit.empty_before_use)` (the engine sets `$(edit.filename)`). */
export function setEditVariables(env: PromiseEnvironment, defaults: EditDefaults): void {
  env.ctx.setVariable(
    { ns: null, scope: "edit", name: "empty_before_use", indices: [] },
    scalar(defaults.emptyBefore ? "true" : "false"),
  );
}

/**
 * An attribute expanded with `$(this.promiser)` the path being edited (as
 * cf-agent re-expands `edit_template` for each file a pattern matches).
 */
function expandForPath(step: FileStep, name: string): string | undefined {
  const raw = step.promise.raw(name);
  if (!raw || step.path === step.promise.promiser) return asText(step.promise.value(name));
  const ref = { ns: null, scope: "this", name: "promiser", indices: [] };
  const saved = step.env.ctx.getVariable(ref);
  step.env.ctx.setVariable(ref, scalar(step.path));
  try {
    return asText(expandRval(step.env.ctx, raw, step.promise.options));
  } finally {
    if (saved) step.env.ctx.setVariable(ref, saved);
  }
}

/** The template step: what the method renders, if anything. */
function renderTemplate(
  request: EditRequest,
  session: EditSession,
  defaults: EditDefaults,
  call?: BundleCall,
) {
  const { promise, env, path } = request.step;
  const method = templateMethod(promise);
  const template = expandForPath(request.step, "edit_template");
  if (method === "cfengine" && template !== undefined) {
    env.log.verbose(`Rendering '${path}' using template '${template}' with method '${method}'`);
    return renderCfengineTemplate(request, session, defaults, template, call?.args ?? []);
  }
  if (method === "mustache" && template !== undefined) {
    env.log.verbose(`Rendering '${path}' using template '${template}' with method '${method}'`);
    return renderMustacheTemplate(request, defaults, { file: template });
  }
  if (method === "inline_mustache" && promise.raw("edit_template_string") !== undefined) {
    env.log.verbose(`Rendering '${path}' with method '${method}'`);
    return renderMustacheTemplate(request, defaults, {
      text: expandForPath(request.step, "edit_template_string"),
    });
  }
  return "kept" satisfies Outcome;
}

/**
 * The edit operation of a files promise on `request.step.path`; its
 * outcome goes into the step's.
 */
export function scheduleEditOperation(request: EditRequest): void {
  const { step } = request;
  const { promise, env, path } = step;
  const defaults = readEditDefaults(promise, env);
  if (promise.raw("edit_xml") !== undefined) {
    editXml(request, defaults);
    return;
  }
  const editLine = promise.raw("edit_line") !== undefined;
  const lines = editLine ? loadForEditing(env, path, defaults) : new LineList();
  if (!lines) {
    step.failed(`File '${path}' was marked for editing but could not be opened`);
    return;
  }
  if (defaults.emptyBefore) env.log.verbose("Build file model from a blank slate");
  env.log.holdInfo();
  let outcome: Outcome = "kept";
  const session: EditSession = { filename: path, lines, edits: 0 };
  const call = editLine ? bundleCallOf(promise, env, "edit_line") : undefined;
  if (call && !isUnresolved(call.name)) runEditLine(request, call, session, defaults);
  outcome = combineOutcomes(outcome, renderTemplate(request, session, defaults, call));
  outcome = finishEdit(request, session, defaults, outcome);
  env.log.releaseInfo(outcome === "repaired");
  step.update(outcome);
}
