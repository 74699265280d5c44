/**
 * Puppet's `group` (its groupadd provider on Linux) over the shared users
 * provider: a group created (with a gid, as a system group, a duplicate
 * gid with `allowdupe`), its gid changed, or removed. As Puppet 7.23's
 * groupadd provider without libuser, `members` is not managed (logged at
 * debug level); the provider can manage members for other front ends.
 */
import type { CatalogResource, ParamValue } from "../../catalog/model.js";
import type {
  ApplyContext,
  ResourceEvent,
  ResourceResult,
  ResourceType,
} from "../../catalog/resource-type.js";
import { ensureGroup, type GroupSpec } from "../../providers/users/index.js";
import { ensureEvent, propertyEvent, textParam } from "./property-change.js";

function booleanParam(value: ParamValue | undefined): boolean {
  return value === true || value === "true" || value === "yes";
}

function validateGroup(resource: CatalogResource): string[] {
  const p = resource.parameters;
  const problems: string[] = [];
  const gid = textParam(p.gid);
  if (gid !== undefined && !/^\d+$/.test(gid)) problems.push(`Invalid GID ${gid}`);
  const ensure = textParam(p.ensure);
  if (ensure !== undefined && !["present", "absent"].includes(ensure))
    problems.push(`Invalid value ${JSON.stringify(ensure)}. Valid values are present, absent.`);
  return problems;
}

function groupSpec(resource: CatalogResource): GroupSpec {
  const p = resource.parameters;
  const gid = textParam(p.gid);
  return {
    name: textParam(p.name) ?? resource.title,
    ensure: p.ensure === "absent" ? "absent" : "present",
    gid: gid === undefined ? undefined : Number(gid),
    system: booleanParam(p.system),
    allowDuplicate: booleanParam(p.allowdupe),
  };
}

async function applyGroup(resource: CatalogResource, context: ApplyContext): Promise<ResourceResult> {
  const spec = groupSpec(resource);
  if (resource.parameters.members !== undefined)
    context.logger.debug(
      "Provider groupadd does not support features manages_members; not managing attribute members",
    );
  const root = typeof context.run.root === "string" ? context.run.root : undefined;
  const result = ensureGroup(spec, { dryRun: context.noop, root });
  const failed = result.status === "failed" ? (result.error ?? "failed") : undefined;
  const status: ResourceEvent["status"] = context.noop ? "noop" : failed ? "failure" : "success";
  const events = result.changes.map((change) => {
    if (change.property === "ensure") return ensureEvent("group", spec.ensure, status, failed);
    const diff = {
      property: change.property,
      previous: result.found?.gid ?? "absent",
      desired: spec.gid ?? "absent",
    };
    return propertyEvent(diff, status, failed);
  });
  if (failed && events.length === 0) context.logger.error(failed);
  return { events, failed, provider: "groupadd" };
}

export const groupType: ResourceType = {
  name: "group",
  validate: validateGroup,
  apply: applyGroup,
};
