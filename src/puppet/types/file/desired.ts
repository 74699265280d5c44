/**
 * What a file resource wants once its `source` is read: Puppet copies the
 * source's checksum into `content`, its kind into `ensure` (a managed
 * link's destination into `target`), and, with `source_permissions`, its
 * owner, group and mode into those left unset.
 */
import { readFileSync } from "node:fs";
import type { ApplyContext } from "../../../catalog/resource-type.js";
import { checksumOf } from "./checksum.js";
import { inspectPath } from "../../../providers/files/index.js";
import type { FileEnsure, FileSpec } from "./params.js";
import { findSource, type SourceMetadata } from "./source.js";

export interface DesiredContent {
  /** `{sha256}…`, as messages show it. */
  readonly sum: string;
  /** The bytes, when the catalog holds them (`content`): compared as they are, no digest needed. */
  readonly bytes?: Uint8Array;
  /** The bytes, read when they are written. */
  read(): Uint8Array;
}

export interface Desired {
  readonly ensure?: FileEnsure;
  readonly content?: DesiredContent;
  readonly target?: string;
  readonly mode?: string;
  readonly owner?: string;
  readonly group?: string;
  readonly source?: SourceMetadata;
}

/** A source that could not be found or read: the resource fails with this. */
export class SourceError extends Error {}

function fromSource(spec: FileSpec, meta: SourceMetadata): Desired {
  const managedLink = meta.ftype === "link" && spec.links === "manage";
  const content =
    meta.ftype !== "directory" && !managedLink && meta.checksum
      ? { sum: meta.checksum, read: () => readFileSync(meta.fullPath) }
      : undefined;
  const copy =
    spec.sourcePermissions === "use" ||
    (spec.sourcePermissions === "use_when_creating" && inspectPath(spec.path).kind === "absent");
  const root = process.getuid?.() === 0;
  let ensure: FileEnsure | undefined = spec.ensure;
  let target = spec.target;
  if (ensure !== "absent") {
    if (meta.ftype === "directory") ensure = "directory";
    else if (meta.ftype === "link" && !managedLink) ensure = "present";
    else if (managedLink) {
      ensure = "link";
      target = meta.destination;
    } else ensure = "file";
  }
  return {
    ensure,
    content,
    target,
    mode: spec.mode ?? (copy ? meta.mode.toString(8) : undefined),
    owner: spec.owner ?? (copy && root ? String(meta.uid) : undefined),
    group: spec.group ?? (copy && root ? String(meta.gid) : undefined),
    source: meta,
  };
}

/** Content the catalog holds: its digest computed only when a message or report needs it. */
function inMemory(bytes: Uint8Array, spec: FileSpec): DesiredContent {
  let sum: string | undefined;
  return {
    get sum(): string {
      sum ??= checksumOf(bytes, spec.checksum);
      return sum;
    },
    bytes,
    read: () => bytes,
  };
}

/** The resource's wanted state; throws a SourceError when no source can be read. */
export function desiredState(spec: FileSpec, context: ApplyContext): Desired {
  if (spec.source) {
    const meta = findSource(spec.source, {
      modulePath: context.run.modulePath ?? [],
      follow: spec.links === "follow",
      checksum: spec.checksum,
    });
    if (!meta)
      throw new SourceError(
        `Could not retrieve information from environment ${context.catalog.environment} source(s) ${spec.source.join(", ")}`,
      );
    return fromSource(spec, meta);
  }
  const bytes = spec.content;
  return {
    ensure: spec.ensure,
    content: bytes ? inMemory(bytes, spec) : undefined,
    target: spec.target,
    mode: spec.mode,
    owner: spec.owner,
    group: spec.group,
  };
}
