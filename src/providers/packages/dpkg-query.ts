/**
 * What dpkg knows of a package, read with `dpkg-query -W`: whether it is
 * installed (and at which version), removed with its configuration files
 * left, or unknown/purged, and whether it is held. No changes here.
 */
import type { ToolRunner } from "../tool-runner.js";

/** `purged` (unknown to dpkg, or `not-installed`), `absent` (config files left, half done) or a version. */
export type DebFound = "purged" | "absent" | { readonly version: string };

export interface DebQuery {
  readonly found: DebFound;
  readonly held: boolean;
  /** Set when dpkg reports the package in an error state (reinstreq...). */
  readonly error?: string;
}

/** The format dpkg-query is asked for: desired, error, status, package, version. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own field syntax
export const DPKG_QUERY_FORMAT = "${Status} ${Package} ${Version}\\n";

const LINE = /^(\S+) +(\S+) +(\S+) (\S+) (\S*)$/;
const NOT_INSTALLED = new Set(["config-files", "half-installed", "unpacked", "half-configured"]);

/** Reads one line of the format above; undefined when it does not match. */
export function parseDpkgQueryLine(line: string): (DebQuery & { readonly name: string }) | undefined {
  const match = LINE.exec(line.trimStart().replace(/\r?\n$/, ""));
  if (!match) return undefined;
  const [, desired = "", error = "", status = "", name = "", version = ""] = match;
  let found: DebFound = { version };
  if (status === "not-installed") found = "purged";
  else if (NOT_INSTALLED.has(status)) found = "absent";
  const query = { name, found, held: desired === "hold" };
  return error === "ok" ? query : { ...query, error };
}

/** What dpkg knows of `name`; a package dpkg never heard of is `purged`. */
export function queryDeb(run: ToolRunner, name: string): DebQuery {
  const result = run(["/usr/bin/dpkg-query", "-W", "--showformat", DPKG_QUERY_FORMAT, name]);
  if (result.status !== 0) return { found: "purged", held: false };
  const first = result.stdout.split("\n").find((line) => line.trim() !== "");
  return (first === undefined ? undefined : parseDpkgQueryLine(first)) ?? { found: "absent", held: false };
}

/** The found state as text: `purged`, `absent` or the version. */
export function foundText(found: DebFound): string {
  return typeof found === "string" ? found : found.version;
}
