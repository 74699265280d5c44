// Attribute files run before any recipe: they set the node's defaults.
// Everything the example writes lives under `example.root` (default
// /tmp/tend-example): change it with -j, e.g. {"example": {"root": "/tmp/x"}}.
import type { Node } from "tend/recipes";

export default (node: Node) => {
  node.default.example.root = "/tmp/tend-example";
  node.default.example.owner = "root";
  node.default.base.motd = "Managed by tend: do not edit by hand.";
};
