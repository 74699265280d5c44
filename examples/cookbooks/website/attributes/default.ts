import type { Node } from "tend/recipes";

export default (node: Node) => {
  node.default.website.port = 8080;
  node.default.website.title = "Hello from tend";
};
