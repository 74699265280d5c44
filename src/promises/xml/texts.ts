/**
 * set_text, insert_text and delete_text on the selected element. They look
 * at and change the element's first child only when it is a text node;
 * otherwise the element's children are replaced by the text followed by
 * copies of its child elements from the first one on (what came before
 * that element, comments included, is lost, as with cf-agent).
 */
import { hasTextContaining, hasTextExactly } from "./compare.js";
import type { XmlEdit } from "./edit.js";
import type { XmlDom } from "./library.js";
import {
  addChildList,
  addElementContent,
  copyNodeList,
  firstElementChild,
  isTextNode,
  setElementContent,
  setTextData,
} from "./tree.js";

function where(edit: XmlEdit, the: boolean): string {
  return `at XPath '${edit.selectXpath}' in ${the ? "the " : ""}XML document '${edit.file}'`;
}

/** The children replaced by `text` (as `xmlNodeSetContent` reads it), then the elements again. */
function replaceKeepingElements(node: XmlDom.Element, text: string, addAfter?: string): void {
  const elements = copyNodeList(firstElementChild(node));
  setElementContent(node, text);
  if (addAfter !== undefined) addElementContent(node, addAfter);
  addChildList(node, elements);
}

export function deleteTextInNode(edit: XmlEdit, node: XmlDom.Element): boolean {
  const text = edit.promise.promiser;
  if (!hasTextContaining(text, node)) {
    edit.unchanged(`Text '${text}' does not exist ${where(edit, true)}`);
    return false;
  }
  if (!edit.makingChanges(`delete text '${text}' ${where(edit, true)}`)) return false;
  const first = node.firstChild;
  if (isTextNode(first)) setTextData(first, "");
  else replaceKeepingElements(node, "");
  if (hasTextContaining(text, node)) {
    edit.fail(`Failed to delete text '${text}' ${where(edit, true)}`);
    return false;
  }
  edit.changed(`Deleted text '${text}' ${where(edit, true)}`);
  edit.update("repaired");
  return true;
}

export function setTextInNode(edit: XmlEdit, node: XmlDom.Element): boolean {
  const text = edit.promise.promiser;
  if (hasTextExactly(text, node)) {
    edit.unchanged(`Text '${text}' already exists ${where(edit, false)}`);
    return false;
  }
  // cf-agent counts a change that only warned as an edit all the same.
  if (!edit.makingChanges(`set text '${text}' ${where(edit, false)}`)) return true;
  const first = node.firstChild;
  if (isTextNode(first)) setTextData(first, text);
  else replaceKeepingElements(node, text);
  if (!hasTextExactly(text, node)) {
    edit.fail(`Failed to set text '${text}' ${where(edit, false)}`);
    return false;
  }
  edit.changed(`Set text '${text}' ${where(edit, false)}`);
  edit.update("repaired");
  return true;
}

export function insertTextInNode(edit: XmlEdit, node: XmlDom.Element): boolean {
  const text = edit.promise.promiser;
  if (hasTextContaining(text, node)) {
    edit.unchanged(`Text '${text}' already exists ${where(edit, true)}`);
    return false;
  }
  if (!edit.makingChanges(`insert text '${text}' ${where(edit, true)}`)) return false;
  const first = node.firstChild;
  if (isTextNode(first)) first.appendData(text);
  else replaceKeepingElements(node, "", text);
  if (!hasTextContaining(text, node)) {
    edit.fail(`Failed to insert text '${text}' ${where(edit, true)}`);
    return false;
  }
  edit.changed(`Inserted text '${text}' ${where(edit, true)}`);
  edit.update("repaired");
  return true;
}
