/**
 * `edit_xml => bundle(args)` on a files promise, as cf-agent 3.21's edit
 * operation runs it: the file is parsed (an empty file, or
 * `empty_file_before_editing`, gives an empty document), the edit_xml
 * bundle runs on the document, and if its promises made edits and the
 * document now differs from the file's, the file is saved — with its
 * backup, atomically (edit/save.ts). Info messages of the operation are
 * printed only if the file was saved.
 */
import { readFileSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { Outcome } from "../outcome.js";
import { bundleCallOf } from "../bundle-call.js";
import type { EditSession } from "../contract.js";
import { makingChanges } from "../edit/common.js";
import { LineList } from "../edit/lines.js";
import { saveEditedFile } from "../edit/save.js";
import { type EditDefaults, type EditRequest, setEditVariables } from "../edit/session.js";
import { errorText, type FileStep } from "../files/step.js";
import { asText, isUnresolved } from "../values.js";
import { type XmlDocument, newDocument, parseDocument } from "./parse.js";
import { encodeDocument, serializeDocument } from "./serialize.js";
import { type XmlEditSession, attachXmlSession, runLocksOf } from "./session-state.js";

type Loaded = { readonly document: XmlDocument | undefined } | undefined;

/**
 * The file as a document (`LoadFileAsXmlDoc`): undefined when it cannot be
 * edited at all; a document of undefined when it does not parse (the
 * edit goes on, and each promise fails on it, as in cf-agent).
 */
function loadDocument(step: FileStep, defaults: EditDefaults, emptyFirst: boolean): Loaded {
  const { path, env } = step;
  let size: number;
  try {
    const stats = statSync(path);
    size = stats.size;
    if (defaults.maxSize !== 0 && size > defaults.maxSize) {
      env.log.info(
        `File '${path}' is bigger than the edit limit. max_file_size = '${size}' > '${defaults.maxSize}' bytes`,
      );
      return undefined;
    }
    if (!stats.isFile()) {
      env.log.info(`'${path}' is not a plain file`);
      return undefined;
    }
  } catch (error) {
    env.log.error(`The proposed file '${path}' could not be loaded. (stat: ${errorText(error)})`);
    return undefined;
  }
  if (emptyFirst || size === 0) return { document: newDocument() };
  const parsed = parseDocument(readFileSync(path));
  if (parsed.ok) return { document: parsed.value };
  env.log.error(`XML document '${path}' could not be parsed: ${parsed.reason}`);
  return { document: undefined };
}

/** `XmlCompareToFile`: whether the file, read again, is the same document. */
function sameAsFile(step: FileStep, doc: XmlDocument | undefined, defaults: EditDefaults): boolean {
  let size: number;
  try {
    size = statSync(step.path).size;
  } catch {
    return false;
  }
  if (!doc) return size === 0;
  const loaded = loadDocument(step, defaults, false);
  if (!loaded?.document) return false;
  return serializeDocument(loaded.document) === serializeDocument(doc);
}

function fileIsEmpty(path: string): boolean {
  try {
    return statSync(path).size === 0;
  } catch {
    return false;
  }
}

/** `FinishEditContext` for XML: save when edits were made and the document changed. */
function finish(step: FileStep, xml: XmlEditSession, defaults: EditDefaults): Outcome {
  const { promise, path, env } = step;
  if (xml.edits === 0) {
    env.log.verbose(`No edit changes to file '${path}' need saving`);
    return "kept";
  }
  let result: Outcome = "kept";
  if (!fileIsEmpty(path) && !makingChanges(promise, env, `edit file '${path}'`, (o) => (result = o)))
    return result;
  if (sameAsFile(step, xml.document, defaults)) {
    env.log.verbose(`No edit changes to xml file '${path}' need saving`);
    return result;
  }
  const document = xml.document ?? newDocument();
  const bytes = encodeDocument(serializeDocument(document), document.declaration.encoding);
  const saved = saveEditedFile(env, path, bytes, {
    backup: defaults.backup,
    rotate: defaults.rotate,
    repository: asText(promise.value("repository")),
  });
  if (!saved) {
    env.log.error(`Failed to edit XML file '${path}'`);
    return "failed";
  }
  env.log.info(`Edited xml file '${path}'`);
  return "repaired";
}

/** The edit operation of a files promise with `edit_xml`; its outcome goes into the step's. */
export function editXml(request: EditRequest, defaults: EditDefaults): void {
  const { step } = request;
  const { promise, env, path } = step;
  const call = bundleCallOf(promise, env, "edit_xml");
  if (!call || isUnresolved(call.name)) return;
  if (!isAbsolute(path)) {
    env.log.error(`Relative file name '${path}' was marked for editing but has no invariant meaning`);
    step.failed(`File '${path}' was marked for editing but could not be opened`);
    return;
  }
  const loaded = loadDocument(step, defaults, defaults.emptyBefore);
  if (!loaded) {
    step.failed(`File '${path}' was marked for editing but could not be opened`);
    return;
  }
  if (defaults.emptyBefore) env.log.verbose("Build file model from a blank slate");
  env.log.holdInfo();
  const session: EditSession = { filename: path, lines: new LineList(), edits: 0 };
  const xml: XmlEditSession = { filename: path, document: loaded.document, edits: 0, locks: runLocksOf(env) };
  attachXmlSession(session, xml);
  env.log.verbose(`Handling file edits in edit_xml bundle '${call.name}'`);
  const bundle = env.findBundle(call.name, ["edit_xml"]);
  if (bundle) {
    setEditVariables(env, defaults);
    env.runBundle(bundle, call.args, defaults.inherit, session);
  }
  const outcome = finish(step, xml, defaults);
  env.log.releaseInfo(outcome === "repaired");
  step.update(outcome);
}
