/**
 * Puppet's `cron` (cron_core's type over its crontab provider): a job of a
 * user's crontab, named by a `# Puppet Name:` comment, with its schedule
 * (time fields or a special one), command and environment lines, through
 * the shared cron provider. Values are checked and normalised as cron_core
 * does: numbers within bounds, day and month names to numbers, `*` and
 * `absent` for no value, ranges and steps as written.
 */
import type { CatalogResource, ParamValue } from "../../catalog/model.js";
import type {
  ApplyContext,
  ResourceEvent,
  ResourceResult,
  ResourceType,
} from "../../catalog/resource-type.js";
import type { Change } from "../../providers/change.js";
import {
  type CronJob,
  type CronSpec,
  ensureCron,
  TIME_FIELDS,
  type TimeField,
} from "../../providers/cron/index.js";
import { ensureEvent, listParam, type PropertyDiff, propertyEvent, textParam } from "./property-change.js";

const BOUNDS: Record<TimeField, [number, number]> = {
  minute: [0, 59],
  hour: [0, 23],
  monthday: [1, 31],
  month: [1, 12],
  weekday: [0, 7],
};

const NAMES: Partial<Record<TimeField, readonly string[]>> = {
  weekday: ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"],
  month: ["", "january", "february", "march", "april", "may", "june", "july", "august"].concat([
    "september",
    "october",
    "november",
    "december",
  ]),
};

const SPECIALS = [
  "reboot",
  "yearly",
  "annually",
  "monthly",
  "weekly",
  "daily",
  "midnight",
  "hourly",
  "absent",
];

/** One value of a time field as cron_core munges it: a string, null for no value, or an error. */
function mungeField(field: TimeField, value: string): string | null | Error {
  if (value === "absent" || value === "*") return null;
  if (/^\*\/[0-9]+$/.test(value) || /^[0-9]+-[0-9]+(\/[0-9]+)?$/.test(value)) return value;
  const [lower, upper] = BOUNDS[field];
  if (/^\d+$/.test(value)) {
    if (Number(value) >= lower && Number(value) <= upper) return value;
  } else {
    const names = NAMES[field];
    const lowered = value.toLowerCase();
    const index = names?.findIndex(
      (n) => n !== "" && (lowered.length === 3 ? n.startsWith(lowered) : n === lowered),
    );
    if (index !== undefined && index >= 0) return String(index);
  }
  return new Error(`${value} is not a valid ${field}`);
}

/** A field's values (null: no value) or the first problem. */
function fieldValues(
  field: TimeField,
  value: ParamValue | undefined,
): readonly string[] | null | undefined | Error {
  const raw = listParam(value);
  if (raw === undefined) return undefined;
  const out: string[] = [];
  for (const v of raw) {
    const munged = mungeField(field, v);
    if (munged instanceof Error) return munged;
    if (munged === null) return null;
    out.push(munged);
  }
  return out;
}

function validateCron(resource: CatalogResource): string[] {
  const problems: string[] = [];
  const p = resource.parameters;
  for (const field of TIME_FIELDS) {
    const values = fieldValues(field, p[field]);
    if (values instanceof Error) problems.push(values.message);
  }
  const special = textParam(p.special);
  if (special !== undefined && !SPECIALS.includes(special))
    problems.push(`Invalid special schedule ${JSON.stringify(special)}`);
  if (special !== undefined && special !== "absent") {
    for (const field of TIME_FIELDS) {
      const values = fieldValues(field, p[field]);
      if (values !== undefined && values !== null)
        problems.push(
          `Cron[${resource.title}] cannot specify both a special schedule and a value for ${field}`,
        );
    }
  }
  for (const line of listParam(p.environment) ?? []) {
    if (line !== "absent" && !/^\s*(\w+)\s*=\s*(.*)\s*$/.test(line))
      problems.push(`Invalid environment setting ${JSON.stringify(line)}`);
  }
  return problems;
}

function cronSpec(resource: CatalogResource): CronSpec {
  const p = resource.parameters;
  const fields: Partial<Record<TimeField, readonly string[] | null>> = {};
  for (const field of TIME_FIELDS) {
    const values = fieldValues(field, p[field]);
    if (values !== undefined && !(values instanceof Error)) fields[field] = values;
  }
  const special = textParam(p.special);
  const environment = listParam(p.environment)?.filter((l) => l !== "absent");
  const user = textParam(p.user) ?? textParam(p.target) ?? "root";
  return {
    name: textParam(p.name) ?? resource.title,
    user,
    ensure: p.ensure === "absent" ? "absent" : "present",
    command: textParam(p.command)?.trim(),
    special: special === undefined ? undefined : special === "absent" ? null : special,
    fields,
    environment,
  };
}

/** A property's values as cron_core reports them. */
function diffOf(change: Change, found: CronJob | undefined, spec: CronSpec): PropertyDiff {
  const property = change.property;
  if (property === "environment") {
    const previous = found && found.environment.length > 0 ? [...found.environment] : "absent";
    const desired = [...(spec.environment ?? [])];
    return { property, previous, desired, desiredText: desired.join(",") };
  }
  if ((TIME_FIELDS as readonly string[]).includes(property)) {
    const field = property as TimeField;
    const had = found?.fields[field];
    const want = spec.fields?.[field];
    return { property, previous: had ? [...had] : "absent", desired: want ? [...want] : "absent" };
  }
  return { property, previous: change.old ?? "absent", desired: change.new ?? "absent" };
}

function events(result: ReturnType<typeof ensureCron>, spec: CronSpec, noop: boolean): ResourceEvent[] {
  const failed = result.status === "failed";
  const status: ResourceEvent["status"] = noop ? "noop" : failed ? "failure" : "success";
  return result.changes.map((change, i) => {
    const error = failed && i === 0 ? result.error : undefined;
    if (change.property === "ensure") return ensureEvent("cron", spec.ensure, status, error);
    return propertyEvent(diffOf(change, result.found, spec), status, error);
  });
}

async function applyCron(resource: CatalogResource, context: ApplyContext): Promise<ResourceResult> {
  const spec = cronSpec(resource);
  const root = typeof context.run.root === "string" ? context.run.root : undefined;
  const result = ensureCron(spec, { dryRun: context.noop, root });
  const failed = result.status === "failed" ? (result.error ?? "failed") : undefined;
  if (failed && result.changes.length === 0) context.logger.error(failed);
  return { events: events(result, spec, context.noop), failed, provider: "crontab" };
}

export const cronType: ResourceType = {
  name: "cron",
  validate: validateCron,
  apply: applyCron,
  autorequire: (resource) => [`User[${textParam(resource.parameters.user) ?? "root"}]`],
};
