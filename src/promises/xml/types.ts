/**
 * The promise types of edit_xml bundles, in cf-agent 3.21's order of
 * checks and with its messages: the promise's own sanity, the optional
 * `build_xpath`, the document, the node `select_xpath` picks, then the
 * operation once per run (later passes repeat the checks, and their
 * failures, but not the operation), then the closing line.
 */
import type { Outcome } from "../outcome.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "../contract.js";
import { deleteAttributeInNode, setAttributeInNode } from "./attributes.js";
import { verifyXPathBuild } from "./build.js";
import { XmlEdit } from "./edit.js";
import type { XmlDom } from "./library.js";
import { xmlSessionOf } from "./session-state.js";
import { deleteTextInNode, insertTextInNode, setTextInNode } from "./texts.js";
import { deleteTreeInNode, insertTreeInFile, insertTreeInNode } from "./trees.js";
import { isConvergent } from "./xpath-syntax.js";

function startEdit(promise: ActivePromise, env: PromiseEnvironment): XmlEdit | undefined {
  const session = xmlSessionOf(env);
  return session ? new XmlEdit(promise, env, session) : undefined;
}

function evaluateBuild(promise: ActivePromise, env: PromiseEnvironment): Outcome {
  const edit = startEdit(promise, env);
  if (!edit) return "skipped";
  verifyXPathBuild(edit);
  return edit.close("build_xpath");
}

/** What sets the promise types that act on a selected node apart. */
interface NodeOperation {
  readonly type: string;
  readonly lock: string;
  /** Logged when select_xpath is missing. */
  readonly needsSelect: string;
  readonly inconsistent: (edit: XmlEdit) => string;
  readonly buildFailed: (edit: XmlEdit) => string | undefined;
  readonly noDocument: (edit: XmlEdit) => string;
  readonly notSelected: (edit: XmlEdit) => string;
  readonly notSelectedOutcome?: Outcome;
  readonly act: (edit: XmlEdit, doc: XmlDom.Document, node: XmlDom.Element) => boolean;
}

/** A later pass: the operation was done; nothing is reported (no classes either). */
function alreadyDone(edit: XmlEdit): Outcome {
  return edit.result === "kept" ? "skipped" : edit.result;
}

const noDocument = (edit: XmlEdit) => `Unable to load XML document '${edit.file}'`;

function evaluateOnNode(op: NodeOperation, promise: ActivePromise, env: PromiseEnvironment): Outcome {
  const edit = startEdit(promise, env);
  if (!edit) return "skipped";
  const select = edit.selectXpath;
  if (select === undefined || !isConvergent(select)) {
    if (select === undefined) env.log.error(op.needsSelect);
    edit.fail(op.inconsistent(edit));
    return edit.result;
  }
  if (edit.buildXpath !== undefined && !verifyXPathBuild(edit)) {
    const message = op.buildFailed(edit);
    if (message !== undefined) edit.fail(message);
    return edit.result;
  }
  const doc = edit.doc;
  if (!doc) {
    edit.fail(op.noDocument(edit));
    return edit.result;
  }
  const node = edit.select(select);
  if (!node) {
    edit.fail(op.notSelected(edit), op.notSelectedOutcome);
    return edit.result;
  }
  if (!edit.acquire(`${op.lock}-${promise.promiser}-${edit.file}`)) return alreadyDone(edit);
  if (op.act(edit, doc, node)) edit.session.edits++;
  return edit.close(op.type);
}

const TEXT_NEEDS_SELECT = "Tree insertion requires select_xpath to be specified";

const NODE_OPERATIONS: readonly NodeOperation[] = [
  {
    type: "delete_tree",
    lock: "deletetree",
    needsSelect: "Tree deletion requires select_xpath to be specified",
    inconsistent: (e) => `The promised tree deletion '${e.promise.promiser}' is inconsistent`,
    buildFailed: () => undefined,
    noDocument: () => "Unable to load XML document",
    notSelected: (e) =>
      `The promised XPath pattern '${e.selectXpath}', was NOT successful when selecting an edit node, in XML document '${e.file})`,
    notSelectedOutcome: "interrupted",
    act: deleteTreeInNode,
  },
  {
    type: "delete_attribute",
    lock: "deleteattribute",
    needsSelect: "Attribute deletion requires select_xpath to be specified",
    inconsistent: (e) => `The promised attribute deletion '${e.promise.promiser}', is inconsistent`,
    buildFailed: (e) => `Failed to build XPath for attribute deletion '${e.promise.promiser}'`,
    noDocument,
    notSelected: (e) =>
      `The promised XPath pattern '${e.selectXpath}', was NOT successful when selecting an edit node, in XML document '${e.file}'`,
    act: (e, _d, node) => deleteAttributeInNode(e, node),
  },
  {
    type: "set_attribute",
    lock: "setattribute",
    needsSelect: "Attribute insertion requires select_xpath to be specified",
    inconsistent: (e) => `The promised attribute set '${e.promise.promiser}', breaks its own promises`,
    buildFailed: (e) => `Failed to build XPath for setting attribute '${e.promise.promiser}'`,
    noDocument,
    notSelected: (e) =>
      `No node to edit selected by XPath '${e.selectXpath}' in the XML document '${e.file}'`,
    act: (e, _d, node) => setAttributeInNode(e, node),
  },
  {
    type: "delete_text",
    lock: "deletetext",
    needsSelect: TEXT_NEEDS_SELECT,
    inconsistent: (e) => `The promised text deletion '${e.promise.promiser}' is inconsistent`,
    buildFailed: (e) => `Failed to build XPath for text deletion in '${e.file}'`,
    noDocument,
    notSelected: (e) => `No node selected by XPath '${e.selectXpath}' in XML document '${e.file}'`,
    act: (e, _d, node) => deleteTextInNode(e, node),
  },
  {
    type: "set_text",
    lock: "settext",
    needsSelect: TEXT_NEEDS_SELECT,
    inconsistent: (e) => `The promised text set '${e.promise.promiser}' breaks its own promises`,
    buildFailed: (e) => `Failed to build XPath for changing text in '${e.promise.promiser}'`,
    noDocument,
    notSelected: (e) => `No node selected by XPath '${e.selectXpath}' in the XML document '${e.file}'`,
    act: (e, _d, node) => setTextInNode(e, node),
  },
  {
    type: "insert_text",
    lock: "inserttext",
    needsSelect: TEXT_NEEDS_SELECT,
    inconsistent: (e) => `The promised text insertion '${e.promise.promiser}' breaks its own promises`,
    buildFailed: (e) => `Failed to build XPath for text insertion into '${e.file}'`,
    noDocument,
    notSelected: (e) => `No node selected by XPath '${e.selectXpath}' in XML document '${e.file}'`,
    act: (e, _d, node) => insertTextInNode(e, node),
  },
];

/** insert_tree's sanity: select_xpath and build_xpath must make sense together. */
function insertionProblem(edit: XmlEdit): string | undefined {
  const hasRoot = Boolean(edit.doc?.documentElement);
  if (edit.selectXpath !== undefined && edit.buildXpath === undefined && !hasRoot)
    return "Tree insertion into an empty file, using select_xpath, does not make sense";
  if (edit.selectXpath === undefined && edit.buildXpath !== undefined)
    return "Tree insertion requires select_xpath to be specified, unless inserting into an empty file";
  return undefined;
}

function evaluateInsertTree(promise: ActivePromise, env: PromiseEnvironment): Outcome {
  const edit = startEdit(promise, env);
  if (!edit) return "skipped";
  const select = edit.selectXpath;
  const problem = insertionProblem(edit);
  if (problem !== undefined || (select !== undefined && !isConvergent(select))) {
    if (problem !== undefined) env.log.error(problem);
    edit.fail(`The promised tree insertion '${promise.promiser}' breaks its own promises`);
    return edit.result;
  }
  if (edit.buildXpath !== undefined && !verifyXPathBuild(edit)) {
    edit.fail(`Failed to build XPath for tree insertion '${promise.promiser}'`);
    return edit.result;
  }
  const doc = edit.doc;
  if (!doc) {
    edit.fail(`Unable to load XML document '${edit.file}'`);
    return edit.result;
  }
  const node = select === undefined ? null : edit.select(select);
  if (select !== undefined && !node) {
    edit.fail(`Failed to select edit node in the XML document '${edit.file}' using the XPath '${select}'`);
    return edit.result;
  }
  if (!edit.acquire(`inserttree-${promise.promiser}-${edit.file}`)) return alreadyDone(edit);
  const inserted = node ? insertTreeInNode(edit, doc, node) : insertTreeInFile(edit, doc);
  if (inserted) edit.session.edits++;
  return edit.close("insert_tree");
}

/** Every promise type of edit_xml bundles but vars, classes and reports. */
export const xmlPromiseTypes: readonly PromiseType[] = [
  { name: "build_xpath", evaluate: evaluateBuild },
  { name: "insert_tree", evaluate: evaluateInsertTree },
  ...NODE_OPERATIONS.map(
    (op): PromiseType => ({ name: op.type, evaluate: (promise, env) => evaluateOnNode(op, promise, env) }),
  ),
];
