/**
 * Extension points for front ends whose semantics are not Puppet's: the
 * TypeScript recipe front end (Chef's model, issue 17) needs guards
 * evaluated right before a resource runs, values computed only then
 * (`lazy`), notifications with a timing, and failures that stop the run or
 * are ignored. The applier calls these hooks at the points documented on
 * each; a front end that passes none gets Puppet's behaviour.
 */
import type { CatalogResource } from "./model.js";
import type { ApplyContext, ResourceResult } from "./resource-type.js";

/** A guard's answer: run the resource, or skip it saying why (`only_if` returned false). */
export type GuardDecision = { readonly run: true } | { readonly run: false; readonly reason: string };

/**
 * When a notification's action runs, relative to the resource that sends it:
 * `immediate` right after it, `delayed` once at the end of the run (however
 * many resources asked, in the order first asked), `before` ahead of it, when
 * a dry run of it shows it would change.
 */
export type NotificationTiming = "immediate" | "delayed" | "before";

export interface Notification {
  /** `Type[title]` of the resource to notify. */
  readonly target: string;
  readonly timing: NotificationTiming;
  /** The action to run (`restart`); the hook `runNotification` interprets it. */
  readonly action?: string;
}

/** What happens to the rest of the run when a resource fails. */
export type FailurePolicy = "skip-dependents" | "stop-run" | "ignore";

export interface ApplierHooks {
  /**
   * Called right before the resource runs, once its dependencies are done
   * and it is not skipped. `{ run: false }` skips it: reported as skipped
   * with the reason, a notice logged, what depends on it still runs. A
   * throw is a failure of the resource.
   */
  guard?(resource: CatalogResource, context: ApplyContext): GuardDecision | Promise<GuardDecision>;
  /**
   * Called after the guard, before validate and apply: returns the resource
   * with values computed now (lazy values). A throw is a failure of the
   * resource.
   */
  resolve?(resource: CatalogResource, context: ApplyContext): CatalogResource | Promise<CatalogResource>;
  /**
   * The notifications a resource sends when it changes, beside the
   * `notify`/`subscribe` edges of the graph (which order resources; these do
   * not).
   */
  notifications?(resource: CatalogResource): readonly Notification[];
  /**
   * Runs a notification's action on its target. Without it the target
   * type's `refresh` runs.
   */
  runNotification?(
    target: CatalogResource,
    action: string | undefined,
    context: ApplyContext,
  ): Promise<ResourceResult>;
  /**
   * In noop, run notifications' actions too (each in noop, so they say what
   * they would do: Chef's why-run), instead of only logging that they would
   * have been sent. Default false.
   */
  readonly runNotificationsInNoop?: boolean;
  /** What a failure of this resource does to the rest of the run; default `skip-dependents` (Puppet's). */
  failurePolicy?(resource: CatalogResource): FailurePolicy;
}
