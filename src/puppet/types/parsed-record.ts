/**
 * Shared by the Puppet types over the parsed-file records provider
 * (sshkey, ssh_authorized_key, mailalias, mount): the provider's changes
 * turned into Puppet's events (`created`, `removed`, `key changed 'a' to
 * 'b'`, in noop `current_value ..., should be ... (noop)`).
 */
import type { ParamValue } from "../../catalog/model.js";
import type { ResourceEvent, ResourceResult } from "../../catalog/resource-type.js";
import type { RecordResult } from "../../providers/parsed-file/index.js";
import { ensureEvent, type PropertyDiff, propertyEvent } from "./property-change.js";

/** The report's values of a changed property (lists as arrays), from the found and wanted records. */
export type PropertyValues = (property: string) => { previous: ParamValue; desired: ParamValue };

export function recordEvents<R>(
  type: string,
  result: RecordResult<R>,
  ensure: "present" | "absent",
  noop: boolean,
  values: PropertyValues,
): ResourceEvent[] {
  const failed = result.status === "failed";
  const status: ResourceEvent["status"] = noop ? "noop" : failed ? "failure" : "success";
  return result.changes.map((change, i) => {
    const error = failed && i === 0 ? result.error : undefined;
    if (change.property === "ensure") return ensureEvent(type, ensure, status, error);
    const diff: PropertyDiff = { property: change.property, ...values(change.property) };
    return propertyEvent(diff, status, error);
  });
}

export function recordResult<R>(
  type: string,
  result: RecordResult<R>,
  ensure: "present" | "absent",
  noop: boolean,
  values: PropertyValues,
  provider: string,
  log: (message: string) => void,
): ResourceResult {
  const failed = result.status === "failed" ? (result.error ?? "failed") : undefined;
  if (failed && result.changes.length === 0) log(failed);
  return {
    events: recordEvents(type, result, ensure, noop, values),
    ...(failed ? { failed } : {}),
    provider,
  };
}
