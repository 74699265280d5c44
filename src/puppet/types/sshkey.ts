/**
 * Puppet's `sshkey` (sshkeys_core's type over its parsed provider): a host
 * key line of a known_hosts file (`target`, /etc/ssh/ssh_known_hosts by
 * default), identified by host name and key type (the title may be
 * `name@type`), with its key and aliases, written through the shared
 * records provider.
 */
import type { CatalogResource } from "../../catalog/model.js";
import type { ApplyContext, ResourceResult, ResourceType } from "../../catalog/resource-type.js";
import type { Change } from "../../providers/change.js";
import { ensureRecord, propertyChange } from "../../providers/parsed-file/index.js";
import { type KnownHost, knownHostsFormat } from "../../providers/ssh/index.js";
import { listParam, textParam } from "./property-change.js";
import { type BeforeWrite, withFileBackup, recordResult } from "./parsed-record.js";
import { SSH_KEY_TYPE_ALIASES } from "./ssh-key-types.js";

const TYPES = new Set([
  "ssh-dss",
  "ssh-ed25519",
  "ssh-rsa",
  "ecdsa-sha2-nistp256",
  "ecdsa-sha2-nistp384",
  "ecdsa-sha2-nistp521",
  "sk-ecdsa-sha2-nistp256@openssh.com",
  "sk-ssh-ed25519@openssh.com",
]);

interface SshkeySpec {
  readonly name: string;
  readonly type?: string;
  readonly ensure: "present" | "absent";
  readonly key?: string;
  readonly aliases?: readonly string[];
  readonly target: string;
}

function spec(resource: CatalogResource): SshkeySpec {
  const p = resource.parameters;
  const at = /^(.*?)@(.*)$/.exec(resource.title);
  const name = textParam(p.name) ?? (at ? (at[1] as string) : resource.title);
  const rawType = textParam(p.type) ?? (at ? at[2] : undefined);
  const type = rawType === undefined ? undefined : (SSH_KEY_TYPE_ALIASES[rawType] ?? rawType);
  return {
    name,
    ...(type !== undefined ? { type } : {}),
    ensure: p.ensure === "absent" ? "absent" : "present",
    ...(textParam(p.key) !== undefined ? { key: textParam(p.key) } : {}),
    ...(listParam(p.host_aliases) !== undefined ? { aliases: listParam(p.host_aliases) } : {}),
    target: textParam(p.target) ?? "/etc/ssh/ssh_known_hosts",
  };
}

function validate(resource: CatalogResource): string[] {
  const problems: string[] = [];
  const s = spec(resource);
  if (/\s/.test(s.name)) problems.push("Resourcename cannot include whitespaces");
  if (s.name.includes(","))
    problems.push(
      "No comma in resourcename allowed. If you want to specify aliases use the host_aliases property",
    );
  if (s.type !== undefined && !TYPES.has(s.type))
    problems.push(`Invalid value ${JSON.stringify(s.type)}. Valid values are ${[...TYPES].join(", ")}.`);
  for (const a of s.aliases ?? []) {
    if (/\s/.test(a)) problems.push("Aliases cannot include whitespace");
    else if (a.includes(","))
      problems.push("Aliases must be provided as an array, not a comma-separated list");
  }
  if (s.key !== undefined && /\s/.test(s.key)) problems.push(`Key must not contain whitespace: ${s.key}`);
  return problems;
}

function differences(s: SshkeySpec, found: KnownHost): Change[] {
  const changes: Change[] = [];
  if (s.key !== undefined && s.key !== found.key) changes.push(propertyChange("key", found.key, s.key));
  if (s.aliases !== undefined && s.aliases.join(",") !== found.aliases.join(","))
    changes.push(propertyChange("host_aliases", found.aliases.join(","), s.aliases.join(",")));
  return changes;
}

async function apply(
  resource: CatalogResource,
  context: ApplyContext,
  beforeWrite?: BeforeWrite,
): Promise<ResourceResult> {
  const s = spec(resource);
  const result = ensureRecord<KnownHost>(
    {
      target: s.target,
      format: knownHostsFormat,
      matches: (h) => h.name === s.name && h.type === s.type,
      ensure: s.ensure,
      differences: (found) => differences(s, found),
      desired: (found) => {
        if (found) return { ...found, key: s.key ?? found.key, aliases: s.aliases ?? found.aliases };
        if (s.type === undefined) return "Type is a required attribute for sshkey";
        return { name: s.name, aliases: s.aliases ?? [], type: s.type, key: s.key ?? "" };
      },
      fileMode: 0o644,
    },
    { dryRun: context.noop, beforeWrite: beforeWrite },
  );
  const values = (property: string) => {
    if (property === "host_aliases")
      return { previous: [...(result.found?.aliases ?? [])], desired: [...(s.aliases ?? [])] };
    return { previous: result.found?.key ?? "", desired: s.key ?? "" };
  };
  return recordResult("sshkey", result, s.ensure, context.noop, values, "parsed", (m) =>
    context.logger.error(m),
  );
}

export const sshkeyType: ResourceType = { name: "sshkey", validate, apply: withFileBackup("sshkey", apply) };
