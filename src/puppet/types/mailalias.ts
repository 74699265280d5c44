/**
 * Puppet's `mailalias` (mailalias_core's type over its aliases provider):
 * an alias line of a mail aliases file (`target`, /etc/aliases by
 * default) with its recipients or an `:include:` file, written through
 * the shared records provider. Puppet does not run newaliases: neither
 * does tend.
 */
import type { CatalogResource } from "../../catalog/model.js";
import type { ApplyContext, ResourceResult, ResourceType } from "../../catalog/resource-type.js";
import type { Change } from "../../providers/change.js";
import { type MailAlias, mailAliasesFormat } from "../../providers/mailaliases/index.js";
import { ensureRecord, propertyChange } from "../../providers/parsed-file/index.js";
import { listParam, textParam } from "./property-change.js";
import { type BeforeWrite, withFileBackup, recordResult } from "./parsed-record.js";

interface AliasSpec {
  readonly name: string;
  readonly ensure: "present" | "absent";
  readonly recipients?: readonly string[];
  readonly file?: string;
  readonly target: string;
}

function spec(resource: CatalogResource): AliasSpec {
  const p = resource.parameters;
  const recipients = listParam(p.recipient);
  const file = textParam(p.file);
  return {
    name: textParam(p.name) ?? resource.title,
    ensure: p.ensure === "absent" ? "absent" : "present",
    ...(recipients !== undefined ? { recipients } : {}),
    ...(file !== undefined ? { file } : {}),
    target: textParam(p.target) ?? "/etc/aliases",
  };
}

function validate(resource: CatalogResource): string[] {
  const s = spec(resource);
  const problems: string[] = [];
  if (s.file !== undefined && !s.file.startsWith("/"))
    problems.push(`File paths must be fully qualified, not '${s.file}'`);
  if (s.recipients !== undefined && s.file !== undefined)
    problems.push("You cannot specify both a recipient and a file");
  return problems;
}

const list = (a: readonly string[] | undefined): string => (a ?? []).join(",");

function differences(s: AliasSpec, found: MailAlias): Change[] {
  const changes: Change[] = [];
  if (s.recipients !== undefined && list(s.recipients) !== list(found.recipients))
    changes.push(propertyChange("recipient", list(found.recipients), list(s.recipients)));
  if (s.file !== undefined && s.file !== found.file)
    changes.push(propertyChange("file", found.file ?? "", s.file));
  return changes;
}

async function apply(
  resource: CatalogResource,
  context: ApplyContext,
  beforeWrite?: BeforeWrite,
): Promise<ResourceResult> {
  const s = spec(resource);
  const result = ensureRecord<MailAlias>(
    {
      target: s.target,
      format: mailAliasesFormat,
      matches: (a) => a.name === s.name,
      ensure: s.ensure,
      differences: (found) => differences(s, found),
      desired: (found) => {
        if (s.recipients !== undefined) return { name: s.name, recipients: s.recipients };
        if (s.file !== undefined) return { name: s.name, file: s.file };
        return found ?? { name: s.name, recipients: [] };
      },
      // Puppet's aliases provider creates the file 0600 (sshkey's says 0644).
      fileMode: 0o600,
    },
    { dryRun: context.noop, beforeWrite: beforeWrite },
  );
  const found = result.found;
  const values = (property: string) => {
    if (property === "file") return { previous: found?.file ?? "absent", desired: s.file ?? "" };
    return {
      previous: found?.recipients ? [...found.recipients] : "absent",
      desired: [...(s.recipients ?? [])],
    };
  };
  return recordResult("mailalias", result, s.ensure, context.noop, values, "aliases", (m) =>
    context.logger.error(m),
  );
}

export const mailaliasType: ResourceType = {
  name: "mailalias",
  validate,
  apply: withFileBackup("mailalias", apply),
};
