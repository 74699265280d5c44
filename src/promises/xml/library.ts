/**
 * The XML library edit_xml works on: @xmldom/xmldom (a W3C DOM, parser
 * and all) and xpath (XPath 1.0 over that DOM). Both are plain synchronous
 * JavaScript, which the agent's synchronous promise evaluation needs, and
 * both are loaded on first use only, so runs without edit_xml do not pay
 * for parsing them at start-up.
 */
import { createRequire } from "node:module";
import type * as XmlDom from "@xmldom/xmldom";

export type { XmlDom };

/** What edit_xml uses of the xpath package (its own typings pull in the browser DOM). */
interface XPathModule {
  select(expression: string, node: XmlDom.Node): unknown;
}

export interface XmlLibrary {
  readonly dom: typeof XmlDom;
  readonly xpath: XPathModule;
}

let library: XmlLibrary | undefined;

/** The library, loaded the first time it is asked for. */
export function xmlLibrary(): XmlLibrary {
  if (!library) {
    const require = createRequire(import.meta.url);
    library = { dom: require("@xmldom/xmldom"), xpath: require("xpath") };
  }
  return library;
}
