/**
 * Puppet's `user` (its useradd provider on Linux) over the shared users
 * provider: an account created (home from /etc/skel with `managehome`, a
 * system account, a duplicate uid with `allowdupe`), changed one property
 * at a time (home, uid, gid by name or number, comment, shell, password
 * hash, groups with `membership` minimum or inclusive, expiry) or removed
 * (its home too with `managehome`). Events and messages are Puppet 7.23's.
 */
import type { CatalogResource, ParamValue } from "../../catalog/model.js";
import type {
  ApplyContext,
  ResourceEvent,
  ResourceResult,
  ResourceType,
} from "../../catalog/resource-type.js";
import type { Change } from "../../providers/change.js";
import { type AccountSpec, type AccountState, ensureAccount } from "../../providers/users/index.js";
import {
  displayValue,
  ensureEvent,
  listParam,
  type PropertyDiff,
  propertyEvent,
  textParam,
} from "./property-change.js";

function booleanParam(value: ParamValue | undefined): boolean {
  return value === true || value === "true" || value === "yes";
}

function validateUser(resource: CatalogResource): string[] {
  const p = resource.parameters;
  const problems: string[] = [];
  const uid = textParam(p.uid);
  if (uid !== undefined && !/^-?\d+$/.test(uid))
    problems.push(`Parameter uid failed: uid must be numeric, not ${uid}`);
  for (const group of listParam(p.groups) ?? []) {
    if (/^\d+$/.test(group)) problems.push("Group names must be provided, not GID numbers.");
    else if (group.includes(","))
      problems.push("Group names must be provided as an array, not a comma-separated list.");
    else if (group === "")
      problems.push('Group names must not be empty. If you want to specify "no groups" pass an empty array');
  }
  const expiry = textParam(p.expiry);
  if (expiry !== undefined && expiry !== "absent" && !/^\d{4}-\d{2}-\d{2}$/.test(expiry))
    problems.push('Expiry dates must be YYYY-MM-DD or the string "absent"');
  const password = textParam(p.password);
  if (password?.includes(":")) problems.push("Passwords cannot include ':'");
  const membership = textParam(p.membership);
  if (membership !== undefined && membership !== "minimum" && membership !== "inclusive")
    problems.push(`Invalid value ${JSON.stringify(membership)}. Valid values are inclusive, minimum.`);
  const ensure = textParam(p.ensure);
  if (ensure !== undefined && !["present", "absent"].includes(ensure))
    problems.push(`Invalid value ${JSON.stringify(ensure)}. Valid values are present, absent.`);
  return problems;
}

function userSpec(resource: CatalogResource): AccountSpec {
  const p = resource.parameters;
  const gid = textParam(p.gid);
  const expiry = textParam(p.expiry);
  const uid = textParam(p.uid);
  return {
    name: textParam(p.name) ?? resource.title,
    ensure: p.ensure === "absent" ? "absent" : "present",
    uid: uid === undefined ? undefined : Number(uid),
    gid: gid === undefined ? undefined : /^\d+$/.test(gid) ? Number(gid) : gid,
    comment: textParam(p.comment),
    home: textParam(p.home),
    shell: textParam(p.shell),
    password: textParam(p.password),
    groups: listParam(p.groups),
    groupsInclusive: p.membership === "inclusive",
    expiry: expiry === undefined ? undefined : expiry === "absent" ? null : expiry,
    manageHome: booleanParam(p.managehome),
    system: booleanParam(p.system),
    allowDuplicate: booleanParam(p.allowdupe),
  };
}

/** A property's values as Puppet's user reports them. */
function diffOf(change: Change, found: AccountState | undefined, spec: AccountSpec): PropertyDiff {
  const property = change.property;
  switch (property) {
    case "uid":
      return { property, previous: found?.uid ?? "absent", desired: spec.uid ?? "absent" };
    case "gid":
      return { property, previous: found?.gid ?? "absent", desired: spec.gid ?? "absent" };
    case "password":
      return {
        property,
        previous: "[redacted]",
        desired: "[redacted]",
        previousText: "[redacted]",
        desiredText: "[redacted]",
      };
    case "groups": {
      const previous = [...(found?.groups ?? [])];
      const desired = change.new ?? "";
      return {
        property,
        previous,
        desired,
        previousText: previous.join(","),
        desiredText: displayValue(desired.split(",")),
      };
    }
    default:
      return { property, previous: change.old ?? "absent", desired: change.new ?? "absent" };
  }
}

function events(result: ReturnType<typeof ensureAccount>, spec: AccountSpec, noop: boolean): ResourceEvent[] {
  const failedAt = result.changes.findIndex((c) => !c.applied);
  const status = (i: number): ResourceEvent["status"] =>
    noop ? "noop" : result.status === "failed" && i === failedAt ? "failure" : "success";
  const shown = result.status === "failed" && !noop ? result.changes.slice(0, failedAt + 1) : result.changes;
  return shown.map((change, i) => {
    const error = status(i) === "failure" ? result.error : undefined;
    if (change.property === "ensure") return ensureEvent("user", spec.ensure, status(i), error);
    const event = propertyEvent(diffOf(change, result.found, spec), status(i), error);
    return change.property === "password" && status(i) === "success"
      ? { ...event, message: "changed [redacted] to [redacted]" }
      : event;
  });
}

async function applyUser(resource: CatalogResource, context: ApplyContext): Promise<ResourceResult> {
  const spec = userSpec(resource);
  const root = typeof context.run.root === "string" ? context.run.root : undefined;
  const result = ensureAccount(spec, { dryRun: context.noop, root });
  const failed = result.status === "failed" ? (result.error ?? "failed") : undefined;
  if (failed && result.changes.length === 0) context.logger.error(failed);
  return { events: events(result, spec, context.noop), failed, provider: "useradd" };
}

export const userType: ResourceType = {
  name: "user",
  validate: validateUser,
  apply: applyUser,
  // Its primary group (when named) and its groups, when the catalog manages them.
  autorequire(resource) {
    const gid = textParam(resource.parameters.gid);
    const named = gid !== undefined && !/^\d+$/.test(gid) ? [gid] : [];
    return [...named, ...(listParam(resource.parameters.groups) ?? [])].map((g) => `Group[${g}]`);
  },
};
