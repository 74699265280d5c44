/**
 * How edit_xml decides whether a tree is already in a document, as
 * cf-agent 3.21 decides it with libxml2: an exact match (same name,
 * attributes, first child's text, and every child element matched
 * exactly), or a subset match (the tree's attributes and child elements
 * all present, its first child's text contained in the node's).
 */
import type { XmlDom } from "./library.js";
import {
  attributeValue,
  attributesOf,
  childElementCount,
  contentOf,
  firstElementChild,
  hasProp,
  nameOf,
  nextElementSibling,
} from "./tree.js";

type Node = XmlDom.Node;

function hasAttributes(node: Node): boolean {
  return node.nodeType === 1 && attributesOf(node as XmlDom.Element).length > 0;
}

function attributesList(node: Node): XmlDom.Attr[] {
  return node.nodeType === 1 ? attributesOf(node as XmlDom.Element) : [];
}

/** The attribute `name` of `node` when its value is `value`. */
export function attributeWithValue(name: string, value: string, node: Node): XmlDom.Attr | null {
  if (!hasAttributes(node)) return null;
  const attr = hasProp(node as XmlDom.Element, name);
  if (!attr) return null;
  return attributeValue(attr) === value ? attr : null;
}

function sameTags(a: Node, b: Node): boolean {
  return nameOf(a) === nameOf(b);
}

function sameAttributes(a: Node, b: Node): boolean {
  if (!hasAttributes(a) && !hasAttributes(b)) return true;
  if (!hasAttributes(a) || !hasAttributes(b)) return false;
  const own = attributesList(a);
  if (own.length !== attributesList(b).length) return false;
  return own.every((attr) => attributeWithValue(nameOf(attr) ?? "", attributeValue(attr), b) !== null);
}

function sameText(a: Node, b: Node): boolean {
  return contentOf(a.firstChild) === contentOf(b.firstChild);
}

function sameChildren(a: Node, b: Node): boolean {
  if (childElementCount(a) !== childElementCount(b)) return false;
  return everyChildMatchedExactly(a, b);
}

function everyChildMatchedExactly(a: Node, b: Node): boolean {
  for (let child = firstElementChild(a); child; child = nextElementSibling(child)) {
    if (!hasExactChild(child, b)) return false;
  }
  return true;
}

/** `a` and `b` have the same tag, attributes, first text and child elements. */
export function nodesEqual(a: Node, b: Node): boolean {
  return sameTags(a, b) && sameAttributes(a, b) && sameText(a, b) && sameChildren(a, b);
}

function subsetOfAttributes(a: Node, b: Node): boolean {
  if (!hasAttributes(a) && !hasAttributes(b)) return true;
  if (!hasAttributes(b)) return false;
  return attributesList(a).every(
    (attr) => attributeWithValue(nameOf(attr) ?? "", attributeValue(attr), b) !== null,
  );
}

function substringOfText(a: Node, b: Node): boolean {
  const text = contentOf(a.firstChild);
  if (text === null) return true;
  const other = contentOf(b.firstChild);
  return other?.includes(text) === true;
}

/** Everything of `a` is in `b`: its tag, its attributes, its text, its child elements exactly. */
export function nodeSubset(a: Node, b: Node): boolean {
  return (
    sameTags(a, b) && subsetOfAttributes(a, b) && substringOfText(a, b) && everyChildMatchedExactly(a, b)
  );
}

/** Whether some child element of `parent` equals `node` exactly. */
export function hasExactChild(node: Node, parent: Node): boolean {
  for (let child = firstElementChild(parent); child; child = nextElementSibling(child)) {
    if (nodesEqual(node, child)) return true;
  }
  return false;
}

/** The first child element of `parent` holding all of `node`, or null. */
export function findSubsetChild(node: Node, parent: Node): XmlDom.Element | null {
  for (let child = firstElementChild(parent); child; child = nextElementSibling(child)) {
    if (nodeSubset(node, child)) return child;
  }
  return null;
}

/** Whether the first child's content of `node` is exactly `text`. */
export function hasTextExactly(text: string, node: Node): boolean {
  return contentOf(node.firstChild) === text;
}

/** Whether the first child's content of `node` contains `text`. */
export function hasTextContaining(text: string, node: Node): boolean {
  const content = contentOf(node.firstChild);
  return content?.includes(text) === true;
}
