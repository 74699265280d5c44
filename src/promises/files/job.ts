/**
 * One files promise being kept: the promise and its environment, and its
 * attributes read once (bodies, perms, file selection), shared by every
 * path the promise acts on.
 */
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import type { FilesAttributes } from "./attributes.js";
import type { FileSelect } from "./file-select.js";
import type { PermsSpec } from "./perms.js";

export interface FilesJob {
  readonly promise: ActivePromise;
  readonly env: PromiseEnvironment;
  readonly attrs: FilesAttributes;
  readonly perms: PermsSpec;
  readonly select: FileSelect | undefined;
  /** `repository` of the promise, if given. */
  readonly repository: string | undefined;
  /** Whether the promiser is a pattern standing for the paths that match it. */
  readonly pattern: boolean;
  /** Whether the promise asks for nothing at all (warned about for each path). */
  readonly noAction: boolean;
}
