import type { RecipeContext } from "tend/recipes";

export default (r: RecipeContext) => {
  const root = String(r.node.get("example", "root"));
  r.directory(root, { mode: "0755" });
  r.directory(`${root}/etc`, { mode: "0755" });
  r.template(`${root}/etc/motd`, {
    source: "motd.mustache",
    mode: "0644",
    variables: {
      message: String(r.node.get("base", "motd")),
      lines: ["one run converges", "the next changes nothing"],
    },
  });
};
