/**
 * Path-escape attempts as a table: requests for paths that lead out of the
 * admitted directory (`..`, links out of it, a sibling whose name merely
 * starts like it, NULs, absurd lengths), each sent as STAT, GET, OPENDIR and
 * MD5, and what the server made of it.
 *
 * The tree is test/server/fuzz/campaign.ts's `makeFuzzTree`: `tree/`
 * admitted, `tree-other/secret` not, and links in `tree/` to /etc,
 * /etc/passwd, `..` and the secret.
 */
import { createHash } from "node:crypto";
import type { ServerConnection } from "../../../src/net/client.js";
import { isNetError } from "../../../src/net/errors.js";

export type Verb = "stat" | "get" | "opendir" | "md5";
export const VERBS: readonly Verb[] = ["stat", "get", "opendir", "md5"];

export interface Escape {
  readonly name: string;
  /** The path asked, from the admitted root (no trailing slash). */
  readonly path: (root: string) => string;
}

export const ESCAPES: readonly Escape[] = [
  { name: "dot-dot into a sibling", path: (r) => `${r}/../tree-other/secret` },
  { name: "dot-dot to the root", path: (r) => `${r}/../../../../../../etc/passwd` },
  { name: "dot-dot after a subdirectory", path: (r) => `${r}/sub/../../tree-other/secret` },
  { name: "dot and dot-dot", path: (r) => `${r}/./../tree-other/secret` },
  { name: "doubled slashes and dot-dot", path: (r) => `${r}//..//tree-other//secret` },
  { name: "the admitted directory's parent", path: (r) => `${r}/..` },
  { name: "a sibling named like the admitted directory", path: (r) => `${r}-other/secret` },
  { name: "a sibling directory named like it", path: (r) => `${r}-other` },
  { name: "a link to a file outside", path: (r) => `${r}/escape-file` },
  { name: "a link to a directory outside", path: (r) => `${r}/escape-dir` },
  { name: "a file through a link to a directory outside", path: (r) => `${r}/escape-dir/passwd` },
  { name: "a link to the sibling's secret", path: (r) => `${r}/escape-sibling` },
  { name: "a link to .., then into the sibling", path: (r) => `${r}/escape-dotdot/tree-other/secret` },
  { name: "an absolute path elsewhere", path: () => "/etc/passwd" },
  { name: "the server's own private key", path: () => "/var/lib/cfengine3/ppkeys/localhost.priv" },
  { name: "a NUL, then dot-dot", path: (r) => `${r}/file.txt\0/../../tree-other/secret` },
  { name: "a relative path", path: (r) => `${r.slice(1)}/../tree-other/secret` },
  { name: "a path of 4000 bytes", path: (r) => `${r}/${"a".repeat(4000 - r.length - 20)}` },
  { name: "200 dot-dots", path: (r) => `${r}${"/..".repeat(200)}/etc/passwd` },
];

/**
 * What a server did with one request: `refused <its text>`, `closed` (it
 * ended the connection), or `served …` with what came back. Only `refused`
 * and `closed` keep the file's secrets.
 */
export async function tryEscape(connection: ServerConnection, verb: Verb, path: string): Promise<string> {
  try {
    if (verb === "stat") {
      const stat = await connection.stat(path);
      return `served stat: ${stat.type} of ${stat.size} bytes`;
    }
    if (verb === "get") {
      const content = await connection.get(path, 64);
      return `served get: ${JSON.stringify(content?.toString("latin1").replace(/\0+$/, "").slice(0, 40))}`;
    }
    if (verb === "opendir") return `served opendir: ${(await connection.opendir(path)).length} names`;
    // The digest of a file nobody has: "differs" says only that the file exists.
    const differs = await connection.md5Differs(path, createHash("md5").update("nothing").digest());
    return `served md5: ${differs ? "differs" : "same"}`;
  } catch (error) {
    if (isNetError(error, "refused")) return `refused ${error.message}`;
    if (isNetError(error, "closed") || isNetError(error, "timeout")) return "closed";
    return `error ${(error as Error).message}`;
  }
}
