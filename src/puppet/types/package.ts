/**
 * Puppet's `package` on Debian, over the apt/dpkg provider: `ensure`
 * (present/installed, absent, purged, latest or a version), `name` (the
 * title by default), `provider` (apt, the default, or dpkg), `source` (a
 * .deb file), `install_options`, `configfiles`. Events are worded as
 * Puppet 7.23's: `created`, `removed`, `purged`, `ensure changed '1.0' to
 * '2.0'`; in noop `current_value 'purged', should be 'present' (noop)`.
 */
import type { CatalogResource, ParamValue } from "../../catalog/model.js";
import type {
  ApplyContext,
  ResourceEvent,
  ResourceResult,
  ResourceType,
} from "../../catalog/resource-type.js";
import { type DebPackageRequest, type DebTool, ensureDebPackage } from "../../providers/packages/debian.js";
import type { ToolRunner } from "../../providers/tool-runner.js";

const PROVIDERS: readonly DebTool[] = ["apt", "dpkg"];
const SPECIAL = new Set(["present", "installed", "absent", "purged", "latest"]);

function text(value: ParamValue | undefined): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

/** Puppet's join_options: strings as they are, `{k => v}` as `k=v`. */
export function joinOptions(value: ParamValue | undefined): string[] {
  const items = value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
  const out: string[] = [];
  for (const item of items as ParamValue[]) {
    if (typeof item === "object" && item !== null && !Array.isArray(item))
      for (const [k, v] of Object.entries(item)) out.push(`${k}=${text(v) ?? ""}`);
    else out.push(text(item) ?? "");
  }
  return out;
}

/** The ensure wanted, `installed` read as `present` (as Puppet's alias). */
function ensureOf(resource: CatalogResource): string {
  const value = text(resource.parameters.ensure) ?? "present";
  return value === "installed" ? "present" : value;
}

function requestOf(resource: CatalogResource): DebPackageRequest {
  const p = resource.parameters;
  const configfiles = p.configfiles === "replace" ? "replace" : "keep";
  return {
    name: text(p.name) ?? resource.title,
    ensure: ensureOf(resource),
    tool: p.provider === "dpkg" ? "dpkg" : "apt",
    source: text(p.source),
    installOptions: joinOptions(p.install_options),
    configfiles,
  };
}

function validate(resource: CatalogResource): string[] {
  const p = resource.parameters;
  const problems: string[] = [];
  const provider = text(p.provider);
  if (provider !== undefined && !PROVIDERS.includes(provider as DebTool))
    problems.push(`parameter 'provider': tend manages packages with apt or dpkg, not '${provider}'`);
  if (p.ensure !== undefined && text(p.ensure) === undefined)
    problems.push("parameter 'ensure' must be present, absent, purged, latest or a version");
  if (p.configfiles !== undefined && p.configfiles !== "keep" && p.configfiles !== "replace")
    problems.push("parameter 'configfiles' must be keep or replace");
  if (p.name !== undefined && typeof p.name !== "string")
    problems.push(`Name must be a String not ${Array.isArray(p.name) ? "Array" : typeof p.name}`);
  return problems;
}

const quoted = (value: string): string => `'${value}'`;

/** Puppet's change_to_s for the package's ensure. */
export function ensureChangeMessage(found: string, wanted: string, shown: string): string {
  if (wanted === "purged") return "purged";
  const gone = found === "absent" || found === "purged";
  if (gone && wanted !== "absent") return "created";
  if (wanted === "absent") return "removed";
  return `ensure changed ${quoted(found)} to ${quoted(shown)}`;
}

/** The event name Puppet's ensure values give (a version or latest: installed only from `absent`). */
function eventName(found: string, wanted: string): string {
  if (wanted === "present") return "package_installed";
  if (wanted === "absent") return "package_removed";
  if (wanted === "purged") return "package_purged";
  return found === "absent" ? "package_installed" : "package_changed";
}

/** How a failed install of a version or latest is worded (Puppet's `Could not update:`). */
function failureDetail(wanted: string, error: string): string {
  return SPECIAL.has(wanted) && wanted !== "latest" ? error : `Could not update: ${error}`;
}

/** Applies one package resource; `run` replaces the system's tools (tests). */
export async function applyPackage(
  resource: CatalogResource,
  context: ApplyContext,
  run?: ToolRunner,
): Promise<ResourceResult> {
  const request = requestOf(resource);
  const result = ensureDebPackage(request, { noop: context.noop, run });
  const provider = request.tool;
  const wanted = request.ensure;
  const found = result.found ?? "purged";
  const change = result.changes[0];
  if (result.status === "failed" && change === undefined)
    return { events: [], failed: result.error ?? "failed", provider };
  if (change === undefined) return { events: [], provider };
  const shown = result.latest ?? wanted;
  const base = {
    property: "ensure",
    previousValue: found,
    desiredValue: wanted,
    name: eventName(found, wanted),
  };
  let event: ResourceEvent;
  if (result.status === "failed") {
    const detail = failureDetail(wanted, result.error ?? "failed");
    const message = `change from ${quoted(found)} to ${quoted(shown)} failed: ${detail}`;
    event = { ...base, status: "failure", message };
    return { events: [event], failed: message, provider };
  }
  if (context.noop)
    event = {
      ...base,
      status: "noop",
      message: `current_value ${quoted(found)}, should be ${quoted(shown)} (noop)`,
    };
  else event = { ...base, status: "success", message: ensureChangeMessage(found, wanted, shown) };
  return { events: [event], provider };
}

export const packageType: ResourceType = {
  name: "package",
  validate,
  apply: (resource, context) => applyPackage(resource, context),
};
