/**
 * The contract between the applier and a resource type. A type is a thin
 * layer of one front end's semantics (Puppet's `file`, a recipe's
 * `template`) over a provider of src/providers: it reads the resource's
 * parameters, asks the provider to inspect, diff and change, and turns the
 * provider's changes into events. The applier owns order, refresh, failure
 * propagation, noop and the report.
 */
import type { Logger } from "../system/logger.js";
import type { Catalog, CatalogResource, ParamValue } from "./model.js";

/** One property's change, as the report shows it (Puppet's event). */
export interface ResourceEvent {
  /** `ensure`, `content`, `mode`... or `message` for notify. */
  readonly property: string;
  readonly previousValue?: ParamValue;
  readonly desiredValue?: ParamValue;
  /** `defined content as '{sha256}...'`, `mode changed '0644' to '0600'`... */
  readonly message: string;
  /** success: changed; noop: would change; failure: tried and failed; audit: audited only. */
  readonly status: "success" | "failure" | "noop" | "audit";
  /** Event name, as Puppet's: `file_created`, `content_changed`, `mode_changed`... */
  readonly name?: string;
  /** Puppet's historical_value (audit); absent is null in the report. */
  readonly historicalValue?: ParamValue;
  /** The values are secret and were replaced by `[redacted]`. */
  readonly redacted?: boolean;
  /** The change repaired drift from the value the previous run set. */
  readonly correctiveChange?: boolean;
  /**
   * This change makes a pending refresh of the resource pointless (a service
   * just started need not restart): the applier drops the refresh queued for it.
   */
  readonly invalidatesRefresh?: boolean;
}

/** What one evaluation of a resource did. */
export interface ResourceResult {
  readonly events: readonly ResourceEvent[];
  /** Set when the resource failed; the applier skips what depends on it. */
  readonly failed?: string;
  /** The provider the type used (`posix`, `apt`, `systemd`...), for the report. */
  readonly provider?: string;
  /**
   * Called by the applier once the events are logged: for messages a
   * provider gives after its properties changed (Puppet's flush: a parsed
   * file's backup is logged after the changes that caused it).
   */
  readonly afterEvents?: () => void;
}

/** What the applier hands a type for one resource. */
export interface ApplyContext {
  /** Noop for this resource (global noop, or its own `noop` parameter). */
  readonly noop: boolean;
  /** Messages meant for the run's log, tied to this resource by the applier. */
  readonly logger: Logger;
  /**
   * Messages of the run not tied to the resource (Puppet's source `Puppet`:
   * a notify's message, an exec's error before its event). Absent when the
   * caller has none; use `logger` then.
   */
  readonly runLogger?: Logger;
  /**
   * Messages tied to one property of the resource (Puppet's source
   * `/Stage[main]/Main/Exec[x]/returns`: an exec's output, a notify with
   * `withpath`). Absent when the caller has none; use `logger` then.
   */
  readonly propertyLogger?: (property: string) => Logger;
  /**
   * Messages of the resource's provider (Puppet's source
   * `Mount[/mnt](provider=parsed)`: a mount's "Remounting"). Absent when
   * the caller has none; use `logger` then.
   */
  readonly providerLogger?: (provider: string) => Logger;
  /** Per-run state of the front end's choosing (puppet's vardir, module paths...). */
  readonly run: RunSettings;
  /** The whole catalog, for types that gather others (concat's fragments). */
  readonly catalog: Catalog;
}

/** Settings of one run that types may need; front ends extend it. */
export interface RunSettings {
  /** Search path of modules, for `puppet:///modules/<module>/<file>` sources. */
  readonly modulePath?: readonly string[];
  /** Where file backups go (Puppet's local filebucket), when backing up to a bucket. */
  readonly bucketDir?: string;
  /** Anything else a front end passes down to its own types. */
  readonly [key: string]: unknown;
}

export interface ResourceType {
  /** Lower-case, as in the catalog's `type` lower-cased: `file`, `exec`, `concat::fragment`. */
  readonly name: string;
  /**
   * Checks the parameters before anything runs; each string is a problem
   * (`parameter 'mode' must be ...`). The applier fails the run on any.
   */
  validate?(resource: CatalogResource): readonly string[];
  /**
   * Brings the resource to its desired state (or, in noop, says what would
   * change). A type that never waits may return the result itself: the
   * applier then goes on without a turn of the microtask queue.
   */
  apply(resource: CatalogResource, context: ApplyContext): Promise<ResourceResult> | ResourceResult;
  /**
   * Resources made at apply time, just before this one is applied (Puppet's
   * eval_generate: a recursive file's children, purged files). They are
   * applied right after it, depend on it, and are reported as resources of
   * their own.
   */
  generate?(resource: CatalogResource, context: ApplyContext): Promise<readonly CatalogResource[]>;
  /**
   * False when `generate` would make nothing for this resource (a file
   * that does not recurse): the applier then does not call it. Absent:
   * generate is called for every resource of the type.
   */
  generates?(resource: CatalogResource): boolean;
  /**
   * Runs the resource's refresh (an exec's command, a service's restart)
   * once, when it received events. Types without it ignore refresh events.
   */
  refresh?(resource: CatalogResource, context: ApplyContext): Promise<ResourceResult>;
  /**
   * True when this resource refreshes itself after a change of its own
   * (Puppet's self_refresh: a mount remounts). The applier then queues one
   * event per distinct event name of the change to the resource's own
   * `refresh`, which runs once right after its apply, together with any
   * refresh events it received (`Triggered 'refresh' from N events`). Puppet
   * answers false for a resource being removed (`ensure => absent`).
   * Ignored for types without `refresh`.
   */
  selfRefresh?(resource: CatalogResource): boolean;
  /**
   * True when applying the resource replaces no directory but through
   * system/safe-fs.ts, which notes such changes itself: no command runs,
   * no other process is asked to act. The applier then lets the next
   * resources use the directories checked so far without looking at them
   * again (see reuseCheckedDirectories). Absent or false: anything may
   * happen while it is applied.
   */
  keepsDirectories?(resource: CatalogResource): boolean;
  /**
   * References (`File[/etc]`) this resource depends on when they are in the
   * catalog (Puppet's autorequire: a file its parent directory, an exec its
   * cwd). Never contradicts a relationship the catalog states.
   */
  autorequire?(resource: CatalogResource): readonly string[];
}
