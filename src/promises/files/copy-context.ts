/**
 * What one copy_from operation carries through its recursion: the step
 * that records outcomes, the promise's attributes, the inodes copied so
 * far (to keep hard links between copied files), where backups go, and
 * how links met on the way are made, and where the source is read.
 */
import type { FilesAttributes } from "./attributes.js";
import { type CopySource, LOCAL_SOURCE } from "./copy-source.js";
import type { LinkOptions } from "./links.js";
import { repositoryFor } from "./repository.js";
import type { FileStep } from "./step.js";

export interface CopyContext {
  readonly step: FileStep;
  readonly attrs: FilesAttributes;
  /** Source inode → the destination it was copied to (hard link structure). */
  readonly inodes: Map<number, string>;
  readonly repository: string | undefined;
  /** Links made while copying never fail for a missing target (`when_no_source => force`). */
  readonly links: LinkOptions;
  /** Where the source is read: the local file system or a server. */
  readonly source: CopySource;
}

export function newCopyContext(
  step: FileStep,
  attrs: FilesAttributes,
  repository: string | undefined,
  source: CopySource = LOCAL_SOURCE,
): CopyContext {
  const repo = repositoryFor(step, repository);
  return {
    step,
    attrs,
    inodes: new Map(),
    repository: repo,
    source,
    links: {
      whenNoSource: "force",
      rmdeadlinks: attrs.recursion.rmdeadlinks,
      moveObstructions: attrs.moveObstructions,
      timestamped: attrs.copy.backup === "timestamp",
      repository: repo,
    },
  };
}
