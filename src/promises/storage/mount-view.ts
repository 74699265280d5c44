/**
 * How cf-agent 3.21 sees a mounted file system: it reads the lines of
 * `mount` and splits each into a host and a source (`host:/path`,
 * `//host/share`, `panfs://host/path`; a local device is `localhost` with
 * no source) and tags the lines holding the word nfs, panfs or cifs.
 *
 * Deliberately better than 3.21: the tags are taken per line (3.21 keeps
 * a cifs or panfs tag for every line after the first one, and then reads
 * past the end of a local device's name; the agent crashes), and the
 * mount point is the table's own (3.21 cuts it at a space).
 */
import { type MountEntry, mountCommandLine } from "../../providers/mounts/index.js";

export interface AgentMountView {
  readonly host: string;
  readonly source: string;
  readonly mountOn: string;
  /** "nfs", "panfs" or "cifs" when the line holds the word. */
  readonly tag?: "nfs" | "panfs" | "cifs";
}

function tagOf(words: readonly string[]): AgentMountView["tag"] {
  if (words.includes("panfs")) return "panfs";
  if (words.includes("nfs")) return "nfs";
  if (words.includes("cifs")) return "cifs";
  return undefined;
}

/** Host and source of a `//host/share` or `panfs://host/path` name: the host ends at the third slash. */
function splitShare(name: string): { host: string; source: string } {
  if (!name.startsWith("//") && !name.startsWith("panfs://")) return splitRemote(name);
  let slashes = 0;
  for (let i = 0; i < name.length; i++) {
    if (name[i] === "/" || name[i] === "\\") slashes += 1;
    if (slashes === 3) return { host: name.slice(0, i), source: name.slice(i) };
  }
  return splitRemote(name);
}

/** Host and source of `host:path` (no source without a colon). */
function splitRemote(name: string): { host: string; source: string } {
  const colon = name.indexOf(":");
  if (colon < 0) return { host: name, source: "" };
  if (colon === 0) return { host: "", source: "" };
  return { host: name.slice(0, colon), source: name.slice(colon + 1) };
}

/** The entry as 3.21 reads it from its `mount` line. */
export function agentMountView(entry: MountEntry): AgentMountView & { readonly local: boolean } {
  const words = mountCommandLine(entry).split(" ");
  const tag = tagOf(words);
  const name = words[0] ?? "";
  const cifs = tag === "cifs";
  if (name.startsWith("/") && !cifs)
    return { host: "localhost", source: "", mountOn: entry.target, tag, local: true };
  const split = cifs || tag === "panfs" ? splitShare(name) : splitRemote(name);
  return { ...split, mountOn: entry.target, tag, local: false };
}
