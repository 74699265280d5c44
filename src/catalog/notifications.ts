/**
 * Notifications with a timing, for front ends with Chef's model (the
 * `notifications` hook): unlike Puppet's notify/subscribe edges they do not
 * order resources. `immediate` runs the target's action right after the
 * notifying resource changed; `delayed` queues it, once per target and
 * action, for the end of the run; `before` runs it ahead of the notifying
 * resource when a dry run of that resource shows it would change. In noop
 * (why-run) each would-be action is logged and, when the front end asks
 * (`runNotificationsInNoop`), run in noop to say what it would do.
 */
import type { ApplierHooks, Notification } from "./hooks.js";
import type { CatalogResource } from "./model.js";

/** What the transaction lends the notifications: finding targets, running actions, logging. */
export interface NotificationHost {
  /** The graph vertex of a `Type[title]` reference, if it is a resource of the run. */
  vertexOf(ref: string): number | undefined;
  /** Runs `action` on the target vertex and records it in the target's status. */
  runAction(target: number, action: string | undefined, why: string): Promise<void>;
  /** Logs at the notifying resource. */
  log(level: "notice" | "err", message: string, from: number): void;
}

export class Notifications {
  private readonly delayed: { target: number; action: string | undefined; why: string }[] = [];
  private readonly queuedKeys = new Set<string>();

  constructor(
    private readonly hooks: ApplierHooks,
    private readonly host: NotificationHost,
  ) {}

  /** Whether the front end has notifications at all (the recipes' hook). */
  get active(): boolean {
    return this.hooks.notifications !== undefined;
  }

  /** Whether this resource sends notifications that must run before it. */
  hasBefore(resource: CatalogResource): boolean {
    if (!this.hooks.notifications) return false;
    return this.of(resource).some((n) => n.timing === "before");
  }

  /** `before` notifications, when a dry run said the resource would change. */
  async beforeApply(
    v: number,
    resource: CatalogResource,
    wouldChange: boolean,
    noop: boolean,
  ): Promise<void> {
    if (!wouldChange) return;
    for (const notification of this.of(resource)) {
      if (notification.timing === "before") await this.send(v, resource, notification, noop);
    }
  }

  /** `immediate` and `delayed` notifications of a resource that changed (or would have, in noop). */
  async afterApply(v: number, resource: CatalogResource, changed: boolean, noop: boolean): Promise<void> {
    if (!changed || !this.hooks.notifications) return;
    for (const notification of this.of(resource)) {
      if (notification.timing !== "before") await this.send(v, resource, notification, noop);
    }
  }

  /**
   * Runs the delayed notifications, each target and action once, in the
   * order first queued; those queued while they run (a notified action's
   * own) run after them.
   */
  async flushDelayed(): Promise<void> {
    for (let next = this.delayed.shift(); next !== undefined; next = this.delayed.shift())
      await this.host.runAction(next.target, next.action, next.why);
  }

  private of(resource: CatalogResource): readonly Notification[] {
    return this.hooks.notifications?.(resource) ?? [];
  }

  private async send(
    v: number,
    resource: CatalogResource,
    notification: Notification,
    noop: boolean,
  ): Promise<void> {
    const target = this.host.vertexOf(notification.target);
    const action = notification.action ?? "refresh";
    if (target === undefined) {
      this.host.log("err", `Could not find resource '${notification.target}' to notify (${action})`, v);
      return;
    }
    if (noop) {
      this.host.log(
        "notice",
        `Would have notified ${notification.target} to ${action} (${notification.timing})`,
        v,
      );
      if (!this.hooks.runNotificationsInNoop) return;
    }
    if (notification.timing !== "delayed") {
      await this.host.runAction(target, notification.action, describe(notification, resource));
      return;
    }
    const key = `${target} ${action}`;
    if (this.queuedKeys.has(key)) return;
    this.queuedKeys.add(key);
    this.delayed.push({ target, action: notification.action, why: describe(notification, resource) });
  }
}

function describe(notification: Notification, resource: CatalogResource): string {
  return `${notification.timing} notification from ${resource.type}[${resource.title}]`;
}
