// A custom resource: `r.declare(site, ...)` in a recipe. Its properties are
// typed (a wrong type or an unknown property fails type checking, and the
// compile with the declaration's place), its actions declare resources that
// converge right after the action's body, and convergeIfChanged runs only
// when a property given differs from what loadCurrentValue found.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { defineResource } from "tend/recipes";

export default defineResource({
  name: "website_site",
  properties: {
    root: { type: String, nameProperty: true },
    title: { type: String, default: "A site" },
    port: { type: Number, default: 80 },
  },
  loadCurrentValue: (root) => {
    const file = `${root}/port`;
    return existsSync(file) ? { port: Number(readFileSync(file, "utf8")) } : undefined;
  },
  actions: {
    create: async (a) => {
      a.directory(`${a.props.root}/public`, { mode: "0755", recursive: true });
      a.file(`${a.props.root}/public/index.html`, {
        content: `<h1>${a.props.title}</h1>\n`,
        mode: "0644",
      });
      await a.convergeIfChanged(() => {
        mkdirSync(a.props.root, { recursive: true });
        writeFileSync(`${a.props.root}/port`, String(a.props.port));
      });
    },
    delete: (a) => {
      a.directory(a.props.root, { action: "delete", recursive: true });
    },
  },
});
