/**
 * Puppet's `ssh_authorized_key` (sshkeys_core's type over its parsed
 * provider): a key line of a user's authorized_keys file (`target`, or
 * ~user/.ssh/authorized_keys), identified by its comment (the name), with
 * its type, key and options. The file is written through the shared
 * records provider, owned by the user, mode 0600; a missing directory is
 * made 0700 (drop_privileges, the default, as Puppet does).
 */
import type { CatalogResource } from "../../catalog/model.js";
import type { ApplyContext, ResourceResult, ResourceType } from "../../catalog/resource-type.js";
import type { Change } from "../../providers/change.js";
import { findUser } from "../../providers/commands/user-lookup.js";
import { ensureRecord, propertyChange } from "../../providers/parsed-file/index.js";
import { type AuthorizedKey, authorizedKeysFormat } from "../../providers/ssh/index.js";
import { listParam, textParam } from "./property-change.js";
import { type BeforeWrite, withFileBackup, recordResult } from "./parsed-record.js";
import { SSH_KEY_TYPE_ALIASES } from "./ssh-key-types.js";

const TYPES = new Set([
  "ssh-dss",
  "ssh-rsa",
  "ecdsa-sha2-nistp256",
  "ecdsa-sha2-nistp384",
  "ecdsa-sha2-nistp521",
  "ssh-ed25519",
  "sk-ecdsa-sha2-nistp256@openssh.com",
  "sk-ssh-ed25519@openssh.com",
  "ssh-rsa-cert-v01@openssh.com",
  "ssh-ed25519-cert-v01@openssh.com",
  "ssh-dss-cert-v01@openssh.com",
  "ecdsa-sha2-nistp256-cert-v01@openssh.com",
  "ecdsa-sha2-nistp384-cert-v01@openssh.com",
  "ecdsa-sha2-nistp521-cert-v01@openssh.com",
]);

interface KeySpec {
  readonly name: string;
  readonly ensure: "present" | "absent";
  readonly type?: string;
  readonly key?: string;
  readonly user?: string;
  readonly options?: readonly string[];
  /** The target given, if any (else the user's ~/.ssh/authorized_keys). */
  readonly target?: string;
}

function spec(resource: CatalogResource): KeySpec {
  const p = resource.parameters;
  const type = textParam(p.type);
  const options = listParam(p.options);
  const target = textParam(p.target);
  const key = textParam(p.key);
  const user = textParam(p.user);
  return {
    name: textParam(p.name) ?? resource.title,
    ensure: p.ensure === "absent" ? "absent" : "present",
    ...(type !== undefined ? { type: SSH_KEY_TYPE_ALIASES[type] ?? type } : {}),
    ...(key !== undefined ? { key } : {}),
    ...(user !== undefined ? { user } : {}),
    ...(options !== undefined && !(options.length === 1 && options[0] === "absent") ? { options } : {}),
    ...(target !== undefined && target !== "absent" ? { target } : {}),
  };
}

function validate(resource: CatalogResource): string[] {
  const s = spec(resource);
  const problems: string[] = [];
  if (s.target === undefined && s.user === undefined)
    problems.push("Attribute 'user' or 'target' is mandatory");
  if (s.type !== undefined && !TYPES.has(s.type))
    problems.push(`Invalid value ${JSON.stringify(s.type)}. Valid values are ${[...TYPES].join(", ")}.`);
  if (s.key !== undefined && /\s/.test(s.key)) problems.push(`Key must not contain whitespace: ${s.key}`);
  for (const o of s.options ?? [])
    if (!/^[-a-z0-9A-Z_]+(?:=".*?")?$/.test(o))
      problems.push(
        `Option ${o} is not valid. A single option must either be of the form 'option' or 'option="value"'. Multiple options must be provided as an array`,
      );
  return problems;
}

function differences(s: KeySpec, found: AuthorizedKey): Change[] {
  const changes: Change[] = [];
  if (s.type !== undefined && s.type !== found.type) changes.push(propertyChange("type", found.type, s.type));
  if (s.key !== undefined && s.key !== found.key) changes.push(propertyChange("key", found.key, s.key));
  const options = s.options ?? [];
  if (options.join(",") !== found.options.join(","))
    changes.push(propertyChange("options", found.options.join(","), options.join(",")));
  return changes;
}

async function apply(
  resource: CatalogResource,
  context: ApplyContext,
  beforeWrite?: BeforeWrite,
): Promise<ResourceResult> {
  const s = spec(resource);
  const fail = (message: string): ResourceResult => {
    context.logger.error(message);
    return { events: [], failed: message, provider: "parsed" };
  };
  if (s.user === undefined && s.ensure === "present")
    return fail("Cannot write SSH authorized keys without user");
  const account = s.user === undefined ? undefined : findUser(s.user);
  if (s.user !== undefined && account === undefined && s.ensure === "present")
    return fail(`User '${s.user}' does not exist`);
  const target = s.target ?? (account ? `${account.home}/.ssh/authorized_keys` : undefined);
  if (target === undefined) return fail(`The required user is not yet present on the system`);
  const result = ensureRecord<AuthorizedKey>(
    {
      target,
      format: authorizedKeysFormat,
      matches: (k) => k.name === s.name,
      ensure: s.ensure,
      differences: (found) => differences(s, found),
      desired: (found) => {
        if (!found && (s.type === undefined || s.key === undefined))
          return `${s.type === undefined ? "Type" : "Key"} is a required attribute for ssh_authorized_key`;
        return {
          options: s.options ?? [],
          type: s.type ?? found?.type ?? "",
          key: s.key ?? found?.key ?? "",
          name: s.name,
        };
      },
      forceMode: 0o600,
      createDirMode: 0o700,
      ...(account ? { owner: { uid: account.uid, gid: account.gid } } : {}),
    },
    { dryRun: context.noop, beforeWrite: beforeWrite },
  );
  const found = result.found;
  const values = (property: string) => {
    if (property === "options")
      return {
        previous: found && found.options.length > 0 ? [...found.options] : "absent",
        desired: s.options && s.options.length > 0 ? [...s.options] : "absent",
      };
    if (property === "type") return { previous: found?.type ?? "", desired: s.type ?? "" };
    return { previous: found?.key ?? "", desired: s.key ?? "" };
  };
  return recordResult("ssh_authorized_key", result, s.ensure, context.noop, values, "parsed", (m) =>
    context.logger.error(m),
  );
}

export const sshAuthorizedKeyType: ResourceType = {
  name: "ssh_authorized_key",
  validate,
  apply: withFileBackup("ssh_authorized_key", apply),
  autorequire: (resource) => {
    const user = textParam(resource.parameters.user);
    return user === undefined ? [] : [`User[${user}]`];
  },
};
