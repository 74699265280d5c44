/**
 * `acl` bodies, as far as Node lets tend keep them. POSIX ACLs live in
 * extended attributes, which Node cannot read or write; what tend can do
 * is the part of an ACL that is the permission bits: the entries for the
 * file's owner (`user:*`), its group (`group:*`) and everyone else
 * (`all`), with cf-agent's `overwrite` and `append` methods and its mode
 * strings (`=rw`, `+x`, `-w`, `(rwx)` native permissions).
 *
 * Not supported, and reported as a failure of the promise: entries for
 * named users or groups (`user:alice:...`), `mask` entries, default ACLs
 * of directories (`acl_default => "access"`, `"specify"` or `"clear"`),
 * `deny` entries and NTFS ACLs. Where cf-agent stores an ACL with a mask
 * entry, tend leaves the file with the equivalent permission bits only,
 * so cf-agent also reports a change on its first run where tend finds
 * the bits as promised.
 */
import type { Stats } from "node:fs";
import { chmodSync } from "../../system/safe-fs.js";
import { asStrings, asText } from "../values.js";
import { errorText, type FileStep } from "./step.js";

type Entity = "user" | "group" | "other";

const SHIFT: Readonly<Record<Entity, number>> = { user: 6, group: 3, other: 0 };
const BITS: Readonly<Record<string, number>> = { r: 4, w: 2, x: 1 };

interface ParsedAce {
  readonly entity: Entity;
  readonly mode: string;
}

type AceProblem = { readonly problem: string; readonly unsupported?: boolean };

/** One ACE (`user:*:=rw:allow`), or why it cannot be kept; `posix` when acl_type says so. */
function parseAce(ace: string, posix: boolean): ParsedAce | AceProblem {
  const parts = ace.split(":");
  const kind = parts[0];
  let entity: Entity;
  let rest: string[];
  if (kind === "user" || kind === "group") {
    const id = parts[1] ?? "";
    if (id === "") return { problem: `ACL: ACE '${ace}': id cannot be empty or contain ':'` };
    if (parts.length < 3) return { problem: `ACL: Nothing following id string in ACE '${ace}'` };
    if (id !== "*") return { problem: `ACL entries for named users or groups ('${ace}')`, unsupported: true };
    entity = kind;
    rest = parts.slice(2);
  } else if (kind === "all") {
    entity = "other";
    rest = parts.slice(1);
  } else if (kind === "mask") {
    if (posix) return { problem: `ACL mask entries ('${ace}')`, unsupported: true };
    return { problem: "This ACL type does not support mask ACE." };
  } else {
    return { problem: `ACL: ACE '${ace}' does not start with user:/group:/all` };
  }
  const [mode = "", permType, ...extra] = rest;
  if (extra.length > 0 || (permType !== undefined && permType !== "allow" && permType !== "deny"))
    return { problem: `ACL: Malformed perm_type syntax in ACE '${ace}'` };
  if (permType === "deny") return { problem: "Deny permission not supported by this ACL type" };
  if (!/^([=+-]?[rwx]*(\([rwx]*\))?)(,[=+-]?[rwx]*(\([rwx]*\))?)*$/.test(mode))
    return { problem: `ACL: Malformed mode-string in ACE '${ace}'` };
  return { entity, mode };
}

/** Applies a mode string (`=rw`, `+x,-w`, `(rx)`) to three permission bits. */
function applyAceMode(bits: number, mode: string): number {
  if (mode === "") return 0;
  let value = bits;
  for (const clause of mode.split(",")) {
    const op = clause[0] === "+" || clause[0] === "-" ? clause[0] : "=";
    const perms = clause.replace(/^[=+-]/, "").replace(/[()]/g, "");
    if (op === "=") value = 0;
    for (const p of perms) value = op === "-" ? value & ~(BITS[p] ?? 0) : value | (BITS[p] ?? 0);
  }
  return value;
}

/** The permission bits the ACEs give, from `mode` (append) or from nothing (overwrite). */
function aclBits(aces: readonly ParsedAce[], mode: number, overwrite: boolean): number {
  let result = overwrite ? 0 : mode & 0o777;
  for (const ace of aces) {
    const shift = SHIFT[ace.entity];
    const current = (result >> shift) & 7;
    result = (result & ~(7 << shift)) | (applyAceMode(current, ace.mode) << shift);
  }
  return result;
}

function bodyValue(step: FileStep, name: string): string | undefined {
  return asText(step.promise.bodyValue("acl", name));
}

/** Why the ACL body as a whole cannot be kept, if it cannot. */
function unsupportedSettings(step: FileStep, stats: Stats): AceProblem | undefined {
  if (bodyValue(step, "acl_type") === "ntfs") return { problem: "NTFS ACLs", unsupported: true };
  const inherit = bodyValue(step, "acl_default") ?? bodyValue(step, "acl_directory_inherit");
  if (inherit !== undefined && inherit !== "nochange") {
    if (!stats.isDirectory()) return { problem: "acl_default can only be set on directories." };
    return { problem: `Default ACLs of directories (acl_default => "${inherit}")`, unsupported: true };
  }
  return undefined;
}

/** Keeps the promise's ACL on `file` (lstat `stats`). */
export function verifyAcl(step: FileStep, file: string, stats: Stats): void {
  const posix = bodyValue(step, "acl_type") === "posix";
  const parsed = asStrings(step.promise.bodyValue("acl", "aces")).map((ace) => parseAce(ace, posix));
  const problem = unsupportedSettings(step, stats) ?? parsed.find((p): p is AceProblem => "problem" in p);
  if (problem !== undefined) {
    reportProblem(step, file, problem);
    return;
  }
  const aces = parsed as ParsedAce[];
  const overwrite = bodyValue(step, "acl_method") === "overwrite";
  const current = stats.mode & 0o7777;
  const wanted = (current & ~0o777) | aclBits(aces, current, overwrite);
  if (wanted === current) step.kept(`'Access' ACL on '${file}' needs no modification.`);
  else if (step.makingChanges(`update ACL Access on file '${file}'`)) {
    try {
      chmodSync(file, wanted);
      step.changed(`Access ACL on '${file}' successfully changed`);
    } catch (error) {
      step.failed(`Error setting new Access ACL on file '${file}' (chmod: ${errorText(error)})`);
      step.ref();
    }
  }
  if (stats.isDirectory()) step.kept(`No change required for '${file}' with acl_default=nochange`);
}

function reportProblem(step: FileStep, file: string, { problem, unsupported }: AceProblem): void {
  if (unsupported) {
    step.failed(
      `${problem} cannot be kept by tend on '${file}': Node has no access to extended attributes, where POSIX ACLs live; only the owner, group and other entries (the permission bits) are supported`,
    );
  } else {
    step.env.log.error(problem);
    step.failed(`Syntax error in access control list for '${file}'`);
  }
  step.ref();
}
