/**
 * The uid of the user a client claims (SetConnIdentity): 0 for "root",
 * else the local account of that name from /etc/passwd (Node has no
 * getpwnam), else unknown. Only GET's ownership rule uses it.
 */
import { readFileSync } from "node:fs";

export function userId(user: string, passwd = "/etc/passwd"): number | undefined {
  if (user === "root") return 0;
  if (user === "") return undefined;
  let text: string;
  try {
    text = readFileSync(passwd, "utf8");
  } catch {
    return undefined;
  }
  for (const line of text.split("\n")) {
    const fields = line.split(":");
    if (fields[0] === user && fields[2] !== undefined && /^\d+$/.test(fields[2])) return Number(fields[2]);
  }
  return undefined;
}
