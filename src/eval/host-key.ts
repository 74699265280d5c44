/**
 * The host's own key as cf-agent 3.21 knows it at start-up (libenv
 * sysinfo.c): when `$(sys.workdir)/ppkeys/localhost.priv` and
 * `localhost.pub` both load, `sys.key_digest` is the key's "MD5=…" digest
 * and the hard class `PK_MD5_<hex>` is defined. A key missing or unreadable
 * defines neither (3.21 logs it and goes on).
 */
import { join } from "node:path";
import { keyDigest, readKeyPair } from "../net/keys.js";
import { canonifyClassName } from "./class-expression.js";
import type { EvalContext } from "./context.js";
import { scalar } from "./values.js";

/** The digest of the host key in `workdir`, or undefined. */
export function hostKeyDigest(workdir: string): string | undefined {
  try {
    const pair = readKeyPair(join(workdir, "ppkeys"));
    return pair ? keyDigest(pair.publicKey) : undefined;
  } catch {
    return undefined;
  }
}

export function installHostKey(ctx: EvalContext, workdir: string): void {
  const digest = hostKeyDigest(workdir);
  if (digest === undefined) return;
  ctx.setVariable({ ns: null, scope: "sys", name: "key_digest", indices: [] }, scalar(digest), {
    tags: ["inventory", "source=agent", "attribute_name=CFEngine ID"],
  });
  ctx.defineHardClass(canonifyClassName(`PK_${digest}`), [
    "inventory",
    "attribute_name=none",
    "source=agent",
    "derived-from=sys.key_digest",
  ]);
}
