import type { Node } from "tend/recipes";

export default async (node: Node) => {
  // Chef's include_attribute: base's defaults are loaded first (they
  // would be anyway, base is a dependency; this makes the reliance explicit).
  await node.includeAttribute("base");
  node.default.website.port = 8080;
  node.default.website.title = "Hello from tend";
  // Written only when no cookbook default is there yet (Chef's default_unless).
  node.default_unless.website.docroot = `${String(node.get("example", "root"))}/www/public`;
};
