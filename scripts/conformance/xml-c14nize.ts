/**
 * The acceptance suite's `xml-c14nize` helper (tests/acceptance/xml-c14nize.c)
 * for machines without libxml2's headers: prints an XML file in Canonical
 * XML 1.0 with comments, as `xmlC14NDocSaveTo` does, so that
 * `xml_check_diff` can compare two documents by content. It reads XML
 * with the library tend's edit_xml uses.
 *
 *   node dist/scripts/conformance/xml-c14nize.js <XML file>
 *
 * Exit status 0, 1 when the file cannot be read or parsed, 2 on misuse.
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import type { XmlDom } from "../../src/promises/xml/library.js";
import { parseDocument } from "../../src/promises/xml/parse.js";
import {
  CDATA_NODE,
  COMMENT_NODE,
  ELEMENT_NODE,
  PI_NODE,
  TEXT_NODE,
  XMLNS_NAMESPACE,
} from "../../src/promises/xml/tree.js";

function escapeText(text: string): string {
  return text.replace(/[&<>\r]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#xD;" })[c] ?? c);
}

function escapeAttribute(text: string): string {
  return text.replace(
    /[&<"\t\n\r]/g,
    (c) =>
      ({ "&": "&amp;", "<": "&lt;", '"': "&quot;", "\t": "&#x9;", "\n": "&#xA;", "\r": "&#xD;" })[c] ?? c,
  );
}

/** Namespace declarations in scope: prefix ("" for the default) → URI. */
type Scope = ReadonlyMap<string, string>;

function inScope(element: XmlDom.Element, parent: Scope): Map<string, string> {
  const scope = new Map(parent);
  const attributes = element.attributes;
  for (let i = 0; i < attributes.length; i++) {
    const attr = attributes.item(i) as XmlDom.Attr;
    if (attr.namespaceURI !== XMLNS_NAMESPACE) continue;
    scope.set(attr.prefix ? (attr.localName ?? "") : "", attr.value);
  }
  return scope;
}

function element(node: XmlDom.Element, rendered: Scope, out: string[]): void {
  const scope = inScope(node, rendered);
  // A declaration is rendered where its value differs from the one the
  // output parent has in scope (no default namespace counts as "").
  const namespaces = [...scope]
    .filter(([prefix, uri]) => (rendered.get(prefix) ?? (prefix === "" ? "" : undefined)) !== uri)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const attributes: XmlDom.Attr[] = [];
  for (let i = 0; i < node.attributes.length; i++) {
    const attr = node.attributes.item(i) as XmlDom.Attr;
    if (attr.namespaceURI !== XMLNS_NAMESPACE) attributes.push(attr);
  }
  attributes.sort((a, b) => {
    const ka = [a.namespaceURI ?? "", a.localName ?? a.nodeName];
    const kb = [b.namespaceURI ?? "", b.localName ?? b.nodeName];
    return ka[0] !== kb[0] ? (ka[0] < kb[0] ? -1 : 1) : ka[1] < kb[1] ? -1 : ka[1] > kb[1] ? 1 : 0;
  });
  out.push(`<${node.nodeName}`);
  for (const [prefix, uri] of namespaces)
    out.push(` ${prefix ? `xmlns:${prefix}` : "xmlns"}="${escapeAttribute(uri)}"`);
  for (const attr of attributes) out.push(` ${attr.nodeName}="${escapeAttribute(attr.value)}"`);
  out.push(">");
  for (let child = node.firstChild; child; child = child.nextSibling) content(child, scope, out);
  out.push(`</${node.nodeName}>`);
}

function content(node: XmlDom.Node, scope: Scope, out: string[]): void {
  switch (node.nodeType) {
    case ELEMENT_NODE:
      element(node as XmlDom.Element, scope, out);
      break;
    case TEXT_NODE:
    case CDATA_NODE:
      out.push(escapeText((node as XmlDom.CharacterData).data));
      break;
    case COMMENT_NODE:
      out.push(`<!--${(node as XmlDom.Comment).data}-->`);
      break;
    case PI_NODE: {
      const pi = node as XmlDom.ProcessingInstruction;
      out.push(pi.data === "" ? `<?${pi.target}?>` : `<?${pi.target} ${pi.data}?>`);
      break;
    }
  }
}

/** The canonical form of a parsed document. */
export function canonicalize(doc: XmlDom.Document): string {
  const out: string[] = [];
  let afterRoot = false;
  for (let node = doc.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === ELEMENT_NODE) {
      element(node as XmlDom.Element, new Map(), out);
      afterRoot = true;
    } else if (node.nodeType === COMMENT_NODE || node.nodeType === PI_NODE) {
      if (afterRoot) out.push("\n");
      content(node, new Map(), out);
      if (!afterRoot) out.push("\n");
    }
  }
  return out.join("");
}

function main(args: readonly string[]): number {
  if (args.length !== 1) {
    process.stderr.write("Usage: xml-c14nize <XML file>\n");
    return 2;
  }
  const file = args[0] as string;
  let parsed: ReturnType<typeof parseDocument>;
  try {
    parsed = parseDocument(readFileSync(file));
  } catch {
    parsed = { ok: false, reason: "unreadable" };
  }
  if (!parsed.ok) {
    process.stderr.write(`Unable to open ${file} for canonicalization\n`);
    return 1;
  }
  process.stdout.write(canonicalize(parsed.value.dom));
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.exitCode = main(process.argv.slice(2));
