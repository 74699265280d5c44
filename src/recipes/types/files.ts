/**
 * file, template, directory and link, over the files provider
 * (src/providers/files): the same operations Puppet's `file` uses, worded
 * as chef-client words them (`create new file /x`, `update content in
 * file /x from 2c26b4 to fcde2b`, `change mode from '0644' to '0600'`).
 */
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import type { Change } from "../../providers/change.js";
import {
  ensureContent,
  ensureDirectory,
  ensureSymlink,
  type FileResult,
  type FileState,
  inspectPath,
  removePath,
  setMode,
  setOwner,
  touchPath,
  createHardLink,
} from "../../providers/files/index.js";
import { renderTemplate, TemplateError } from "../template.js";
import {
  type ActionOutcome,
  type ActionTarget,
  failed,
  type RecipeActionContext,
  type RecipeResourceType,
  textProp,
  UNCHANGED,
} from "./type.js";

/** `"0644"`, `"644"`, 0o644 → the bits; undefined when not given; NaN when unreadable. */
export function modeOf(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number") return value;
  if (typeof value === "string" && /^[0-7]{3,4}$/.test(value)) return Number.parseInt(value, 8);
  return Number.NaN;
}

function checkMode(props: Readonly<Record<string, unknown>>): string[] {
  if (typeof props.mode === "object") return [];
  const mode = modeOf(props.mode);
  return mode !== undefined && Number.isNaN(mode)
    ? [`mode must be octal digits ("0644") or a number, not ${JSON.stringify(props.mode)}`]
    : [];
}

function shortSum(data: Uint8Array | string): string {
  return createHash("sha256").update(data).digest("hex").slice(0, 6);
}

interface Ownership {
  readonly uid?: number;
  readonly gid?: number;
  readonly error?: string;
}

function ownershipOf(props: Readonly<Record<string, unknown>>, context: RecipeActionContext): Ownership {
  const owner = textProp(props.owner);
  const group = textProp(props.group);
  const uid = owner === undefined ? undefined : context.accounts.userId(owner);
  const gid = group === undefined ? undefined : context.accounts.groupId(group);
  if (owner !== undefined && uid === undefined) return { error: `user '${owner}' does not exist` };
  if (group !== undefined && gid === undefined) return { error: `group '${group}' does not exist` };
  return { uid, gid };
}

/**
 * Mode and owner lines after the object exists (or, in why-run, would).
 * An object just made has its mode already (the provider made it so):
 * its mode line is the caller's.
 */
function attributes(
  path: string,
  props: Readonly<Record<string, unknown>>,
  context: RecipeActionContext,
  created: boolean,
  known?: FileState,
): { lines: string[]; failed?: string } {
  const lines: string[] = [];
  const noop = context.whyRun;
  const mode = modeOf(props.mode);
  const owners = ownershipOf(props, context);
  // What is there is read only when something is left to compare (one lstat fewer per new file).
  const needed = (mode !== undefined && !created) || owners.uid !== undefined || owners.gid !== undefined;
  const found = !needed || (created && noop) ? undefined : (known ?? inspectPath(path));
  if (mode !== undefined && !created) {
    const current = found && found.kind !== "absent" && found.kind !== "link" ? found.mode : undefined;
    const result = setMode(path, mode, { noop, current });
    if (result.status === "failed") return { lines, failed: result.error };
    const change = result.changes[0];
    if (change) lines.push(`change mode from '${change.old}' to '${change.new}'`);
  }
  if (owners.error) return { lines, failed: owners.error };
  if (owners.uid === undefined && owners.gid === undefined) return { lines };
  if (found === undefined) {
    if (owners.uid !== undefined) lines.push(`change owner from '' to '${textProp(props.owner)}'`);
    if (owners.gid !== undefined) lines.push(`change group from '' to '${textProp(props.group)}'`);
    return { lines };
  }
  const current = found.kind === "absent" ? undefined : { uid: found.uid, gid: found.gid };
  const result = setOwner(path, owners, { current, noop });
  if (result.status === "failed") return { lines, failed: result.error };
  for (const c of result.changes) lines.push(ownerLine(c, props, context));
  return { lines };
}

function modeText(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, "0");
}

function ownerLine(
  c: Change,
  props: Readonly<Record<string, unknown>>,
  context: RecipeActionContext,
): string {
  const isOwner = c.property === "owner";
  const was = Number(c.old);
  const name = isOwner ? context.accounts.userName(was) : context.accounts.groupName(was);
  const wanted = textProp(isOwner ? props.owner : props.group);
  return `change ${c.property} from '${name ?? c.old}' to '${wanted}'`;
}

function outcome(lines: string[], result?: { failed?: string }): ActionOutcome {
  return result?.failed ? failed(result.failed, lines) : { updated: lines.length > 0, lines };
}

/** Writes `data` as the file's content (create, create_if_missing), then mode and owner. */
function writeFile(
  path: string,
  data: string | Uint8Array,
  props: Readonly<Record<string, unknown>>,
  context: RecipeActionContext,
  onlyIfMissing: boolean,
): ActionOutcome {
  const noop = context.whyRun;
  const mode = modeOf(props.mode);
  const found = inspectPath(path);
  const result: FileResult = ensureContent(path, data, {
    noop,
    replace: !onlyIfMissing,
    digest: "sha256",
    found,
    ...(mode === undefined ? {} : { mode }),
  });
  if (result.status === "failed") return failed(missingParent(path) ?? result.error ?? "failed");
  const lines: string[] = [];
  const created = result.changes.some((c) => c.property === "ensure");
  const assumed =
    created && noop ? assumeParent(path, `Parent directory ${dirname(path)} does not exist.`) : [];
  if (created) {
    lines.push(`create new file ${path}`);
    lines.push(`update content in file ${path} from none to ${shortSum(data)}`);
  }
  const changed = result.changes.find((c) => c.property === "content");
  if (changed) {
    const old = (changed.old ?? "").replace(/^\{sha256\}/, "").slice(0, 6);
    lines.push(`update content in file ${path} from ${old} to ${shortSum(data)}`);
  }
  if (created && mode !== undefined) lines.push(`change mode from '' to '${modeText(mode)}'`);
  // Nothing changed: mode and owner are as just found, not looked at again.
  const attrs = attributes(path, props, context, created, result.status === "unchanged" ? found : undefined);
  lines.push(...attrs.lines);
  return withAssumptions(outcome(lines, attrs), assumed);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** chef-client's failure when the enclosing directory is missing (checked only after a failure). */
function missingParent(path: string, creating?: string): string | undefined {
  const parent = dirname(path);
  if (isDirectory(parent)) return undefined;
  return `Parent directory ${parent} does not exist${creating ? `, cannot create ${creating}` : "."}`;
}

/** Why-run: a missing enclosing directory is assumed made by an earlier resource, as chef-client does. */
function assumeParent(path: string, failure: string): string[] {
  const parent = dirname(path);
  return isDirectory(parent) ? [] : [failure, `Assuming directory ${parent} would have been created`];
}

function withAssumptions(outcome: ActionOutcome, assumptions: readonly string[]): ActionOutcome {
  return assumptions.length === 0 ? outcome : { ...outcome, assumptions };
}

function pathOf(target: ActionTarget): string {
  return textProp(target.props.path) ?? target.declaration.name;
}

function removeOutcome(
  path: string,
  kind: string,
  context: RecipeActionContext,
  recursive = false,
): ActionOutcome {
  const result = removePath(path, { noop: context.whyRun, recursive });
  if (result.status === "failed") return failed(result.error ?? "failed");
  return result.status === "changed" ? { updated: true, lines: [`delete ${kind} ${path}`] } : UNCHANGED;
}

function touch(path: string, context: RecipeActionContext): ActionOutcome {
  const result = touchPath(path, { noop: context.whyRun });
  if (result.status === "failed") return failed(result.error ?? "failed");
  return { updated: true, lines: [`update utime on file ${path}`] };
}

const FILE_ACTIONS = ["create", "create_if_missing", "delete", "touch", "nothing"] as const;

async function fileLike(
  action: string,
  path: string,
  content: () => string | Uint8Array | undefined,
  target: ActionTarget,
  context: RecipeActionContext,
): Promise<ActionOutcome> {
  if (action === "nothing") return UNCHANGED;
  if (action === "delete") return removeOutcome(path, "file", context);
  const data = content();
  if (action === "touch") {
    const made = writeFile(path, data ?? "", target.props, context, data === undefined);
    if (made.failed) return made;
    const touched = touch(path, context);
    return { updated: true, lines: [...made.lines, ...touched.lines], failed: touched.failed };
  }
  // No content: the file is created empty, an existing one keeps its content.
  return writeFile(
    path,
    data ?? "",
    target.props,
    context,
    action === "create_if_missing" || data === undefined,
  );
}

function contentOf(value: unknown): string | Uint8Array | undefined {
  if (typeof value === "string" || value instanceof Uint8Array) return value;
  return value === undefined || value === null ? undefined : String(value);
}

export const fileType: RecipeResourceType = {
  name: "file",
  actions: FILE_ACTIONS,
  defaultAction: "create",
  properties: ["path", "content", "mode", "owner", "group"],
  nameProperty: "path",
  validate: checkMode,
  run: (action, target, context) =>
    fileLike(action, pathOf(target), () => contentOf(target.props.content), target, context),
};

/** The template's text: `source` in the cookbook's templates/ (or templates/default/), or an absolute path. */
function templateText(target: ActionTarget): string {
  const source = textProp(target.props.source);
  if (source === undefined) throw new Error("template needs a source");
  if (isAbsolute(source)) return readFileSync(source, "utf8");
  const dir = target.declaration.cookbookDir;
  if (dir === undefined)
    throw new Error(`template source '${source}': the cookbook's directory is not known`);
  const candidates = [join(dir, "templates", source), join(dir, "templates", "default", source)];
  for (const candidate of candidates) {
    try {
      return readFileSync(candidate, "utf8");
    } catch {
      // the next place
    }
  }
  throw new Error(`template source '${source}' not found in ${candidates.join(" or ")}`);
}

export const templateType: RecipeResourceType = {
  name: "template",
  actions: FILE_ACTIONS,
  defaultAction: "create",
  properties: ["path", "source", "cookbook", "variables", "mode", "owner", "group"],
  nameProperty: "path",
  validate: (props) => [
    ...checkMode(props),
    ...(props.source === undefined ? ["template needs a source"] : []),
  ],
  run: async (action, target, context) => {
    const source = textProp(target.props.source) ?? "";
    const render = (): string => {
      const variables = {
        node: context.node.attributes,
        ...((target.props.variables as Record<string, unknown>) ?? {}),
      };
      try {
        return renderTemplate(templateText(target), variables);
      } catch (error) {
        if (error instanceof TemplateError) throw new Error(`${source}:${error.line}: ${error.message}`);
        throw error;
      }
    };
    return fileLike(action, pathOf(target), render, target, context);
  },
};

export const directoryType: RecipeResourceType = {
  name: "directory",
  actions: ["create", "delete", "nothing"],
  defaultAction: "create",
  properties: ["path", "mode", "owner", "group", "recursive"],
  nameProperty: "path",
  validate: checkMode,
  run: async (action, target, context) => {
    const path = pathOf(target);
    if (action === "nothing") return UNCHANGED;
    if (action === "delete")
      return removeOutcome(path, "directory", context, target.props.recursive === true);
    const mode = modeOf(target.props.mode);
    const recursive = target.props.recursive === true;
    const result = ensureDirectory(path, {
      noop: context.whyRun,
      parents: recursive,
      ...(mode === undefined ? {} : { mode }),
    });
    const parentGone = (): string | undefined => (recursive ? undefined : missingParent(path, path));
    if (result.status === "failed") return failed(parentGone() ?? result.error ?? "failed");
    const created = result.status === "changed";
    const gone = created && context.whyRun ? parentGone() : undefined;
    const assumed = gone ? assumeParent(path, gone) : [];
    const lines = created ? [`create new directory ${path}`] : [];
    if (created && mode !== undefined) lines.push(`change mode from '' to '${modeText(mode)}'`);
    const attrs = attributes(path, target.props, context, created);
    lines.push(...attrs.lines);
    return withAssumptions(outcome(lines, attrs), assumed);
  },
};

export const linkType: RecipeResourceType = {
  name: "link",
  actions: ["create", "delete", "nothing"],
  defaultAction: "create",
  properties: ["targetFile", "to", "linkType"],
  nameProperty: "targetFile",
  validate: (props) => (props.to === undefined ? ["link needs `to`"] : []),
  run: async (action, target, context) => {
    const path = textProp(target.props.targetFile) ?? target.declaration.name;
    if (action === "nothing") return UNCHANGED;
    if (action === "delete") {
      const found = inspectPath(path);
      if (found.kind !== "link" && target.props.linkType !== "hard") return UNCHANGED;
      return removeOutcome(path, "link", context);
    }
    const to = textProp(target.props.to) ?? "";
    if (target.props.linkType === "hard") return hardLink(path, to, context);
    const result = ensureSymlink(path, to, { noop: context.whyRun });
    if (result.status === "failed") return failed(result.error ?? "failed");
    return result.status === "changed"
      ? { updated: true, lines: [`create symlink at ${path} to ${to}`] }
      : UNCHANGED;
  },
};

function hardLink(path: string, to: string, context: RecipeActionContext): ActionOutcome {
  const found = inspectPath(path);
  const source = inspectPath(to);
  if (
    found.stats &&
    source.stats &&
    found.stats.ino === source.stats.ino &&
    found.stats.dev === source.stats.dev
  )
    return UNCHANGED;
  const lines = [`create hard link at ${path} to ${to}`];
  if (context.whyRun) return { updated: true, lines };
  if (found.kind !== "absent") {
    const removed = removePath(path);
    if (removed.status === "failed") return failed(removed.error ?? "failed");
  }
  try {
    createHardLink(path, to);
  } catch (error) {
    return failed(`link: ${(error as Error).message}`);
  }
  return { updated: true, lines };
}
