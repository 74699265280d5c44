/**
 * The tree operations edit_xml needs, with the results libxml2's give, on
 * an xmldom DOM. cf-agent's edit_xml is written against libxml2's tree
 * (a node's name, its first child's content, text nodes merged when
 * added...), and its verdicts depend on those details, so they are
 * reproduced here rather than approximated with the DOM's own notions.
 */
import type { XmlDom } from "./library.js";

type Node = XmlDom.Node;
type Element = XmlDom.Element;
type Attr = XmlDom.Attr;
type Document = XmlDom.Document;

export const ELEMENT_NODE = 1;
export const ATTRIBUTE_NODE = 2;
export const TEXT_NODE = 3;
export const CDATA_NODE = 4;
export const ENTITY_REFERENCE_NODE = 5;
export const PI_NODE = 7;
export const COMMENT_NODE = 8;
export const DOCUMENT_NODE = 9;
export const DOCTYPE_NODE = 10;

export const XMLNS_NAMESPACE = "http://www.w3.org/2000/xmlns/";
export const XML_NAMESPACE = "http://www.w3.org/XML/1998/namespace";

/**
 * Elements and attributes whose prefix libxml2 leaves unresolved: those of
 * an inserted tree using a prefix the tree does not declare itself.
 * libxml2 then names them with the prefix (`p:name`), not by local name.
 */
const unresolvedPrefix = new WeakSet<Node>();

export function markUnresolvedPrefix(node: Node): void {
  unresolvedPrefix.add(node);
}

export function isElement(node: Node | null | undefined): node is Element {
  return node?.nodeType === ELEMENT_NODE;
}

/** Whether an attribute node is a namespace declaration (libxml2 keeps those apart). */
export function isNamespaceDeclaration(attr: Attr): boolean {
  return attr.namespaceURI === XMLNS_NAMESPACE;
}

/** The node's name as libxml2 has it (`node->name`). */
export function nameOf(node: Node): string | null {
  switch (node.nodeType) {
    case ELEMENT_NODE:
    case ATTRIBUTE_NODE:
      return node.namespaceURI && !unresolvedPrefix.has(node)
        ? (node.localName ?? node.nodeName)
        : node.nodeName;
    case TEXT_NODE:
      return "text";
    case COMMENT_NODE:
      return "comment";
    case CDATA_NODE:
      return null;
    default:
      return node.nodeName;
  }
}

/** The element's attributes, without its namespace declarations. */
export function attributesOf(element: Element): Attr[] {
  const out: Attr[] = [];
  const map = element.attributes;
  for (let i = 0; i < map.length; i++) {
    const attr = map.item(i);
    if (attr && !isNamespaceDeclaration(attr)) out.push(attr);
  }
  return out;
}

/** What `xmlNodeGetContent` returns for a node; null for none (or no node). */
export function contentOf(node: Node | null | undefined): string | null {
  if (!node) return null;
  switch (node.nodeType) {
    case ELEMENT_NODE:
      return descendantText(node);
    case ATTRIBUTE_NODE:
      return attributeValue(node as Attr);
    case TEXT_NODE:
    case CDATA_NODE:
    case COMMENT_NODE:
      return (node as XmlDom.CharacterData).data;
    case PI_NODE: {
      const data = (node as XmlDom.ProcessingInstruction).data;
      return data === "" ? null : data;
    }
    default:
      // Entity references: edit_xml documents declare no entities.
      return null;
  }
}

function descendantText(node: Node): string {
  let text = "";
  for (let child = node.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === TEXT_NODE || child.nodeType === CDATA_NODE)
      text += (child as XmlDom.CharacterData).data;
    else if (child.nodeType === ELEMENT_NODE) text += descendantText(child);
  }
  return text;
}

/** An attribute's value. */
export function attributeValue(attr: Attr): string {
  return attr.value;
}

export function firstElementChild(node: Node): Element | null {
  let child = node.firstChild;
  while (child && !isElement(child)) child = child.nextSibling;
  return child;
}

export function nextElementSibling(node: Node): Element | null {
  let next = node.nextSibling;
  while (next && !isElement(next)) next = next.nextSibling;
  return next;
}

export function childElementCount(node: Node): number {
  let count = 0;
  for (let child = firstElementChild(node); child; child = nextElementSibling(child)) count++;
  return count;
}

/** `xmlHasProp`: the first attribute of that name, whatever its namespace. */
export function hasProp(element: Element, name: string): Attr | null {
  return attributesOf(element).find((attr) => nameOf(attr) === name) ?? null;
}

function setAttrValue(attr: Attr, value: string): void {
  attr.value = value;
  attr.nodeValue = value;
}

/** The namespace URI a prefix has at `element`, as `xmlSearchNs` finds it. */
function searchNamespace(element: Element, prefix: string): string | null {
  if (prefix === "xml") return XML_NAMESPACE;
  for (let node: Node | null = element; node && isElement(node); node = node.parentNode) {
    const decl = node.getAttributeNodeNS(XMLNS_NAMESPACE, prefix);
    if (decl) return decl.value;
  }
  return null;
}

/**
 * `xmlSetProp`: a prefixed name whose prefix is in scope sets the
 * namespaced attribute; any other name sets the attribute of that name in
 * no namespace, replacing its value or adding it last.
 */
export function setProp(element: Element, name: string, value: string): void {
  const colon = name.indexOf(":");
  if (colon > 0 && colon < name.length - 1) {
    const uri = searchNamespace(element, name.slice(0, colon));
    if (uri !== null) {
      setNamespacedProp(element, uri, name, value);
      return;
    }
  }
  const existing = attributesOf(element).find(
    (attr) => (!attr.namespaceURI || unresolvedPrefix.has(attr)) && nameOf(attr) === name,
  );
  if (existing) {
    setAttrValue(existing, value);
    return;
  }
  const attr = ownerOf(element).createAttribute(name);
  setAttrValue(attr, value);
  element.setAttributeNode(attr);
}

function setNamespacedProp(element: Element, uri: string, qualified: string, value: string): void {
  const local = qualified.slice(qualified.indexOf(":") + 1);
  const existing = attributesOf(element).find(
    (attr) => attr.namespaceURI === uri && !unresolvedPrefix.has(attr) && attr.localName === local,
  );
  if (existing) {
    setAttrValue(existing, value);
    return;
  }
  const attr = ownerOf(element).createAttributeNS(uri, qualified);
  setAttrValue(attr, value);
  element.setAttributeNodeNS(attr);
}

export function removeProp(element: Element, attr: Attr): void {
  element.removeAttributeNode(attr);
}

export function ownerOf(node: Node): Document {
  return (node.nodeType === DOCUMENT_NODE ? node : node.ownerDocument) as Document;
}

/** Whether `xmlNodeIsText` holds: a text node proper (CDATA is not). */
export function isTextNode(node: Node | null | undefined): node is XmlDom.Text {
  return node?.nodeType === TEXT_NODE;
}

/** Replaces a text node's content as it is (`xmlNodeSetContent` on a text node). */
export function setTextData(node: XmlDom.CharacterData, text: string): void {
  node.replaceData(0, node.length, text);
}

export function appendTextData(node: XmlDom.CharacterData, text: string): void {
  node.appendData(text);
}

export function removeChildren(node: Node): void {
  while (node.firstChild) node.removeChild(node.firstChild);
}

/** `xmlAddChild`: a text node added after a text node is merged into it. */
export function addChild(parent: Node, child: Node): Node {
  const last = parent.lastChild;
  if (isTextNode(child) && isTextNode(last)) {
    appendTextData(last, child.data);
    return last;
  }
  parent.appendChild(child);
  return child;
}

/** `xmlAddChildList`: appends nodes, merging a leading text node into a trailing one. */
export function addChildList(parent: Node, nodes: readonly Node[]): void {
  nodes.forEach((node, i) => {
    if (i === 0) addChild(parent, node);
    else parent.appendChild(node);
  });
}

/** `xmlNodeSetContent` on an element: its children become the text, references parsed. */
export function setElementContent(element: Element, text: string): void {
  removeChildren(element);
  for (const node of textToNodes(ownerOf(element), text)) element.appendChild(node);
}

/** `xmlNodeAddContent` on an element: the text, as it is, added last (merged). */
export function addElementContent(element: Element, text: string): void {
  if (text === "") return;
  addChild(element, ownerOf(element).createTextNode(text));
}

const PREDEFINED: Readonly<Record<string, string>> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

/**
 * `xmlStringGetNodeList`: text with character references and the five
 * predefined entities replaced, other entity references as reference
 * nodes; no node at all for "". An unterminated reference ends the list
 * where it stands (the text gathered since the last node is dropped, as
 * libxml2 drops it).
 */
export function textToNodes(doc: Document, text: string): Node[] {
  const nodes: Node[] = [];
  let buffer = "";
  let i = 0;
  while (i < text.length) {
    const amp = text.indexOf("&", i);
    if (amp < 0) {
      buffer += text.slice(i);
      break;
    }
    buffer += text.slice(i, amp);
    if (text[amp + 1] === "#") {
      const [value, next] = readCharReference(text, amp);
      if (value !== 0) buffer += String.fromCodePoint(value);
      i = next;
      continue;
    }
    const semicolon = text.indexOf(";", amp + 1);
    if (semicolon < 0) return nodes;
    const name = text.slice(amp + 1, semicolon);
    i = semicolon + 1;
    if (name === "") continue;
    const predefined = PREDEFINED[name];
    if (predefined !== undefined) {
      buffer += predefined;
      continue;
    }
    if (buffer !== "") nodes.push(doc.createTextNode(buffer));
    buffer = "";
    nodes.push(doc.createEntityReference(name));
  }
  if (buffer !== "") nodes.push(doc.createTextNode(buffer));
  return nodes;
}

/** A `&#...;` reference at `at`: its code point (0 when malformed) and where the text goes on. */
function readCharReference(text: string, at: number): [number, number] {
  const hex = text[at + 2] === "x";
  let i = at + (hex ? 3 : 2);
  let value = 0;
  for (; i < text.length && text[i] !== ";"; i++) {
    const digit = Number.parseInt(text[i] as string, hex ? 16 : 10);
    if (Number.isNaN(digit)) return [0, i];
    value = value * (hex ? 16 : 10) + digit;
    if (value > 0x10ffff) return [0, i];
  }
  return [value, text[i] === ";" ? i + 1 : i];
}

/** `xmlDocCopyNodeList`: deep copies of `node` and every sibling after it. */
export function copyNodeList(node: Node | null): Node[] {
  const copies: Node[] = [];
  for (let n = node; n; n = n.nextSibling) copies.push(copyNode(n));
  return copies;
}

/** A deep copy that keeps what libxml2 would keep (unresolved prefixes). */
export function copyNode(node: Node, doc: Document = ownerOf(node)): Node {
  const copy = doc.importNode(node, true);
  carryMarks(node, copy);
  return copy;
}

function carryMarks(from: Node, to: Node): void {
  if (unresolvedPrefix.has(from)) unresolvedPrefix.add(to);
  if (isElement(from) && isElement(to)) {
    const a = from.attributes;
    const b = to.attributes;
    for (let i = 0; i < a.length && i < b.length; i++) carryMarks(a.item(i) as Node, b.item(i) as Node);
  }
  let f = from.firstChild;
  let t = to.firstChild;
  for (; f && t; f = f.nextSibling, t = t.nextSibling) carryMarks(f, t);
}
