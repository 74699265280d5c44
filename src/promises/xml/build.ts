/**
 * build_xpath, as a promise of its own or as the `build_xpath` attribute
 * of the other edit_xml promises: make the elements (and the attributes
 * and text children their predicates name) that the path describes, into
 * an empty document as its root, or below the deepest part of the path
 * the document already has (below the root when none of it is found).
 */
import type { XmlEdit } from "./edit.js";
import type { XmlDom } from "./library.js";
import { addChild, setElementContent, setProp } from "./tree.js";
import {
  hasTail,
  headSegment,
  isBuildable,
  isConvergent,
  readSegment,
  tailSegment,
  withoutHead,
  withoutTail,
} from "./xpath-syntax.js";

/** The path the promise builds: its `build_xpath` attribute, else its promiser. */
function pathOf(edit: XmlEdit): string {
  return edit.buildXpath ?? edit.promise.promiser;
}

function sane(edit: XmlEdit, path: string): boolean {
  if (edit.promise.type === "build_xpath" && edit.buildXpath !== undefined) {
    edit.env.log.error("Attribute: build_xpath is not allowed within bundle: build_xpath");
    return false;
  }
  if (edit.selectXpath !== undefined && edit.buildXpath === undefined) {
    edit.env.log.error("XPath build does not require select_xpath to be specified");
    return false;
  }
  if (!isConvergent(path)) {
    edit.fail(`Promiser expression (${path}) is not convergent`, "interrupted");
    return false;
  }
  if (!isBuildable(path)) {
    edit.fail(
      `Promiser expression '${path}' contains syntax that is not supported for xpath_build. Please refer to users manual for supported syntax specifications.`,
      "interrupted",
    );
    return false;
  }
  return true;
}

/**
 * Builds the promise's path (`VerifyXPathBuild`). False when it could not
 * even try: the path is not buildable, the document is unreadable, or the
 * build was already done in this run.
 */
export function verifyXPathBuild(edit: XmlEdit): boolean {
  const path = pathOf(edit);
  if (!sane(edit, path)) {
    edit.fail(`The promised XPath build '${path}' breaks its own promises`);
    return false;
  }
  const doc = edit.doc;
  if (!doc) {
    edit.fail(`Unable to load XML document '${edit.file}'`);
    return false;
  }
  if (!edit.acquire(`buildxpath-${edit.promise.promiser}-${edit.file}`)) return false;
  const built = doc.documentElement ? buildInNode(edit, doc, path) : buildInFile(edit, doc, path);
  if (built) edit.session.edits++;
  return true;
}

function buildInFile(edit: XmlEdit, doc: XmlDom.Document, path: string): boolean {
  let node = headNode(edit, doc, path);
  if (!node) {
    edit.fail(
      `Unable to extract root node from XPath '${path}', to be inserted into an empty XML document '${edit.file}'`,
    );
    return false;
  }
  if (!edit.makingChanges(`build XPath '${path}' into an empty XML document '${edit.file}'`)) return false;
  doc.appendChild(node);
  let rest = withoutHead(path);
  while (rest.length > 0) {
    const child = headNode(edit, doc, rest);
    if (!child) break;
    addChild(node, child);
    node = child;
    rest = withoutHead(rest);
  }
  edit.changed(`Built XPath '${path}' into an empty XML document '${edit.file}'`);
  edit.update("repaired");
  return true;
}

function buildInNode(edit: XmlEdit, doc: XmlDom.Document, path: string): boolean {
  let rest = path;
  let found: XmlDom.Element | null = null;
  let tail: XmlDom.Element | null = null;
  while (rest.length > 0) {
    found = edit.select(rest);
    if (found) break;
    let head: XmlDom.Element | null;
    if (hasTail(rest)) {
      head = segmentNode(edit, doc, tailSegment(rest));
      rest = withoutTail(rest);
    } else {
      head = headNode(edit, doc, rest);
      rest = withoutHead(rest);
    }
    if (head && tail) addChild(head, tail);
    tail = head;
  }
  if (!edit.makingChanges(`build XPath '${path}' in XML document '${edit.file}'`)) return false;
  const parent = found ?? doc.documentElement;
  if (parent && tail) addChild(parent, tail);
  edit.changed(`Built XPath '${path}' in XML document '${edit.file}'`);
  edit.update("repaired");
  return true;
}

function headNode(edit: XmlEdit, doc: XmlDom.Document, path: string): XmlDom.Element | null {
  return segmentNode(edit, doc, headSegment(path) ?? "");
}

/** The element a segment describes; a failure when it names none. */
function segmentNode(edit: XmlEdit, doc: XmlDom.Document, segment: string): XmlDom.Element | null {
  const described = readSegment(segment);
  if (!described) {
    edit.fail(`Could not extract node '${segment}'`);
    return null;
  }
  const element = doc.createElement(described.name);
  for (const child of described.children) {
    const childElement = doc.createElement(child.name);
    setElementContent(childElement, child.text);
    addChild(element, childElement);
  }
  for (const [name, value] of described.attributes) setProp(element, name, value);
  return element;
}
