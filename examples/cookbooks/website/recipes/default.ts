import { existsSync, readFileSync } from "node:fs";
import type { RecipeContext } from "tend/recipes";
import site from "../resources/site";

export default async (r: RecipeContext) => {
  // The base cookbook's recipe runs first (once, however often it is included).
  await r.includeRecipe("base");
  const root = String(r.node.get("example", "root"));
  const web = r.node.get("website") as { port: number; title: string; docroot: string };

  const www = r.declare(site, `${root}/www`, {
    title: web.title,
    port: web.port,
    notifies: r.notifies("run", `execute[reload web server]`, "delayed"),
  });
  r.file(`${root}/etc/web.conf`, {
    content: `listen ${web.port}\nroot ${web.docroot}\n`,
    mode: "0640",
    notifies: [
      r.notifies("run", "execute[reload web server]", "delayed"),
      r.notifies("write", "log[config changed]", "immediately"),
    ],
  });
  r.log("config changed", { action: "nothing", level: "warn" });
  // Runs at most once per converge, at the end, however many resources asked.
  r.execute("reload web server", {
    command: `date +%s > ${root}/reloaded`,
    action: "nothing",
  });
  // A guard is evaluated at converge time, after the resources above ran;
  // `creates` makes the command run once.
  r.execute("publish the site", {
    command: `grep -q tend ${root}/www/public/index.html && touch ${root}/www/published`,
    onlyIf: () => existsSync(`${root}/www/public/index.html`),
    creates: `${root}/www/published`,
  });
  // A lazy value is computed right before its resource converges.
  r.file(`${root}/etc/summary`, {
    content: r.lazy(() => `port file says ${readFileSync(`${root}/www/port`, "utf8")}\n`),
    subscribes: r.subscribes("create", www),
  });
};
