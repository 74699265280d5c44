/**
 * Writing a document back as libxml2's `xmlSaveFile` (and
 * `xmlDocDumpMemory`) writes it for cf-agent: the declaration, then each
 * top-level node on its own line; nothing re-indented; empty elements as
 * `<a/>`; namespace declarations before attributes; and, when the document
 * declares no encoding, every non-ASCII character as a hexadecimal
 * character reference.
 */
import type { XmlDom } from "./library.js";
import type { XmlDocument } from "./parse.js";
import {
  CDATA_NODE,
  COMMENT_NODE,
  DOCTYPE_NODE,
  ELEMENT_NODE,
  ENTITY_REFERENCE_NODE,
  PI_NODE,
  TEXT_NODE,
  isNamespaceDeclaration,
} from "./tree.js";

/** The document's text, before encoding into bytes. */
export function serializeDocument(doc: XmlDocument): string {
  const { version, encoding, standalone } = doc.declaration;
  let out = `<?xml version=${quoted(version)}`;
  if (encoding !== undefined) out += ` encoding=${quoted(encoding)}`;
  if (standalone !== undefined) out += ` standalone="${standalone}"`;
  out += "?>\n";
  const writer = new Writer(encoding === undefined);
  for (let node = doc.dom.firstChild; node; node = node.nextSibling) {
    writer.node(node);
    writer.out += "\n";
  }
  return out + writer.out;
}

/** The bytes of a document's text in its declared encoding (UTF-8 when none or unknown). */
export function encodeDocument(text: string, encoding: string | undefined): Buffer {
  const name = encoding?.toLowerCase();
  if (name === "iso-8859-1" || name === "latin1" || name === "iso_8859-1") {
    return Buffer.from(
      text.replace(/[^\u0000-\u00ff]/gu, (c) => `&#${c.codePointAt(0)};`),
      "latin1",
    );
  }
  if (name === undefined || name === "utf-8" || name === "utf8") return Buffer.from(text, "utf8");
  // Other encodings: ASCII with character references reads the same in all of them.
  return Buffer.from(
    text.replace(/[^\u0000-\u007f]/gu, (c) => `&#${c.codePointAt(0)};`),
    "latin1",
  );
}

/** libxml2's `xmlBufWriteQuotedString`: double quotes unless the text holds one. */
function quoted(text: string): string {
  if (!text.includes('"')) return `"${text}"`;
  if (!text.includes("'")) return `'${text}'`;
  return `"${text.replace(/"/g, "&quot;")}"`;
}

function hexReference(c: string): string {
  return `&#x${(c.codePointAt(0) as number).toString(16).toUpperCase()};`;
}

class Writer {
  out = "";

  /** `asciiOnly`: no declared encoding, so non-ASCII goes out as references. */
  constructor(private readonly asciiOnly: boolean) {}

  node(node: XmlDom.Node): void {
    switch (node.nodeType) {
      case ELEMENT_NODE:
        this.element(node as XmlDom.Element);
        break;
      case TEXT_NODE:
        this.out += this.escapeText((node as XmlDom.Text).data);
        break;
      case CDATA_NODE:
        this.out += `<![CDATA[${(node as XmlDom.CDATASection).data.split("]]>").join("]]]]><![CDATA[>")}]]>`;
        break;
      case COMMENT_NODE:
        this.out += `<!--${(node as XmlDom.Comment).data}-->`;
        break;
      case PI_NODE: {
        const pi = node as XmlDom.ProcessingInstruction;
        this.out += pi.data === "" ? `<?${pi.target}?>` : `<?${pi.target} ${pi.data}?>`;
        break;
      }
      case ENTITY_REFERENCE_NODE:
        this.out += `&${node.nodeName};`;
        break;
      case DOCTYPE_NODE:
        this.doctype(node as XmlDom.DocumentType);
        break;
    }
  }

  private element(element: XmlDom.Element): void {
    this.out += `<${element.nodeName}`;
    const attributes = element.attributes;
    const declarations: XmlDom.Attr[] = [];
    const others: XmlDom.Attr[] = [];
    for (let i = 0; i < attributes.length; i++) {
      const attr = attributes.item(i) as XmlDom.Attr;
      (isNamespaceDeclaration(attr) ? declarations : others).push(attr);
    }
    for (const decl of declarations) this.out += ` ${decl.nodeName}=${quoted(decl.value)}`;
    for (const attr of others) this.out += ` ${attr.nodeName}="${this.escapeAttribute(attr.value)}"`;
    if (!element.firstChild) {
      this.out += "/>";
      return;
    }
    this.out += ">";
    for (let child: XmlDom.Node | null = element.firstChild; child; child = child.nextSibling)
      this.node(child);
    this.out += `</${element.nodeName}>`;
  }

  private doctype(doctype: XmlDom.DocumentType): void {
    this.out += `<!DOCTYPE ${doctype.name}`;
    const publicId = unquote(doctype.publicId);
    const systemId = unquote(doctype.systemId);
    if (publicId) this.out += ` PUBLIC ${quoted(publicId)} ${quoted(systemId)}`;
    else if (systemId) this.out += ` SYSTEM ${quoted(systemId)}`;
    this.out += ">";
  }

  private escapeText(text: string): string {
    return text.replace(/[<>&\r]|[^\u0000-\u007f]/gu, (c) => {
      if (c === "<") return "&lt;";
      if (c === ">") return "&gt;";
      if (c === "&") return "&amp;";
      if (c === "\r") return this.asciiOnly ? "&#xD;" : "&#13;";
      return this.asciiOnly ? hexReference(c) : c;
    });
  }

  private escapeAttribute(text: string): string {
    return text.replace(/[<>&"\n\r\t]|[^\u0000-\u007f]/gu, (c) => {
      switch (c) {
        case "<":
          return "&lt;";
        case ">":
          return "&gt;";
        case "&":
          return "&amp;";
        case '"':
          return "&quot;";
        case "\n":
          return "&#10;";
        case "\r":
          return "&#13;";
        case "\t":
          return "&#9;";
        default:
          return this.asciiOnly ? hexReference(c) : c;
      }
    });
  }
}

/** xmldom keeps the quotes of a DOCTYPE's identifiers; libxml2 writes its own. */
function unquote(id: string | null | undefined): string {
  if (!id) return "";
  const first = id[0];
  return (first === '"' || first === "'") && id.endsWith(first) ? id.slice(1, -1) : id;
}
