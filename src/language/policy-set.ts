import type { PolicyFile } from "./ast.js";
import type { SourceFile } from "./source.js";

/** One file of policy: its text and its tree. */
export interface ParsedFile {
  readonly source: SourceFile;
  readonly policy: PolicyFile;
}

/**
 * All files of one policy as loaded (entry file first, then its inputs in
 * load order). Validation and evaluation work on a whole set, since bundles
 * and bodies may be defined in any file.
 */
export interface PolicySet {
  readonly files: readonly ParsedFile[];
}
