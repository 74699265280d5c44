/**
 * Backing up what a file resource is about to replace or remove, as
 * Puppet's `backup` parameter asks: to a filebucket (the local `puppet`
 * bucket, or a `filebucket` resource of the catalog with a local `path`),
 * or as a copy beside it with a suffix (`.puppet-bak`). A directory goes
 * to a bucket file by file (unless the resource recurses, when its
 * children back themselves up); a link is not backed up to a bucket.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ApplyContext } from "../../../catalog/resource-type.js";
import { backupToBucket } from "./bucket.js";
import { copyPreserving, inspectPath, removePath } from "../../../providers/files/index.js";
import type { FileSpec } from "./params.js";

/** A backup that could not be made; the change that needed it does not happen. */
export class BackupError extends Error {}

/** The bucket directory a backup name resolves to; throws a BackupError worded as Puppet's. */
export function bucketDirectory(name: string, context: ApplyContext): string {
  const declared = context.catalog.resources.find((r) => r.type === "Filebucket" && r.title === name);
  if (declared) {
    const path = declared.parameters.path;
    if (typeof path === "string") return path;
    if (path === false)
      throw new BackupError(`Remote filebucket ${name} is not supported: tend backs up locally only`);
  } else if (name !== "puppet")
    throw new BackupError(`Could not find filebucket ${name} specified in backup`);
  const vardir = context.run.vardir;
  const dir =
    context.run.bucketDir ?? (typeof vardir === "string" ? join(vardir, "clientbucket") : undefined);
  if (!dir) throw new BackupError(`No local filebucket directory for backups to ${name}`);
  return dir;
}

function filesBelow(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return filesBelow(path);
      return entry.isFile() ? [path] : [];
    });
}

function toBucket(spec: FileSpec, name: string, context: ApplyContext): void {
  const found = inspectPath(spec.path);
  const dir = bucketDirectory(name, context);
  let files: string[] = [];
  if (found.kind === "file") files = [spec.path];
  else if (found.kind === "directory" && !spec.recurse) {
    context.logger.info("Recursively backing up to filebucket");
    files = filesBelow(spec.path);
  }
  for (const file of files) {
    const sum = backupToBucket(dir, file, readFileSync(file));
    context.logger.info(`Filebucketed ${file} to ${name} with sum ${sum}`);
  }
}

function toSuffix(spec: FileSpec, suffix: string, context: ApplyContext): void {
  const copy = `${spec.path}${suffix}`;
  const old = inspectPath(copy, { follow: spec.links === "follow" });
  if (old.kind === "directory")
    throw new BackupError(`Will not remove directory backup ${copy}; use a filebucket`);
  if (old.kind !== "absent") {
    context.logger.info(`Removing old backup of type ${old.kind}`);
    const removed = removePath(copy);
    if (removed.status === "failed") throw new BackupError(`Could not remove old backup: ${removed.error}`);
  }
  try {
    copyPreserving(spec.path, copy);
  } catch (error) {
    throw new BackupError(`Could not back ${spec.path} up: ${(error as Error).message}`);
  }
}

/** Backs up what is at the resource's path, if its `backup` asks; throws a BackupError on failure. */
export function performBackup(spec: FileSpec, context: ApplyContext): void {
  if (spec.backup === false || inspectPath(spec.path).kind === "absent") return;
  try {
    if (spec.backup.startsWith(".")) toSuffix(spec, spec.backup, context);
    else toBucket(spec, spec.backup, context);
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(`Could not back up ${spec.path}: ${(error as Error).message}`);
  }
}
