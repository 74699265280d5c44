/**
 * Shared by the Puppet types over the parsed-file records provider
 * (sshkey, ssh_authorized_key, mailalias, mount): the provider's changes
 * turned into Puppet's events (`created`, `removed`, `key changed 'a' to
 * 'b'`, in noop `current_value ..., should be ... (noop)`).
 */
import { existsSync, readFileSync } from "node:fs";
import type { CatalogResource, ParamValue } from "../../catalog/model.js";
import type { ApplyContext, ResourceEvent, ResourceResult } from "../../catalog/resource-type.js";
import type { RecordResult } from "../../providers/parsed-file/index.js";
import { type PuppetRunSettings, runLog } from "../run-settings.js";
import { backupToBucket } from "./file/bucket.js";
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

/** Backs a file up before a parsed-file provider rewrites it (see `withFileBackup`). */
export type BeforeWrite = ((target: string) => void) | undefined;

/**
 * A parsed-file type's apply with what Puppet's parsed-file providers do
 * before rewriting a file: the old file goes to the local filebucket
 * (`clientbucketdir`, the layout of file/bucket.ts), once per provider and
 * file in a run, and "Computing checksum on file ..." is logged at info
 * (source Puppet) after the resource's changes, as Puppet's flush logs it.
 * Without a bucket directory nothing is backed up.
 */
export function withFileBackup(
  provider: string,
  apply: (
    resource: CatalogResource,
    context: ApplyContext,
    beforeWrite: BeforeWrite,
  ) => Promise<ResourceResult>,
): (resource: CatalogResource, context: ApplyContext) => Promise<ResourceResult> {
  return async (resource, context) => {
    const run = context.run as PuppetRunSettings;
    const bucketDir = run.bucketDir;
    if (bucketDir === undefined) return apply(resource, context, undefined);
    const logged: string[] = [];
    const beforeWrite = (target: string): void => {
      const key = `${provider}\0${target}`;
      if (run.parsedFileBackups?.has(key) || !existsSync(target)) return;
      logged.push(`Computing checksum on file ${target}`);
      try {
        backupToBucket(bucketDir, target, readFileSync(target));
      } catch (error) {
        throw new Error(
          `Could not back up ${target}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      run.parsedFileBackups?.add(key);
    };
    const result = await apply(resource, context, beforeWrite);
    if (logged.length === 0) return result;
    const log = runLog(context);
    return {
      ...result,
      afterEvents: () => {
        result.afterEvents?.();
        for (const line of logged) log.info(line);
      },
    };
  };
}
