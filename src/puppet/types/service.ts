/**
 * Puppet's `service`, over the services providers: `ensure` (running or
 * stopped, `true`/`false` their aliases), `enable` (true/false), the
 * `status`/`start`/`stop`/`restart` commands, `hasstatus`, `hasrestart`,
 * `binary`, `pattern`, `path`, and `provider`: systemd (the default when
 * systemd runs the machine), debian (the default otherwise), init or base.
 *
 * As Puppet 7.23: when `ensure` is out of sync it is the only event and
 * `enable` is fixed silently after it; otherwise each property out of sync
 * is an event (`ensure changed 'stopped' to 'running'`, `enable changed
 * 'false' to 'true'`). A refresh restarts the service only when it runs.
 */
import { readFileSync } from "node:fs";
import type { CatalogResource, ParamValue } from "../../catalog/model.js";
import type {
  ApplyContext,
  ResourceEvent,
  ResourceResult,
  ResourceType,
} from "../../catalog/resource-type.js";
import { type InitFlavour, commandServiceBackend } from "../../providers/services/init-script.js";
import {
  type ServiceBackend,
  type ServiceState,
  ensureService,
  restartService,
} from "../../providers/services/service.js";
import { systemdBackend } from "../../providers/services/systemd.js";
import type { ToolRunner } from "../../providers/tool-runner.js";

type ServiceProvider = "systemd" | InitFlavour;

const PROVIDERS: readonly ServiceProvider[] = ["systemd", "debian", "init", "base"];

/** How a test replaces the system: its tools and its process table. */
export interface ServiceSystem {
  readonly run?: ToolRunner;
  readonly processTable?: () => readonly string[];
  /** Whether systemd runs the machine (default: /proc/1/comm says so). */
  readonly systemdRuns?: boolean;
}

function text(value: ParamValue | undefined): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

function systemdIsInit(): boolean {
  try {
    return readFileSync("/proc/1/comm", "utf8").includes("systemd");
  } catch {
    return false;
  }
}

function ensureOf(value: ParamValue | undefined): ServiceState | undefined {
  const word = text(value);
  if (word === "running" || word === "true") return "running";
  if (word === "stopped" || word === "false") return "stopped";
  return undefined;
}

function flag(value: ParamValue | undefined): boolean | undefined {
  const word = text(value);
  return word === "true" ? true : word === "false" ? false : undefined;
}

function pathOf(value: ParamValue | undefined): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const items = Array.isArray(value) ? value : [value];
  return items.flatMap((item) => (text(item as ParamValue) ?? "").split(":")).filter((p) => p !== "");
}

function providerOf(resource: CatalogResource, system: ServiceSystem): ServiceProvider {
  const named = text(resource.parameters.provider);
  if (named !== undefined) return named as ServiceProvider;
  return (system.systemdRuns ?? systemdIsInit()) ? "systemd" : "debian";
}

/** The backend the resource names (or the machine's default). */
export function backendOf(resource: CatalogResource, system: ServiceSystem = {}): ServiceBackend {
  const p = resource.parameters;
  const name = text(p.name) ?? resource.title;
  const provider = providerOf(resource, system);
  if (provider === "systemd") return systemdBackend(name, { run: system.run });
  const commands = {
    status: text(p.status),
    start: text(p.start),
    stop: text(p.stop),
    restart: text(p.restart),
  };
  const service = {
    name,
    flavour: provider,
    commands,
    hasstatus: flag(p.hasstatus) ?? true,
    hasrestart: flag(p.hasrestart),
    binary: text(p.binary),
    pattern: text(p.pattern),
    path: pathOf(p.path),
  };
  return commandServiceBackend(service, { run: system.run, processTable: system.processTable });
}

function validate(resource: CatalogResource): string[] {
  const p = resource.parameters;
  const problems: string[] = [];
  if (p.ensure !== undefined && ensureOf(p.ensure) === undefined)
    problems.push(`Invalid value ${JSON.stringify(p.ensure)}. Valid values are stopped, running.`);
  if (p.enable !== undefined && flag(p.enable) === undefined)
    problems.push(`parameter 'enable': tend supports true and false, not ${JSON.stringify(p.enable)}`);
  const provider = text(p.provider);
  if (provider !== undefined && !PROVIDERS.includes(provider as ServiceProvider))
    problems.push(
      `parameter 'provider': tend runs services with systemd, debian, init or base, not '${provider}'`,
    );
  for (const name of ["hasstatus", "hasrestart"])
    if (p[name] !== undefined && flag(p[name]) === undefined)
      problems.push(`Invalid value ${JSON.stringify(p[name])}. Valid values are true, false.`);
  return problems;
}

const quoted = (value: string): string => `'${value}'`;

const EVENT_NAMES: Readonly<Record<string, string>> = {
  running: "service_started",
  stopped: "service_stopped",
  true: "service_enabled",
  false: "service_disabled",
};

const VERBS: Readonly<Record<string, string>> = { running: "start", stopped: "stop" };

/** Applies one service resource; `system` replaces the machine's tools (tests). */
export async function applyService(
  resource: CatalogResource,
  context: ApplyContext,
  system: ServiceSystem = {},
): Promise<ResourceResult> {
  const backend = backendOf(resource, system);
  const ensure = ensureOf(resource.parameters.ensure);
  const result = ensureService(backend, {
    ensure,
    enable: flag(resource.parameters.enable),
    noop: context.noop,
  });
  const provider = backend.provider;
  // Out of sync, ensure alone is reported; enable was fixed silently after it.
  const shown = result.changes.some((c) => c.property === "ensure")
    ? result.changes.filter((c) => c.property === "ensure")
    : result.changes;
  const events: ResourceEvent[] = [];
  let failed: string | undefined;
  for (const change of shown) {
    const old = change.old ?? "absent";
    const wanted = change.new ?? "absent";
    const base = {
      property: change.property,
      previousValue: old,
      desiredValue: wanted,
      name: EVENT_NAMES[wanted],
    };
    if (context.noop) {
      const message = `current_value ${quoted(old)}, should be ${quoted(wanted)} (noop)`;
      events.push({ ...base, status: "noop", message });
    } else if (change.applied) {
      const message = `${change.property} changed ${quoted(old)} to ${quoted(wanted)}`;
      // A service just started needs no restart for the events queued for it.
      const invalidatesRefresh = change.property === "ensure" && wanted === "running";
      events.push({
        ...base,
        status: "success",
        message,
        ...(invalidatesRefresh ? { invalidatesRefresh } : {}),
      });
    } else {
      const verb = change.property === "ensure" ? VERBS[wanted] : wanted === "true" ? "enable" : "disable";
      const detail = `Could not ${verb} Service[${resource.title}]: ${result.error ?? "failed"}`;
      failed = `change from ${quoted(old)} to ${quoted(wanted)} failed: ${detail}`;
      events.push({ ...base, status: "failure", message: failed });
    }
  }
  if (result.status === "failed" && failed === undefined) failed = result.error ?? "failed";
  return { events, failed, provider };
}

/** A refresh: restart when running (Puppet's Service#refresh). */
export async function refreshService(
  resource: CatalogResource,
  context: ApplyContext,
  system: ServiceSystem = {},
): Promise<ResourceResult> {
  const backend = backendOf(resource, system);
  const result = restartService(backend, context.noop);
  if (result.found === "stopped") context.logger.debug("Skipping restart; service is not running");
  if (result.status !== "failed") return { events: [], provider: backend.provider };
  return {
    events: [],
    failed: `Could not restart Service[${resource.title}]: ${result.error}`,
    provider: backend.provider,
  };
}

export const serviceType: ResourceType = {
  name: "service",
  validate,
  apply: (resource, context) => applyService(resource, context),
  refresh: (resource, context) => refreshService(resource, context),
};
