/**
 * insert_tree and delete_tree: the promiser is a well-balanced chunk of
 * XML. Inserting adds it as the last child of the selected node unless a
 * child already holds all of it (or, without select_xpath, makes it the
 * root of an empty document); deleting removes the first child element
 * that holds all of it.
 */
import { findSubsetChild, nodesEqual } from "./compare.js";
import type { XmlEdit } from "./edit.js";
import type { XmlDom } from "./library.js";
import { parseChunk } from "./parse.js";
import { addChild } from "./tree.js";

/** The chunk's nodes, or undefined (and the failure `message`) when it does not parse. */
function parseTree(edit: XmlEdit, doc: XmlDom.Document, message: string): XmlDom.Node[] | undefined {
  const parsed = parseChunk(edit.promise.promiser, doc);
  if (parsed.ok) return parsed.value;
  edit.fail(message);
  return undefined;
}

/**
 * Adds the chunk's nodes as `parent`'s last children, as libxml2 adds the
 * first node of the list it parsed and the rest come along with it.
 * Returns the first, or undefined when it was merged into a text node
 * (and the rest are lost, as with libxml2).
 */
function addTree(parent: XmlDom.Node, nodes: readonly XmlDom.Node[]): XmlDom.Node | undefined {
  const [first, ...rest] = nodes;
  if (!first) return undefined;
  if (addChild(parent, first) !== first) return undefined;
  for (const node of rest) parent.appendChild(node);
  return first;
}

/**
 * Adds a node at the top of a document. libxml2 keeps text and a second
 * element there too; a DOM cannot hold them, and the document read back
 * would not keep them either, so they are dropped.
 */
function appendToDocument(doc: XmlDom.Document, node: XmlDom.Node): void {
  try {
    doc.appendChild(node);
  } catch {
    // Not allowed at the top of a DOM document: see above.
  }
}

export function insertTreeInFile(edit: XmlEdit, doc: XmlDom.Document): boolean {
  const tree = edit.promise.promiser;
  const nodes = parseTree(
    edit,
    doc,
    `Failed to parse the tree '${tree}' (to be inserted into the XML document '${edit.file}')`,
  );
  if (!nodes) return false;
  const first = nodes[0];
  if (!first || first.nodeName === "#cdata-section") {
    edit.fail(`The tree '${tree}' (to be inserted into the XML document '${edit.file}') is empty`);
    return false;
  }
  const root = doc.documentElement;
  if (root) {
    if (!nodesEqual(first, root)) {
      edit.fail(
        `The tree '${tree}' requested to be inserted into the XML document '${edit.file}', however XML document is not empty and tree to be inserted does not match existing content`,
      );
      edit.env.log.notice("Specify select_xpath expression insert into a non-empty XML document");
    } else {
      edit.unchanged(
        `The promised XML document '${edit.file}' already exists and contains the correct root element`,
      );
    }
    return false;
  }
  if (!edit.makingChanges(`insert the promised tree '${tree}' into an empty XML document '${edit.file}'`))
    return true;
  for (const node of nodes) appendToDocument(doc, node);
  const newRoot = doc.documentElement;
  if (!newRoot || !nodesEqual(first, newRoot)) {
    edit.unchanged(`${newRoot ? "Wrong" : "No"} root element in '${edit.file}'`);
    edit.fail(`Failed to insert the tree '${tree}' into an empty XML document '${edit.file}'`);
    return false;
  }
  edit.changed(`Inserted tree '${tree}' into an empty XML document '${edit.file}'`);
  edit.update("repaired");
  return true;
}

export function insertTreeInNode(edit: XmlEdit, doc: XmlDom.Document, node: XmlDom.Element): boolean {
  const tree = edit.promise.promiser;
  const at = `at XPath '${edit.selectXpath}'`;
  const nodes = parseTree(
    edit,
    doc,
    `Failed to parse the tree '${tree}' (to be inserted ${at} in the XML document '${edit.file}')`,
  );
  if (!nodes) return false;
  const first = nodes[0];
  if (!first || first.nodeName === "#cdata-section") {
    edit.fail(`The tree '${tree}' (to be inserted ${at} in XML document '${edit.file}') is empty`);
    return false;
  }
  if (findSubsetChild(first, node)) {
    edit.unchanged(`The tree '${tree}' already exists ${at} in XML document '${edit.file}'`);
    return false;
  }
  if (!edit.makingChanges(`insert tree '${tree}' ${at} in XML document '${edit.file}'`)) return false;
  const added = addTree(node, nodes);
  if (!added || !findSubsetChild(added, node)) {
    edit.unchanged(`No matching node in '${edit.file}'`);
    edit.fail(`Failed to insert tree '${tree}' ${at} into the XML document '${edit.file}'`);
    return false;
  }
  edit.changed(`Inserted tree '${tree}' ${at} in XML document '${edit.file}'`);
  edit.update("repaired");
  return true;
}

export function deleteTreeInNode(edit: XmlEdit, doc: XmlDom.Document, node: XmlDom.Element): boolean {
  const tree = edit.promise.promiser;
  const at = `at XPath '${edit.selectXpath}' in XML document '${edit.file}'`;
  const nodes = parseTree(edit, doc, `Tree to be deleted '${tree}' ${at} was not parsed successfully`);
  if (!nodes) return false;
  const first = nodes[0];
  const victim = first ? findSubsetChild(first, node) : null;
  if (!first || !victim) {
    edit.unchanged(`The promised tree to be deleted '${tree}' does not exist ${at}`);
    return false;
  }
  if (!edit.makingChanges(`delete tree '${tree}' ${at}`)) return false;
  node.removeChild(victim);
  if (findSubsetChild(first, node)) {
    edit.fail(`Failed to delete tree '${tree}' ${at}`);
    return false;
  }
  edit.changed(`Deleted tree '${tree}' ${at}`);
  edit.update("repaired");
  return true;
}
