/**
 * `acl` bodies on POSIX ACLs, as cf-agent 3.21 keeps them on Linux (its
 * acl_posix.c): the access ACL built from the ACEs (`overwrite`, or
 * `append` to the entries the file has), entries for the owner
 * (`user:*`), the owning group (`group:*`), named users and groups
 * (`user:alice`, `group:staff`), `all` and `mask` (with `acl_type =>
 * "posix"`), the mask calculated when no ACE gives it, and for
 * directories the default ACL (`acl_default`: `nochange`, `access`,
 * `specify` with `specify_default_aces`, `clear`). The ACLs are read and
 * written through the system's ACL tools (src/providers/acl).
 *
 * Not supported, and reported as a failure of the promise: NTFS ACLs and
 * `deny` entries (which POSIX ACLs do not have; cf-agent refuses them too).
 */
import type { Stats } from "node:fs";
import {
  type AclEntry,
  type AclKind,
  type AclTag,
  aclText,
  checkAcl,
  readAcl,
  sameAcl,
  sortEntries,
  withCalculatedMask,
  writeAcl,
} from "../../providers/acl/posix-acl.js";
import { asStrings, asText } from "../values.js";
import type { AccountDatabase } from "../../providers/files/accounts.js";
import { accountsOf } from "./run-state.js";
import type { FileStep } from "./step.js";

interface ParsedAce {
  readonly tag: AclTag;
  readonly id?: number;
  readonly mode: string;
}

/** One message of a refused ACE; `ref` when 3.21 follows it with the promise's reference. */
interface ProblemLine {
  readonly text: string;
  readonly ref: boolean;
}

/** Why an ACE is refused; `entity` when 3.21 finds it only while building the ACL (an unknown name). */
type AceProblem = { readonly lines: readonly ProblemLine[]; readonly entity?: string };

const line = (text: string, ref = false): ProblemLine => ({ text, ref });

const BITS: Readonly<Record<string, number>> = { r: 4, w: 2, x: 1 };

/** 3.21's CheckModeSyntax: ops, `rwx`, native permissions in brackets, comma-separated. */
function modeProblem(mode: string, nativePerms: string): ProblemLine[] | undefined {
  let i = 0;
  const skip = (chars: string) => {
    while (i < mode.length && chars.includes(mode[i])) i++;
  };
  while (mode !== "") {
    skip("=+-");
    skip("rwx");
    if (mode[i] === "(") {
      i++;
      skip(nativePerms);
      if (mode[i] !== ")") {
        return [
          line(`ACL: Invalid native permission '${mode[i] ?? ""}', or missing native end separator`, true),
        ];
      }
      i++;
    }
    if (i >= mode.length) return undefined;
    if (mode[i] !== ",") return [line("ACL: Mode string contains invalid characters", true)];
    i++;
  }
  return undefined;
}

/** One ACE (`user:alice:=rw:allow`), or why it is refused; `posix` when acl_type says so. */
function parseAce(ace: string, posix: boolean, accounts: AccountDatabase): ParsedAce | AceProblem {
  const refused = (...lines: ProblemLine[]): AceProblem => ({
    lines: [...lines, line(`ACL: The ACE '${ace}' contains errors`, true)],
  });
  const parts = ace.split(":");
  const kind = parts[0];
  let tag: AclTag;
  let id: number | undefined;
  let rest: string[];
  if (kind === "user" || kind === "group") {
    const name = parts[1] ?? "";
    if (name === "") return refused(line(`ACL: ACE '${ace}': id cannot be empty or contain ':'`));
    if (parts.length < 3) return refused(line(`ACL: Nothing following id string in ACE '${ace}'`));
    if (name === "*") tag = kind === "user" ? "user_obj" : "group_obj";
    else {
      tag = kind;
      id = kind === "user" ? accounts.userId(name) : accounts.groupId(name);
      if (id === undefined) {
        const what =
          kind === "user" ? `UID for user '${name}', (getpwnam` : `GID for group '${name}', (getgrnam`;
        return { lines: [line(`Could not get ${what}: not found)`)], entity: `:${parts.slice(2).join(":")}` };
      }
    }
    rest = parts.slice(2);
  } else if (kind === "all") {
    tag = "other";
    rest = parts.slice(1);
  } else if (kind === "mask") {
    if (!posix) return refused(line("This ACL type does not support mask ACE."));
    tag = "mask";
    rest = parts.slice(1);
  } else {
    return refused(line(`ACL: ACE '${ace}' does not start with user:/group:/all`));
  }
  const [mode = "", permType, ...extra] = rest;
  const badMode = modeProblem(mode, posix ? "rwx" : "");
  if (badMode) return refused(...badMode, line(`ACL: Malformed mode-string in ACE '${ace}'`, true));
  if (extra.length > 0 || (permType !== undefined && permType !== "allow" && permType !== "deny"))
    return refused(line(`ACL: Malformed perm_type syntax in ACE '${ace}'`));
  if (permType === "deny") return refused(line("Deny permission not supported by this ACL type"));
  return id === undefined ? { tag, mode } : { tag, id, mode };
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

function bodyValue(step: FileStep, name: string): string | undefined {
  return asText(step.promise.bodyValue("acl", name));
}

/** The ACEs, parsed; the first problem (logged by the caller) otherwise. */
function parseAces(
  aces: readonly string[],
  posix: boolean,
  accounts: AccountDatabase,
): ParsedAce[] | AceProblem {
  const parsed: ParsedAce[] = [];
  for (const ace of aces) {
    const result = parseAce(ace, posix, accounts);
    if ("lines" in result) return result;
    parsed.push(result);
  }
  return parsed;
}

function isProblem(value: ParsedAce[] | AceProblem): value is AceProblem {
  return "lines" in value;
}

/** `acl_default` (or the deprecated `acl_directory_inherit`, whose `parent` is `access`). */
function defaultPolicy(step: FileStep): string {
  const value = bodyValue(step, "acl_default") ?? bodyValue(step, "acl_directory_inherit") ?? "nochange";
  return value === "parent" ? "access" : value;
}

/** Keeps the promise's ACL on `file` (lstat `stats`). */
export function verifyAcl(step: FileStep, file: string, stats: Stats): void {
  if (bodyValue(step, "acl_type") === "ntfs") {
    step.failed("NTFS ACLs are not supported on this system");
    step.ref();
    return;
  }
  const posix = bodyValue(step, "acl_type") === "posix";
  const accounts = accountsOf(step.env);
  const aces = parseAces(asStrings(step.promise.bodyValue("acl", "aces")), posix, accounts);
  const policy = defaultPolicy(step);
  const defaults =
    policy === "specify"
      ? parseAces(asStrings(step.promise.bodyValue("acl", "specify_default_aces")), posix, accounts)
      : [];
  if (isProblem(aces) || isProblem(defaults)) {
    reportProblem(step, file, isProblem(aces) ? aces : (defaults as AceProblem));
    return;
  }
  if (policy !== "nochange" && !stats.isDirectory()) {
    reportProblem(step, file, { lines: [line("acl_default can only be set on directories.")] });
    return;
  }
  const overwrite = bodyValue(step, "acl_method") === "overwrite";
  if (!keepEntries(step, file, "access", aces, overwrite)) return;
  if (!stats.isDirectory()) return;
  if (policy === "nochange") step.kept(`No change required for '${file}' with acl_default=nochange`);
  else if (policy === "specify") keepEntries(step, file, "default", defaults, overwrite);
  else if (policy === "access") keepDefaultAsAccess(step, file);
  else if (policy === "clear") keepDefaultCleared(step, file);
}

function failWith(step: FileStep, message: string): false {
  step.failed(message);
  step.ref();
  return false;
}

/** 3.21's CheckPosixLinuxACEs: the ACL of that kind made of the ACEs. */
function keepEntries(
  step: FileStep,
  file: string,
  kind: AclKind,
  aces: readonly ParsedAce[],
  overwrite: boolean,
): boolean {
  const label = kind === "access" ? "Access" : "Default";
  const existing = readAcl(file, kind);
  if ("error" in existing)
    return failWith(step, `No ${label} ACL for '${file}' could be read. (getfacl: ${existing.error})`);
  let entries: AclEntry[] = overwrite ? [] : [...existing];
  for (const ace of aces) {
    const at = entries.findIndex((e) => e.tag === ace.tag && e.id === ace.id);
    const current = at < 0 ? 0 : entries[at].perms;
    const entry: AclEntry = { tag: ace.tag, id: ace.id, perms: applyAceMode(current, ace.mode) };
    entries = at < 0 ? [...entries, entry] : entries.map((e, i) => (i === at ? entry : e));
  }
  entries = aces.some((a) => a.tag === "mask") ? sortEntries(entries) : withCalculatedMask(entries);
  if (sameAcl(existing, entries)) {
    step.kept(`'${label}' ACL on '${file}' needs no modification.`);
    return true;
  }
  if (!step.makingChanges(`update ACL ${label} on file '${file}'`)) return true;
  const accounts = accountsOf(step.env);
  const text = aclText(
    entries,
    (id, tag) => (tag === "user" ? accounts.userName(id) : accounts.groupName(id)) ?? String(id),
  );
  const invalid = checkAcl(entries);
  if (invalid)
    return failWith(
      step,
      `Invalid ACL in '${text}' at index ${invalid.index} (acl_check: ${invalid.message})`,
    );
  const written = writeAcl(file, kind, entries);
  if (written.error !== undefined) {
    return failWith(
      step,
      `Error setting new ${label} ACL(${text}) on file '${file}' (setfacl: ${written.error}), are required ACEs present ?`,
    );
  }
  step.changed(`${label} ACL on '${file}' successfully changed`);
  return true;
}

/** acl_default => "access": the default ACL is the access ACL. */
function keepDefaultAsAccess(step: FileStep, file: string): void {
  const access = readAcl(file, "access");
  if ("error" in access) {
    failWith(step, `Could not find an ACL for '${file}'. (getfacl: ${access.error})`);
    return;
  }
  const current = readAcl(file, "default");
  if ("error" in current) {
    failWith(step, `Could not find default ACL for '${file}'. (getfacl: ${current.error})`);
    return;
  }
  if (sameAcl(access, current)) step.kept(`Default ACL on '${file}' as promised`);
  else if (step.makingChanges(`copy default ACL on '${file}' from access ACL`)) {
    const written = writeAcl(file, "default", access);
    if (written.error !== undefined)
      failWith(step, `Could not set default ACL to access on '${file}'. (setfacl: ${written.error})`);
    else step.changed(`Default ACL on '${file}' successfully copied from access ACL.`);
  }
}

/** acl_default => "clear": no default ACL. */
function keepDefaultCleared(step: FileStep, file: string): void {
  const current = readAcl(file, "default");
  if ("error" in current) {
    failWith(step, `Unable to read default acl for '${file}'. (getfacl: ${current.error})`);
    return;
  }
  if (current.length === 0) step.kept(`Default ACL on '${file}' as promised`);
  else if (step.makingChanges(`clean default ACL on '${file}'`)) {
    const written = writeAcl(file, "default", []);
    if (written.error !== undefined)
      failWith(step, `Could not reset ACL for '${file}'. (setfacl: ${written.error})`);
    else step.changed(`Default ACL on '${file}' successfully cleared`);
  }
}

function reportProblem(step: FileStep, file: string, { lines, entity }: AceProblem): void {
  for (const { text, ref } of lines) {
    step.env.log.error(text);
    if (ref) step.ref();
  }
  step.failed(
    entity === undefined
      ? `Syntax error in access control list for '${file}'`
      : `ACL: Error parsing entity in '${entity}'`,
  );
  step.ref();
}
