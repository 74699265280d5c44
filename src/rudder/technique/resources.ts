/**
 * A technique's resource files: every file under its `resources/` folder,
 * as paths relative to that folder, in rudderc's order (walked depth-first,
 * entries sorted by name). A missing folder means no resources.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

export function listResources(resourcesDir: string): string[] {
  try {
    if (!statSync(resourcesDir).isDirectory()) return [];
  } catch {
    return [];
  }
  const out: string[] = [];
  const walk = (dir: string, prefix: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const relative = prefix === "" ? name : `${prefix}/${name}`;
      if (statSync(path).isDirectory()) walk(path, relative);
      else out.push(relative);
    }
  };
  walk(resourcesDir, "");
  return out;
}
