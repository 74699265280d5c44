/**
 * Puppet's `host` (host_core's type over its parsed provider): an entry of
 * a hosts file (`target`, `/etc/hosts` by default) with an address,
 * aliases in order and a comment, created, changed or removed through the
 * shared hosts provider. Parameters are checked as host_core checks them.
 */
import type { CatalogResource } from "../../catalog/model.js";
import type {
  ApplyContext,
  ResourceEvent,
  ResourceResult,
  ResourceType,
} from "../../catalog/resource-type.js";
import type { Change } from "../../providers/change.js";
import { ensureHost, type HostEntry, type HostSpec } from "../../providers/hosts/index.js";
import { ensureEvent, listParam, type PropertyDiff, propertyEvent, textParam } from "./property-change.js";
import { type BeforeWrite, withFileBackup } from "./parsed-record.js";

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const HOST_PART = /^([\w]+|[\w][\w-]+[\w])$/;

function validIp(ip: string): boolean {
  if (/[\r\n]/.test(ip)) return false;
  const v4 = IPV4.exec(ip);
  if (v4) return v4.slice(1).every((n) => Number(n) <= 255);
  // IPv6: hex groups and at most one `::`, optionally ending in IPv4, optionally `%zone`.
  const [address = "", ...zone] = ip.trim().split("%");
  if (zone.length > 1 || (zone.length === 1 && zone[0] === "")) return false;
  return validV6(address);
}

function validV6(address: string): boolean {
  const halves = address.split("::");
  if (halves.length > 2) return false;
  const groups = halves.flatMap((h) => (h === "" ? [] : h.split(":")));
  const last = groups.at(-1) ?? "";
  const v4 = IPV4.test(last);
  if (
    v4 &&
    !IPV4.exec(last)
      ?.slice(1)
      .every((n) => Number(n) <= 255)
  )
    return false;
  const hex = v4 ? groups.slice(0, -1) : groups;
  if (!hex.every((g) => /^[0-9A-Fa-f]{1,4}$/.test(g))) return false;
  const count = hex.length + (v4 ? 2 : 0);
  return halves.length === 2 ? count <= 7 : count === 8;
}

function validateHost(resource: CatalogResource): string[] {
  const problems: string[] = [];
  const p = resource.parameters;
  const name = textParam(p.name) ?? resource.title;
  if (name.split(".").some((part) => !HOST_PART.test(part))) problems.push("Invalid host name");
  if (/[\r\n]/.test(name)) problems.push("Hostname cannot include newline");
  const ip = textParam(p.ip);
  if (ip !== undefined && !validIp(ip)) problems.push(`Invalid IP address ${JSON.stringify(ip)}`);
  for (const alias of listParam(p.host_aliases) ?? []) {
    if (/\s/.test(alias)) problems.push("Host aliases cannot include whitespace");
    else if (alias === "")
      problems.push("Host aliases cannot be an empty string. Use an empty array to delete all host_aliases ");
  }
  const comment = textParam(p.comment);
  if (comment !== undefined && /[\r\n]/.test(comment)) problems.push("Comment cannot include newline");
  const ensure = p.ensure;
  if (ensure !== undefined && ensure !== "present" && ensure !== "absent")
    problems.push(`Invalid value ${JSON.stringify(ensure)}. Valid values are present, absent.`);
  return problems;
}

function hostSpec(resource: CatalogResource): HostSpec {
  const p = resource.parameters;
  return {
    name: textParam(p.name) ?? resource.title,
    ensure: p.ensure === "absent" ? "absent" : "present",
    ip: textParam(p.ip),
    aliases: listParam(p.host_aliases),
    comment: textParam(p.comment),
    target: textParam(p.target) ?? "/etc/hosts",
  };
}

/** A property's values as Puppet's host reports them (aliases: the list found, the words wanted). */
function diffOf(change: Change, found: HostEntry | undefined): PropertyDiff {
  if (change.property === "host_aliases") {
    const previous = found ? [...found.aliases] : [];
    return { property: change.property, previous, desired: change.new ?? "", previousText: change.old ?? "" };
  }
  return { property: change.property, previous: change.old ?? "", desired: change.new ?? "" };
}

function events(result: ReturnType<typeof ensureHost>, spec: HostSpec, noop: boolean): ResourceEvent[] {
  const failed = result.status === "failed";
  const status: ResourceEvent["status"] = noop ? "noop" : failed ? "failure" : "success";
  return result.changes.map((change, i) => {
    const error = failed && i === 0 ? result.error : undefined;
    if (change.property === "ensure") return ensureEvent("host", spec.ensure, status, error);
    return propertyEvent(diffOf(change, result.found), status, error);
  });
}

async function applyHost(
  resource: CatalogResource,
  context: ApplyContext,
  beforeWrite?: BeforeWrite,
): Promise<ResourceResult> {
  const spec = hostSpec(resource);
  const result = ensureHost(spec, { dryRun: context.noop, beforeWrite: beforeWrite });
  const failed = result.status === "failed" ? (result.error ?? "failed") : undefined;
  if (failed && result.changes.length === 0) context.logger.error(failed);
  return { events: events(result, spec, context.noop), failed, provider: "parsed" };
}

export const hostType: ResourceType = {
  name: "host",
  validate: validateHost,
  apply: withFileBackup("host", applyHost),
};
