/**
 * The attributes of a copy (cf-agent 3.21's VerifyCopiedFileAttributes):
 * with `preserve`, the source's mode, and its owner and group unless the
 * perms body promises others; else the promised perms on top of what the
 * destination has. With `preserve` from the local host, the source's
 * POSIX ACLs too (3.21 copies all extended attributes; security contexts
 * are not copied: Node has no interface to them).
 */
import type { Stats } from "node:fs";
import { copyAcl } from "../../providers/acl/posix-acl.js";
import type { CopyContext } from "./copy-context.js";
import { verifyFileAttributes } from "./file-attributes.js";
import type { FilesJob } from "./job.js";
import type { AccountId, PermsSpec } from "./perms.js";

/** cf-agent looks at the first promised id only: "any" there becomes `fallback`. */
function withDefault(ids: readonly AccountId[], fallback: number): AccountId[] {
  return ids.map((id, i) => (i === 0 && id === "same" ? fallback : id));
}

/** The perms a copy must have, from the source (`ss`) and destination (`ds`). */
export function copiedPerms(job: FilesJob, ss: Stats, ds: Stats): PermsSpec {
  const { perms } = job;
  if (job.attrs.copy.preserve) {
    const plus = ss.mode & 0o7777;
    return {
      masks: { plus, minus: ~plus & 0o7777 },
      rxdirs: perms.rxdirs,
      owners: withDefault(perms.owners, ss.uid),
      groups: withDefault(perms.groups, ss.gid),
    };
  }
  let masks = perms.masks;
  if (job.attrs.havePerms && masks) {
    const plus = (ds.mode & 0o7777) | masks.plus;
    masks = { plus, minus: ~(plus & ~masks.minus) & 0o7777 };
  }
  return {
    masks,
    rxdirs: perms.rxdirs,
    owners: withDefault(perms.owners, ds.uid),
    groups: withDefault(perms.groups, ds.gid),
  };
}

export function verifyCopiedFileAttributes(
  job: FilesJob,
  copy: CopyContext,
  source: string,
  dest: string,
  ss: Stats,
  ds: Stats,
): void {
  verifyFileAttributes(copy.step, dest, ds, copiedPerms(job, ss, ds), job.attrs);
  const { preserve, servers } = job.attrs.copy;
  if (!preserve || copy.step.warnOnly || (servers.length > 0 && servers[0] !== "localhost")) return;
  const copied = copyAcl(source, dest);
  if (copied.error !== undefined) {
    copy.step.failed(
      `Could not preserve extended attributes (ACLs and security contexts) on file '${dest}' (setfacl: ${copied.error})`,
    );
  } else if (copied.changed) copy.step.changed(`Copied extended attributes from '${source}' to '${dest}'`);
}
