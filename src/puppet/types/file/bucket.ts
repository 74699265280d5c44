/**
 * Puppet's local filebucket (`$vardir/clientbucket`), laid out as Puppet
 * 7.23 writes it: a file's copy under `<d0>/<d1>/…/<d7>/<sum>/contents`
 * (mode 0440, the first eight hex digits of its sha256 as directories,
 * each made 0770), beside `paths` (0640) listing each original path once.
 * A second backup of the same content only adds its path.
 */
import { existsSync, readFileSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { createDirectories, makeDirectory } from "../../../providers/files/index.js";
import { writeFileAtomically } from "../../../system/atomic.js";
import { checksumOf } from "./checksum.js";

/** Where a sum's copy lives in the bucket. */
export function bucketEntry(bucketDir: string, sum: string): string {
  return join(bucketDir, ...sum.slice(0, 8).split(""), sum);
}

function makeDirectories(bucketDir: string, entry: string): void {
  if (!existsSync(bucketDir)) {
    const made = createDirectories(bucketDir, 0o750);
    if (made.failure) throw made.failure.cause ?? new Error(`Could not create ${made.failure.path}`);
  }
  let dir = bucketDir;
  for (const part of entry.slice(bucketDir.length + 1).split("/")) {
    dir = join(dir, part);
    if (existsSync(dir)) continue;
    makeDirectory(dir, 0o770);
  }
}

/**
 * Copies the file at `path` (its bytes `data`) into the bucket and
 * returns its sha256 hex sum. Throws the system error when it cannot.
 */
export function backupToBucket(bucketDir: string, path: string, data: Uint8Array): string {
  const sum = checksumOf(data, "sha256").slice("{sha256}".length);
  const entry = bucketEntry(bucketDir, sum);
  makeDirectories(bucketDir, entry);
  const contents = join(entry, "contents");
  if (existsSync(contents) && Buffer.from(readFileSync(contents)).equals(Buffer.from(data))) {
    const now = new Date();
    utimesSync(contents, now, now);
  } else writeFileAtomically(contents, data, 0o440);
  const pathsFile = join(entry, "paths");
  const paths = existsSync(pathsFile) ? readFileSync(pathsFile, "utf8") : "";
  if (!paths.split("\n").includes(path)) writeFileAtomically(pathsFile, `${paths}${path}\n`, 0o640);
  return sum;
}
