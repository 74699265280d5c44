/**
 * `files` promises, in the order cf-agent 3.21 acts on them for each path
 * the promiser stands for (its VerifyFilePromise):
 *
 * 1. a missing object is created (`create`, `touch`); a path not chosen
 *    by `file_select` is left alone;
 * 2. an existing object (or, with `depth_search`, what is inside it) gets
 *    its leaf checks: transformer or rename/delete/touch, then perms,
 *    changes and ACL (see leaf.ts);
 * 3. `copy_from`, then `link_from`;
 * 4. `content` replaces the whole text, or the file is edited;
 * 5. a regular file gets its leaf checks once more (so a file created,
 *    copied or edited in this run gets its permissions).
 *
 * Each step logs in cf-agent's words and records its outcome (and the
 * classes body's classes) as it goes. With `action_policy => "warn"` or a
 * dry run nothing changes: each change is reported as a warning.
 */
import { type Stats, statSync } from "node:fs";
import { type Outcome, combineOutcomes } from "../outcome.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "../contract.js";
import { scheduleEditOperation, templateMethod } from "../edit/session.js";
import { captureGroups } from "../../eval/regex/match.js";
import { PcreError } from "../../eval/regex/pcre.js";
import { scalar } from "../../eval/values.js";
import { templateData } from "../edit/template-mustache.js";
import { promiseRef } from "../promise-ref.js";
import { asText } from "../values.js";
import { defaultCopyType } from "./agent-settings.js";
import { type FilesAttributes, readFilesAttributes } from "./attributes.js";
import { saveChanges } from "./changes.js";
import { verifyContent } from "./content.js";
import { scheduleCopy } from "./copy-from.js";
import { createObject } from "./create.js";
import { depthSearch } from "./depth-search.js";
import { readFileSelect, selectLeaf } from "./file-select.js";
import type { FilesJob } from "./job.js";
import { verifyFileLeaf } from "./leaf.js";
import { scheduleLink, scheduleLinkChildren } from "./link-from.js";
import { chopLastNode, lastNode } from "./paths.js";
import { expandPathPattern, isPathPattern } from "./pathtype.js";
import { promisedMode, readPermsSpec, warnDefaultRxdirs } from "./perms.js";
import { mayEnter, SEVERED } from "./safe-path.js";
import { actingEnvironment, chrootAttributes, chrooted, recordInChroot } from "./simulate.js";
import type { ChangesChroot } from "../simulate/changes-chroot.js";
import { errorText, FileStep } from "./step.js";
import { lstatOrUndefined, statOrUndefined } from "../../providers/files/inspect.js";

/** cf-agent's CfCreateFile: a directory with a depth search, a FIFO with `file_type`. */
function create(job: FilesJob, step: FileStep): boolean {
  const { attrs } = job;
  const kind = attrs.haveDepthSearch ? "directory" : attrs.fileType === "fifo" ? "fifo" : "auto";
  return createObject(step, job.perms.masks, attrs.moveObstructions, kind);
}

interface Existence {
  /** Whether the object existed (as cf-agent's `exists` after step 1). */
  readonly exists: boolean;
  /** Whether lstat found it (a dangling link counts). */
  readonly link: boolean;
  /** Whether step 1 created it (earlier stats are stale). */
  readonly created: boolean;
}

/** Step 1: what lstat found (`known`), creating a missing object; undefined to stop. */
function ensureExistence(job: FilesJob, step: FileStep, known: Stats | undefined): Existence | undefined {
  const { attrs } = job;
  if (!known) {
    const wanted = attrs.create || attrs.touch;
    if (wanted && !create(job, step)) return undefined;
    return { exists: false, link: false, created: wanted };
  }
  if (attrs.create || attrs.touch) step.kept(`File '${step.path}' exists as promised`);
  return { exists: true, link: true, created: false };
}

/**
 * A missing file promised with `content` (and nothing that must see it
 * empty first) is created with its content in one atomic write: a crash
 * never leaves it empty, and it costs one file instead of two. The
 * messages are cf-agent's for creating it and then writing it.
 */
function canCreateWithContent(job: FilesJob, path: string): boolean {
  const a = job.attrs;
  return (
    a.content !== undefined &&
    !a.createFalse &&
    !a.touch &&
    !a.haveRename &&
    !a.haveDelete &&
    !a.haveEdit &&
    !a.haveCopy &&
    !a.haveLink &&
    !a.haveDepthSearch &&
    a.fileType !== "fifo" &&
    lastNode(path) !== "."
  );
}

function createWithContent(job: FilesJob, step: FileStep, promiserPath: string): Outcome {
  const content = job.attrs.content ?? "";
  // As in cf-agent, the directory is checked before the file is made (when create is not promised).
  if (!job.attrs.create) checkParentDirectory(job, promiserPath, false);
  if (!createObject(step, job.perms.masks, job.attrs.moveObstructions, "auto", content))
    return finish(job, step);
  // With create => "true" cf-agent checks the new (empty) file before writing it.
  if (job.attrs.create && hasLeafChecks(job.attrs)) searchOrVerify(job, step, promiserPath);
  if (content !== "") step.changed(`Updated file '${step.path}' with content '${content}'`);
  return finish(job, step);
}

function hasLeafChecks(a: FilesAttributes): boolean {
  return a.haveRename || a.havePerms || a.haveChange || a.transformer !== undefined || a.haveAcl;
}

/** The promise's steps for one path; returns "skipped" when file_select leaves it alone. */
function verifyFilePromise(job: FilesJob, promiserPath: string): Outcome {
  const { attrs } = job;
  let step = new FileStep(job.promise, job.env, promiserPath);
  const first = lstatOrUndefined(promiserPath);
  if (!first && canCreateWithContent(job, promiserPath)) return createWithContent(job, step, promiserPath);
  const found = ensureExistence(job, step, first);
  if (!found) return finish(job, step);
  let { exists } = found;
  if (attrs.haveDelete && !exists) {
    step.kept(`File '${step.path}' does not exist as promised`);
    return finish(job, step);
  }
  if (!attrs.haveDepthSearch) {
    if (lastNode(promiserPath) === ".") {
      // The object is the directory itself from here on; what was done so far (creating it) counts.
      const outcome = step.outcome;
      step = step.at(chopLastNode(promiserPath));
      step.update(outcome);
    }
    // cf-agent works from the object's directory; one that is missing is an error it logs.
    checkParentDirectory(job, step.path, first !== undefined);
  }
  const path = step.path;
  // Stats taken so far still hold unless the path changed or step 1 made the object.
  const fresh = path === promiserPath && !found.created;
  const lstats = fresh ? first : lstatOrUndefined(path);
  if (lstats && job.select && !selectLeaf(job.env, job.select, path, lstats)) {
    if (!(attrs.haveDepthSearch && lstats.isDirectory())) return "skipped";
  }
  let stats = lstats && !lstats.isSymbolicLink() ? lstats : statOrUndefined(path);
  let created = found.created;
  if (!stats) {
    if ((attrs.create || attrs.touch) && !create(job, step)) return finish(job, step);
    exists = attrs.create || attrs.touch;
    created ||= exists;
  } else {
    if (!stats.isDirectory() && attrs.haveDepthSearch) {
      job.env.log.debug(
        `depth_search (recursion) is promised for a base object '${path}' that is not a directory`,
      );
      return finish(job, step);
    }
    exists = true;
  }
  if (!checkLinkChildrenSource(job)) return finish(job, step);
  if ((exists && hasLeafChecks(attrs)) || ((exists || found.link) && attrs.haveDelete)) {
    searchOrVerify(job, step, promiserPath, created ? undefined : lstats);
  }
  if (attrs.haveCopy) scheduleCopy(job, step);
  if (attrs.haveLink && attrs.link.linkChildren)
    scheduleLinkChildren(job, step, path, attrs.link.source ?? "", 1);
  else if (attrs.haveLink) scheduleLink(job, step, path, attrs.link.source ?? "");
  if (!verifyText(job, step, exists)) return finish(job, step);
  // Nothing changed (the outcome is still kept): the object is as stat found it.
  if (created || step.outcome !== "kept") stats = statOrUndefined(path);
  if (stats?.isFile() && (!job.select || selectLeaf(job.env, job.select, path, stats))) {
    verifyFileLeaf(job, step, stats, promiserPath);
  }
  if (!stats && attrs.haveChange)
    step.failed(`Promised to monitor '${path}' for changes, but file does not exist`);
  return finish(job, step);
}

/**
 * cf-agent changes into the object's directory (without a depth search)
 * and logs when it cannot: a missing directory, or a link on the way it
 * refuses to follow (see safe-path.ts).
 */
function checkParentDirectory(job: FilesJob, path: string, exists: boolean): void {
  const parent = chopLastNode(path);
  if (!mayEnter(job.env, parent)) {
    job.env.log.error(
      `Failed to chdir into '${parent}'. (chdir: '${SEVERED}'). There may be a symlink in the path that has a different owner from the owner of its target (security risk).`,
    );
    return;
  }
  // An object that exists has its directory.
  if (exists) {
    job.env.ctx.workingDirectory = parent;
    return;
  }
  try {
    if (statSync(parent).isDirectory()) {
      job.env.ctx.workingDirectory = parent;
      return;
    }
    job.env.log.error(`Failed to chdir into '${parent}'. (chdir: 'Not a directory')`);
  } catch (error) {
    job.env.log.error(`Failed to chdir into '${parent}'. (chdir: '${errorText(error)}')`);
  }
}

/** `link_children` needs a source that is a directory. */
function checkLinkChildrenSource(job: FilesJob): boolean {
  const source = job.attrs.link.source;
  if (!job.attrs.link.linkChildren || source === undefined) return true;
  const stats = statOrUndefined(source);
  if (!stats || stats.isDirectory()) return true;
  job.env.log.error(`Cannot promise to link the children of '${source}' as it is not a directory!`);
  return false;
}

/** Step 2: the object itself, or with a depth search what is inside it (`known`: its lstat, if current). */
function searchOrVerify(job: FilesJob, step: FileStep, promiserPath: string, known?: Stats): void {
  const stats = known ?? lstatOrUndefined(step.path);
  if (!stats) return;
  depthSearch(job, step, stats, 0, stats.dev, job.attrs, promiserPath);
  if (job.attrs.recursion.includeBasedir) {
    const single: FilesAttributes = { ...job.attrs, haveDepthSearch: false };
    depthSearch(job, step, stats, 0, stats.dev, single, promiserPath);
  } else if (step.outcome === "kept") {
    step.unchanged(`Basedir '${step.path}' not promising anything`);
  }
}

/** Step 4: `content`, or the edit; returns false to stop (nothing more to check). */
function verifyText(job: FilesJob, step: FileStep, exists: boolean): boolean {
  const { attrs, promise } = job;
  if (attrs.content !== undefined) {
    if (attrs.haveEdit) {
      step.failed("A file promise with content attribute cannot have edit operations");
      return false;
    }
    let present = exists;
    if (!present && !attrs.createFalse) present = createObject(step, job.perms.masks, attrs.moveObstructions);
    if (!present) {
      step.unchanged(
        `Cannot render file '${step.path}' with content '${attrs.content}': file does not exist`,
      );
      return false;
    }
    step.unchanged(`Replacing '${step.path}' with content '${attrs.content}'`);
    verifyContent(step, attrs.content);
    return false;
  }
  if (attrs.haveEdit) {
    const renders = ["mustache", "inline_mustache", "cfengine"].includes(templateMethod(promise));
    if (!exists && !(renders && !attrs.createFalse)) {
      step.unchanged(`Cannot render file '${step.path}': file does not exist`);
      return false;
    }
    const create = () => createObject(step, job.perms.masks, attrs.moveObstructions);
    scheduleEditOperation({ step, exists, create });
  }
  return true;
}

/**
 * The promiser as cf-agent names it at the end: a literal `/path/.` is
 * cut to `/path` (cf-agent cuts the promiser itself).
 */
function shownPromiser(promiser: string): string {
  return lastNode(promiser) === "." ? chopLastNode(promiser) : promiser;
}

/** The final message and outcome of one path, as cf-agent ends VerifyFilePromise. */
function finish(job: FilesJob, step: FileStep): Outcome {
  const { env, promise } = job;
  const shown = job.pattern ? promise.promiser : shownPromiser(promise.promiser);
  saveChanges(step);
  step.concluded();
  recordInChroot(env, step.path, step.outcome, job.attrs.haveRename);
  if (job.noAction)
    env.log.warning(`No action was requested for file '${step.path}'. Maybe a typo in the policy?`);
  switch (step.outcome) {
    case "kept":
      env.log.verbose(`No changes done for the files promise '${shown}'`);
      break;
    case "repaired":
      env.log.verbose(`files promise '${shown}' repaired`);
      break;
    case "warn":
      env.log.warning(`Warnings encountered when actuating files promise '${shown}'`);
      break;
    default:
      env.log.error(`Errors encountered when actuating files promise '${shown}'`);
  }
  return step.outcome;
}

function hasNoAction(a: FilesAttributes): boolean {
  return !(
    a.transformer !== undefined ||
    a.haveRename ||
    a.haveDelete ||
    a.haveCopy ||
    a.create ||
    a.touch ||
    a.haveLink ||
    a.havePerms ||
    a.haveChange ||
    a.haveAcl ||
    a.haveEdit ||
    a.content !== undefined
  );
}

/** The sanity checks cf-agent makes before acting; the first problem found, if any. */
function conflict(a: FilesAttributes, path: string, promise: ActivePromise): string | undefined {
  if (a.haveLink && a.haveCopy)
    return `Promise constraint conflicts - '${path}' file cannot both be a copy of and a link to the source`;
  if (a.haveLink && a.link.source === undefined)
    return `Promise to establish a link at '${path}' has no source`;
  if (a.haveEditLine && a.haveEditXml)
    return `Promise constraint conflicts - '${path}' editing file as both line and xml makes no sense`;
  if (a.haveDepthSearch && a.haveEdit)
    return "Recursive depth_searches are not compatible with general file editing";
  if (a.haveDelete && (a.create || a.haveCopy || a.haveEdit || a.haveRename))
    return `Promise constraint conflicts - '${path}' cannot be deleted and exist at the same time`;
  if (a.haveRename && (a.create || a.haveCopy || a.haveEdit))
    return `Promise constraint conflicts - '${path}' cannot be renamed/moved and exist there at the same time`;
  if (a.haveDelete && a.haveDepthSearch && !a.haveSelect)
    return `Dangerous or ambiguous promise - '${path}' specifies recursive deletion but has no file selection criteria`;
  if (a.haveSelect && asText(promise.bodyValue("file_select", "file_result")) === undefined)
    return "File select constraint body promised no result (check body definition)";
  if ((a.haveCopy || a.haveLink) && a.transformer !== undefined)
    return `File object(s) '${promise.promiser}' cannot both be a copy of source and transformed simultaneously`;
  if (a.haveDepthSearch && a.change.reportDiffs)
    return "Difference reporting is not allowed during a depth_search";
  if (a.haveEdit && a.fileType === "fifo") return "Editing is not allowed on fifos";
  return undefined;
}

/** Whether the promiser is a pattern standing for the paths that match it. */
function isPattern(promise: ActivePromise, attrs: FilesAttributes): boolean {
  return !attrs.haveCopy && isPathPattern(promise.promiser, asText(promise.value("pathtype")));
}

/** The paths a promiser stands for: itself, or every match of a pattern. */
function pathsOf(promise: ActivePromise, attrs: FilesAttributes): string[] {
  if (!isPattern(promise, attrs)) return [promise.promiser];
  return expandPathPattern(promise.promiser, attrs.create);
}

/** `$(match.0)`, `$(match.1)`...: the groups of the promiser matched against a path. */
function setMatchScope(env: PromiseEnvironment, pattern: string, path: string): void {
  const groups = captureGroups(`^(?:${pattern})$`, path);
  if (!groups || groups instanceof PcreError) return;
  for (const [name, value] of groups) {
    env.ctx.setVariable({ ns: null, scope: "match", name, indices: [] }, scalar(value));
  }
}

function evaluateFiles(promise: ActivePromise, runEnv: PromiseEnvironment): Outcome {
  // Under --simulate the promise acts, on copies in the changes chroot.
  const chroot = runEnv.changesChroot;
  const env = chroot ? actingEnvironment(runEnv) : runEnv;
  const masks = promisedMode(promise, env);
  if (masks === null) return "failed";
  warnDefaultRxdirs(promise, env);
  const read = readFilesAttributes(promise, defaultCopyType(env));
  const attrs = chroot ? chrootAttributes(read, chroot) : read;
  const problem = conflict(attrs, promise.promiser, promise);
  if (problem) {
    // cf-agent refuses the promise, which then does nothing.
    env.log.error(problem);
    promiseRef(env, "error", promise);
    return "kept";
  }
  // Checked before anything is created, as cf-agent does.
  if (promise.raw("template_data") !== undefined && !templateData(promise)) {
    env.log.error(`No template data for the promise '${promise.promiser}'`);
    env.log.error(`Errors encountered when actuating files promise '${shownPromiser(promise.promiser)}'`);
    return "failed";
  }
  const job: FilesJob = {
    promise,
    env,
    attrs,
    perms: readPermsSpec(promise, env, masks),
    select: readFileSelect(promise, env),
    repository: chrootRepository(asText(promise.value("repository")), chroot),
    pattern: isPattern(promise, attrs),
    noAction: hasNoAction(attrs),
  };
  let outcome: Outcome = "skipped";
  for (const path of pathsOf(promise, attrs)) {
    if (job.pattern) setMatchScope(env, promise.promiser, path);
    outcome = combineOutcomes(outcome, verifyFilePromise(job, chroot ? chrooted(chroot, path) : path));
  }
  // As 3.21 (FindFilePromiserObjects): unless the promiser is literal, the
  // classes are set once more for the promiser as written (a pattern's own).
  const literal = attrs.haveCopy || asText(promise.value("pathtype")) === "literal";
  if (!literal && outcome !== "skipped" && promise.body("classes"))
    new FileStep(promise, env, promise.promiser).concluded(outcome);
  return outcome;
}

function chrootRepository(repository: string | undefined, chroot: ChangesChroot | undefined) {
  return chroot && repository !== undefined ? chrooted(chroot, repository) : repository;
}

export const filesPromiseType: PromiseType = {
  name: "files",
  waitsForResolution: true,
  oncePerRun: true,
  evaluate: evaluateFiles,
};
