/**
 * The cron provider: one named job of a user's crontab brought to its
 * desired state, as Puppet's crontab provider does it. The job is found by
 * its `# Puppet Name` comment, or, failing that, a job without a name that
 * has the same command and schedule is taken over. When something differs
 * (and not in a dry run) the whole crontab is written back, other lines
 * unchanged. Failures (an unreadable crontab, a crontab(1) that refuses)
 * are a `failed` result, never an exception.
 */
import type { Change, ProviderResult } from "../change.js";
import {
  type CronJob,
  type CrontabLine,
  CrontabParseError,
  crontabHeader,
  parseCrontab,
  renderCrontab,
  TIME_FIELDS,
  type TimeField,
} from "./crontab-text.js";
import { type CrontabStore, CrontabStoreError, commandStore, spoolStore } from "./store.js";

/** The job wanted; an absent property is left as it is. */
export interface CronSpec {
  readonly name: string;
  /** Whose crontab holds the job. */
  readonly user: string;
  readonly ensure: "present" | "absent";
  readonly command?: string;
  /** `daily` for `@daily`; null to go back to time fields. */
  readonly special?: string | null;
  /** Each managed field: its values (`["2", "4"]`), or null for `*`. */
  readonly fields?: Partial<Record<TimeField, readonly string[] | null>>;
  readonly environment?: readonly string[];
}

export interface CronOptions {
  readonly dryRun: boolean;
  /** Another root than `/`: its spool files are used instead of crontab(1). */
  readonly root?: string;
  /** How crontabs are read and written (tests inject one). */
  readonly store?: CrontabStore;
  /** When the header note says the crontab was written. */
  readonly now?: () => Date;
}

/** The provider's answer, with the job as it was found (for the front end's messages). */
export interface CronResult extends ProviderResult {
  readonly found?: CronJob;
}

/** The properties in the order they are compared (and reported). */
const ORDER = [
  "command",
  "special",
  "minute",
  "hour",
  "weekday",
  "month",
  "monthday",
  "environment",
] as const;
type Property = (typeof ORDER)[number];

const fieldText = (values: readonly string[] | null | undefined): string => values?.join(",") ?? "absent";

function current(job: CronJob, property: Property): string {
  if (property === "command") return job.command;
  if (property === "special") return job.special ?? "absent";
  if (property === "environment") return job.environment.join(",");
  return fieldText(job.fields[property]);
}

function wanted(spec: CronSpec, property: Property): string | undefined {
  if (property === "command") return spec.command;
  if (property === "special") return spec.special === undefined ? undefined : (spec.special ?? "absent");
  if (property === "environment") return spec.environment?.join(",");
  const value = spec.fields?.[property];
  return value === undefined ? undefined : fieldText(value);
}

function sameEnvironment(spec: CronSpec, job: CronJob): boolean {
  return [...(spec.environment ?? [])].sort().join("\n") === [...job.environment].sort().join("\n");
}

function differences(spec: CronSpec, job: CronJob): Change[] {
  const changes: Change[] = [];
  for (const property of ORDER) {
    const want = wanted(spec, property);
    const have = current(job, property);
    if (want === undefined || want === have) continue;
    if (property === "environment" && sameEnvironment(spec, job)) continue;
    const message = `${property} changed from '${have}' to '${want}'`;
    changes.push({ property, old: have, new: want, message, applied: false });
  }
  return changes;
}

/** Whether an unnamed job has the spec's command and every time value the spec sets. */
function matches(spec: CronSpec, job: CronJob): boolean {
  if (!job.unmanaged || spec.command === undefined || job.command !== spec.command) return false;
  if (spec.special !== undefined && (spec.special ?? undefined) !== job.special) return false;
  return TIME_FIELDS.every((f) => {
    const want = spec.fields?.[f];
    return want === undefined || fieldText(want) === fieldText(job.fields[f]);
  });
}

function findJob(spec: CronSpec, lines: readonly CrontabLine[]): number {
  const named = lines.findIndex((l) => l.kind === "job" && !l.job.unmanaged && l.job.name === spec.name);
  return named >= 0 ? named : lines.findIndex((l) => l.kind === "job" && matches(spec, l.job));
}

function updated(spec: CronSpec, job: CronJob): CronJob {
  const fields = { ...job.fields };
  for (const f of TIME_FIELDS) {
    const want = spec.fields?.[f];
    if (want !== undefined) fields[f] = want ?? undefined;
  }
  return {
    ...job,
    command: spec.command ?? job.command,
    special: spec.special === undefined ? job.special : (spec.special ?? undefined),
    fields,
    environment: spec.environment ?? job.environment,
  };
}

function created(spec: CronSpec): CronJob {
  const fields = Object.fromEntries(TIME_FIELDS.map((f) => [f, spec.fields?.[f] ?? undefined]));
  return {
    name: spec.name,
    unmanaged: false,
    environment: spec.environment ?? [],
    special: spec.special ?? undefined,
    fields: fields as Record<TimeField, readonly string[] | undefined>,
    command: spec.command ?? "",
  };
}

function planned(spec: CronSpec, lines: CrontabLine[], index: number): CrontabLine[] {
  if (spec.ensure === "absent") return lines.filter((_, i) => i !== index);
  const at = lines[index];
  if (at?.kind === "job")
    return lines.map((l, i) => (i === index ? { kind: "job", job: updated(spec, at.job) } : l));
  return [...lines, { kind: "job", job: created(spec) }];
}

function changesFor(spec: CronSpec, found: CronJob | undefined): Change[] {
  if (spec.ensure === "absent") {
    return found
      ? [{ property: "ensure", old: "present", new: "absent", message: "removed", applied: false }]
      : [];
  }
  if (!found)
    return [{ property: "ensure", old: "absent", new: "present", message: "created", applied: false }];
  return differences(spec, found);
}

function describe(error: unknown): string {
  return error instanceof CrontabStoreError || error instanceof CrontabParseError
    ? error.message
    : String(error);
}

/** Brings one cron job to the spec; writes the crontab only when something differs. */
export function ensureCron(spec: CronSpec, options: CronOptions): CronResult {
  const store =
    options.store ?? (options.root && options.root !== "/" ? spoolStore(options.root) : commandStore());
  let lines: CrontabLine[];
  try {
    lines = parseCrontab(store.read(spec.user));
  } catch (error) {
    return { status: "failed", changes: [], error: describe(error) };
  }
  const index = findJob(spec, lines);
  const at = lines[index];
  const found = at?.kind === "job" ? at.job : undefined;
  const changes = changesFor(spec, found);
  if (changes.length === 0) return { status: "unchanged", changes, found };
  if (!found && spec.ensure === "present" && spec.command === undefined)
    return { status: "failed", changes, found, error: "no command specified, cannot create" };
  if (options.dryRun) return { status: "changed", changes, found };
  try {
    const header = crontabHeader(options.now?.() ?? new Date());
    store.write(spec.user, renderCrontab(planned(spec, lines, index), header));
  } catch (error) {
    return { status: "failed", changes, found, error: describe(error) };
  }
  return { status: "changed", changes: changes.map((c) => ({ ...c, applied: true })), found };
}
