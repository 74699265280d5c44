/**
 * Services, whatever runs them: a backend (systemd, an init script, plain
 * commands) says whether the service runs and is enabled at boot and
 * starts, stops, restarts, enables and disables it; `ensureService`
 * inspects, compares with what is wanted, acts unless noop and returns the
 * changes as data; `restartService` is what a refresh does.
 *
 * A failed action stops there: a service that could not be started is not
 * enabled either.
 */
import type { Change, ProviderResult } from "../change.js";

export type ServiceState = "running" | "stopped";

/** An action's failure, as one line; undefined when it went well. */
export type ActionError = string | undefined;

export interface ServiceBackend {
  /** The provider's name, for reports (`systemd`, `debian`, `init`, `base`). */
  readonly provider: string;
  status(): ServiceState | { readonly error: string };
  /** Whether it starts at boot; absent when the backend cannot tell (base). */
  readonly enabled?: () => boolean | { readonly error: string };
  /** For systemd's static and indirect units: enabling means nothing, so any wish holds. */
  readonly enableFixed?: () => boolean;
  start(): ActionError;
  stop(): ActionError;
  restart(): ActionError;
  readonly enable?: () => ActionError;
  readonly disable?: () => ActionError;
}

export interface ServiceWish {
  readonly ensure?: ServiceState;
  readonly enable?: boolean;
  readonly noop: boolean;
}

export interface ServiceResult extends ProviderResult {
  /** The state found before any change. */
  readonly found?: ServiceState;
  readonly foundEnabled?: boolean;
}

function failed(changes: readonly Change[], error: string, found?: ServiceState): ServiceResult {
  return { status: "failed", changes, error, found };
}

/** Brings the service to `wish`; enabling is looked at after running. */
export function ensureService(backend: ServiceBackend, wish: ServiceWish): ServiceResult {
  const changes: Change[] = [];
  const state = backend.status();
  if (typeof state !== "string") return failed([], state.error);
  if (wish.ensure !== undefined && wish.ensure !== state) {
    const act = wish.ensure === "running" ? backend.start : backend.stop;
    const error = wish.noop ? undefined : act.call(backend);
    const message = wish.ensure === "running" ? "started" : "stopped";
    const change = { property: "ensure", old: state, new: wish.ensure, message };
    changes.push({ ...change, applied: !wish.noop && error === undefined });
    if (error !== undefined) return failed(changes, error, state);
  }
  const enabled = wish.enable === undefined ? undefined : checkEnable(backend, wish, changes);
  if (enabled !== undefined && typeof enabled !== "boolean") return failed(changes, enabled.error, state);
  const status = changes.length > 0 ? "changed" : "unchanged";
  return { status, changes, found: state, foundEnabled: enabled };
}

/** Compares and fixes enabling; the state found, or the error. */
function checkEnable(
  backend: ServiceBackend,
  wish: ServiceWish,
  changes: Change[],
): boolean | { readonly error: string } {
  if (!backend.enabled || !backend.enable || !backend.disable)
    return { error: `Provider ${backend.provider} cannot enable or disable services` };
  const enabled = backend.enabled();
  if (typeof enabled !== "boolean") return enabled;
  if (enabled === wish.enable || backend.enableFixed?.()) return enabled;
  const act = wish.enable ? backend.enable : backend.disable;
  const error = wish.noop ? undefined : act.call(backend);
  const message = wish.enable ? "enabled" : "disabled";
  const change = { property: "enable", old: String(enabled), new: String(wish.enable), message };
  changes.push({ ...change, applied: !wish.noop && error === undefined });
  return error === undefined ? enabled : { error };
}

/**
 * A refresh: restarts the service when it runs (a stopped service stays
 * stopped); in noop, says it would.
 */
export function restartService(backend: ServiceBackend, noop: boolean): ServiceResult {
  const state = backend.status();
  if (typeof state !== "string") return failed([], state.error);
  if (state !== "running") return { status: "unchanged", changes: [], found: state };
  const error = noop ? undefined : backend.restart();
  const change = { property: "restart", old: state, new: state, message: "restarted" };
  const changes = [{ ...change, applied: !noop && error === undefined }];
  if (error !== undefined) return failed(changes, error, state);
  return { status: "changed", changes, found: state };
}
