/**
 * Puppet's `notify`: logs its message and reports the change, on every run
 * (its `message` is never in sync). Without `withpath` the message is logged
 * as Puppet's own (`Notice: Hi there`); with it, under the resource's path.
 * In noop nothing is logged but the pending change.
 */
import type { CatalogResource, ParamValue } from "../../catalog/model.js";
import type { ApplyContext, ResourceResult, ResourceType } from "../../catalog/resource-type.js";
import type { LogLevel } from "../../system/logger.js";
import { definedMessage, noopMessage } from "../format.js";
import { puppetLogLevel, runLog } from "../run-settings.js";

/** The desired message: the title by default; of an array, its first value (as Puppet's `should`). */
function desiredMessage(resource: CatalogResource): ParamValue {
  const value = resource.parameters.message ?? resource.title;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

function messageText(value: ParamValue): string {
  if (typeof value === "string") return value;
  return typeof value === "object" && value !== null ? JSON.stringify(value) : String(value);
}

function withPath(resource: CatalogResource): boolean {
  const value = resource.parameters.withpath;
  return value === true || value === "true";
}

async function applyNotify(resource: CatalogResource, context: ApplyContext): Promise<ResourceResult> {
  const desired = desiredMessage(resource);
  const base = {
    property: "message",
    previousValue: "absent",
    desiredValue: desired,
    name: "message_changed",
  };
  if (context.noop) {
    return { events: [{ ...base, status: "noop", message: noopMessage("absent", desired) }] };
  }
  const level: LogLevel = puppetLogLevel(resource.parameters.loglevel);
  const sensitive = resource.parameters.message !== undefined && isSensitive(resource.parameters.message);
  const text = sensitive ? "Sensitive [value redacted]" : messageText(desired);
  if (withPath(resource)) (context.propertyLogger?.("message") ?? context.logger).log(level, text);
  else runLog(context).log(level, text);
  return { events: [{ ...base, status: "success", message: definedMessage("message", desired) }] };
}

/** A Sensitive value as a catalog carries it (`{"__ptype": "Sensitive", ...}`). */
function isSensitive(value: ParamValue): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) && "__ptype" in value;
}

export const notifyType: ResourceType = {
  name: "notify",
  validate(resource) {
    const withpath = resource.parameters.withpath;
    if (withpath === undefined || [true, false, "true", "false"].includes(withpath as string | boolean))
      return [];
    return [`parameter 'withpath' must be true or false, not ${JSON.stringify(withpath)}`];
  },
  apply: applyNotify,
};
