/**
 * What every provider hands back: the properties it changed (or, in noop,
 * would change), as data. Front ends turn these into their own messages,
 * events and outcome classes; a provider never decides how a change is
 * reported.
 */

/** One property brought to its desired value (or found different, in noop). */
export interface Change {
  /** The property's name as the provider knows it: `content`, `mode`, `owner`, `ensure`... */
  readonly property: string;
  /** The value found, as text; absent when there was none (a file that did not exist). */
  readonly old?: string;
  /** The value wanted, as text; absent for a removal. */
  readonly new?: string;
  /** One human sentence about the change. */
  readonly message: string;
  /** False in noop, and for a change that was tried and failed. */
  readonly applied: boolean;
}

/** Where a provider's inspect, diff and change ended. */
export type ProviderStatus = "unchanged" | "changed" | "failed";

/** A provider's answer for one managed thing. */
export interface ProviderResult {
  readonly status: ProviderStatus;
  readonly changes: readonly Change[];
  /** Why it failed, when it did. */
  readonly error?: string;
}
