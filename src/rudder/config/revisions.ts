/**
 * Techniques at a revision (Rudder's `<version>+<commit>`: a directive
 * pinned to its technique as it was in a commit of the configuration
 * repository). The configuration directory is then a git work tree; the
 * technique's files are read from the commit with git.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import type { DiagnosticBag } from "./diagnostics.js";
import { parseMetadataXml } from "./metadata.js";
import type { Technique } from "./technique.js";

function git(root: string, args: readonly string[]): string {
  return execFileSync("git", ["-C", root, ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** The technique `name` version `version` (`<base>+<commit>`) read from git, or undefined with a diagnostic. */
export function loadTechniqueAtRevision(
  root: string,
  name: string,
  version: string,
  file: string,
  bag: DiagnosticBag,
): Technique | undefined {
  const plus = version.indexOf("+");
  const base = version.slice(0, plus);
  const rev = version.slice(plus + 1);
  const folder = `techniques/${name}/${base}/`;
  const files = new Map<string, string>();
  try {
    const listed = git(root, ["ls-tree", "-r", "--name-only", rev, "--", folder]);
    for (const path of listed.split("\n").filter((l) => l !== "")) {
      const rel = path.startsWith(folder) ? path.slice(folder.length) : path;
      files.set(rel, git(root, ["show", `${rev}:./${folder}${rel}`]));
    }
  } catch (error) {
    const message = (error as { stderr?: string }).stderr?.trim() || (error as Error).message;
    bag.error(
      file,
      1,
      1,
      `technique '${name}' version '${version}': cannot read ${folder} at '${rev}' with git: ${message}`,
    );
    return undefined;
  }
  const metadata = files.get("metadata.xml");
  if (metadata === undefined) {
    bag.error(file, 1, 1, `technique '${name}' version '${version}': no ${folder}metadata.xml at '${rev}'`);
    return undefined;
  }
  const dir = join(root, folder);
  const t = parseMetadataXml(metadata, `${folder}metadata.xml at ${rev}`, { name, version: base }, dir, bag);
  return t ? { ...t, id: { name, version }, generatedFiles: files } : undefined;
}
