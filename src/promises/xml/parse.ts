/**
 * Reading XML as libxml2 reads it for cf-agent: a whole document from a
 * file's bytes, or a well-balanced chunk (the trees of insert_tree and
 * delete_tree). xmldom parses; this module adds what libxml2 does
 * differently — the declaration's encoding decides the decoding, nothing
 * but markup is kept outside the root element, any error at all rejects
 * the input — and refuses what tend cannot keep intact (an internal DTD
 * subset, UTF-16), so that no edit ever loses part of a file.
 */
import { type XmlDom, xmlLibrary } from "./library.js";
import {
  DOCUMENT_NODE,
  ELEMENT_NODE,
  PI_NODE,
  TEXT_NODE,
  XMLNS_NAMESPACE,
  copyNode,
  markUnresolvedPrefix,
} from "./tree.js";

/** The `<?xml ...?>` declaration's fields, as libxml2 writes them back. */
export interface XmlDeclaration {
  readonly version: string;
  /** The declared encoding as written; undefined when none is declared. */
  readonly encoding: string | undefined;
  readonly standalone: "yes" | "no" | undefined;
}

/** A document being edited: the DOM and the declaration it was read with. */
export interface XmlDocument {
  readonly dom: XmlDom.Document;
  readonly declaration: XmlDeclaration;
}

export type ParseResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly reason: string };

const NEW_DECLARATION: XmlDeclaration = { version: "1.0", encoding: undefined, standalone: undefined };

/** An empty document (`xmlNewDoc("1.0")`): no root element yet. */
export function newDocument(): XmlDocument {
  const { dom } = xmlLibrary();
  const doc = new dom.DOMImplementation().createDocument(null, "", null);
  return { dom: doc, declaration: NEW_DECLARATION };
}

/** Parses a file's bytes as a document, decoding as its declaration says. */
export function parseDocument(bytes: Uint8Array): ParseResult<XmlDocument> {
  const text = decode(bytes);
  if (!text.ok) return text;
  return parseDocumentText(text.value);
}

const DECLARED_ENCODING = /^<\?xml\s[^>]*?encoding\s*=\s*(["'])([A-Za-z][\w.:-]*)\1/;

function decode(bytes: Uint8Array): ParseResult<string> {
  if ((bytes[0] === 0xfe && bytes[1] === 0xff) || (bytes[0] === 0xff && bytes[1] === 0xfe))
    return { ok: false, reason: "UTF-16 documents are not supported" };
  const head = Buffer.from(bytes.subarray(0, 200)).toString("latin1");
  const declared = DECLARED_ENCODING.exec(head)?.[2]?.toLowerCase();
  try {
    if (declared === "iso-8859-1" || declared === "latin1" || declared === "iso_8859-1")
      return { ok: true, value: Buffer.from(bytes).toString("latin1") };
    const label =
      declared === undefined || declared === "us-ascii" || declared === "ascii" ? "utf-8" : declared;
    return { ok: true, value: new TextDecoder(label, { fatal: true }).decode(bytes) };
  } catch {
    return { ok: false, reason: `the document is not proper ${declared ?? "UTF-8"}` };
  }
}

// Characters XML 1.0 forbids; xmldom lets them through, libxml2 does not.
const FORBIDDEN_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

/** Parses a document's text; every parser message counts as an error, as in libxml2. */
export function parseDocumentText(source: string): ParseResult<XmlDocument> {
  const text = source.startsWith("\uFEFF") ? source.slice(1) : source;
  if (FORBIDDEN_CHARACTERS.test(text))
    return { ok: false, reason: "the document holds characters XML forbids" };
  const parsed = parseWithXmldom(text);
  if (!parsed.ok) return parsed;
  const doc = parsed.value;
  let declaration = NEW_DECLARATION;
  for (let node = doc.firstChild; node; ) {
    const next = node.nextSibling;
    if (node.nodeType === TEXT_NODE) doc.removeChild(node);
    else if (node.nodeType === PI_NODE && node.nodeName === "xml") {
      declaration = readDeclaration((node as XmlDom.ProcessingInstruction).data);
      doc.removeChild(node);
    } else if (node.nodeType === 10 && (node as XmlDom.DocumentType).internalSubset) {
      return { ok: false, reason: "documents with an internal DTD subset are not supported" };
    }
    node = next;
  }
  return { ok: true, value: { dom: doc, declaration } };
}

function parseWithXmldom(text: string): ParseResult<XmlDom.Document> {
  const { dom } = xmlLibrary();
  const messages: string[] = [];
  const parser = new dom.DOMParser({
    onError: (_level: string, message: string) => {
      messages.push(message.split("\n")[0] ?? message);
    },
  });
  let doc: XmlDom.Document;
  try {
    doc = parser.parseFromString(text, "text/xml");
  } catch (error) {
    return { ok: false, reason: messages[0] ?? (error as Error).message };
  }
  if (messages.length > 0) return { ok: false, reason: messages[0] as string };
  return { ok: true, value: doc };
}

function readDeclaration(data: string): XmlDeclaration {
  const field = (name: string) => new RegExp(`${name}\\s*=\\s*(["'])(.*?)\\1`).exec(data)?.[2];
  const standalone = field("standalone");
  return {
    version: field("version") ?? "1.0",
    encoding: field("encoding"),
    standalone: standalone === "yes" || standalone === "no" ? standalone : undefined,
  };
}

const CHUNK_NAMESPACE = "urn:tend:chunk";
const UNRESOLVED_NAMESPACE = "urn:tend:unresolved:";
const PREFIX_USE = /<\/?([A-Za-z_][\w.-]*):|\s([A-Za-z_][\w.-]*):[A-Za-z_][\w.-]*\s*=/g;

/**
 * `xmlParseBalancedChunkMemory`: the nodes of a well-balanced chunk, made
 * for `doc`. A prefix the chunk uses without declaring stays unresolved,
 * as libxml2 leaves it; an empty chunk does not parse.
 */
export function parseChunk(chunk: string, doc: XmlDom.Document): ParseResult<XmlDom.Node[]> {
  if (FORBIDDEN_CHARACTERS.test(chunk)) return { ok: false, reason: "the tree holds characters XML forbids" };
  const prefixes = new Set<string>();
  for (const match of chunk.matchAll(PREFIX_USE)) {
    const prefix = match[1] ?? match[2];
    if (prefix && prefix !== "xml" && prefix !== "xmlns") prefixes.add(prefix);
  }
  const declarations = [...prefixes].map((p) => ` xmlns:${p}="${UNRESOLVED_NAMESPACE}${p}"`).join("");
  const wrapped = `<tend:chunk xmlns:tend="${CHUNK_NAMESPACE}"${declarations}>${chunk}</tend:chunk>`;
  const parsed = parseWithXmldom(wrapped);
  if (!parsed.ok) return parsed;
  const wrapper = parsed.value.documentElement;
  if (!wrapper || wrapper.nodeType !== ELEMENT_NODE) return { ok: false, reason: "no chunk" };
  for (const node of descendantsAndAttributes(wrapper)) {
    if (node.namespaceURI?.startsWith(UNRESOLVED_NAMESPACE)) markUnresolvedPrefix(node);
  }
  const nodes: XmlDom.Node[] = [];
  for (let node = wrapper.firstChild; node; node = node.nextSibling) nodes.push(copyNode(node, doc));
  if (nodes.length === 0) return { ok: false, reason: "the tree is empty" };
  return { ok: true, value: nodes };
}

function* descendantsAndAttributes(node: XmlDom.Node): Generator<XmlDom.Node> {
  for (let child = node.firstChild; child; child = child.nextSibling) {
    if (child.nodeType !== ELEMENT_NODE) continue;
    yield child;
    const attributes = (child as XmlDom.Element).attributes;
    for (let i = 0; i < attributes.length; i++) {
      const attr = attributes.item(i);
      if (attr && attr.namespaceURI !== XMLNS_NAMESPACE) yield attr;
    }
    yield* descendantsAndAttributes(child);
  }
}

/** Whether a node is a document (for type narrowing of the DOM's unions). */
export function isDocument(node: XmlDom.Node): node is XmlDom.Document {
  return node.nodeType === DOCUMENT_NODE;
}
