/**
 * Puppet's `mount` (mount_core's type over its parsed provider, Linux):
 * an fstab entry (`target`, /etc/fstab by default) written through the
 * shared records provider, and the mount itself through the mounts
 * provider's commands. The states are Puppet's: `defined` (alias
 * `present`: in the table, mounted or not), `unmounted`, `mounted`,
 * `absent`; a mount point mounted but not in the table is a `ghost`.
 * dump and pass default to 0. Like Puppet's (self_refresh), a mount that
 * changed refreshes itself — remounting when it is mounted — and says
 * "Triggered 'refresh' from N events".
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
  type FstabRecord,
  fstabFormat,
  MOUNT_COMMAND,
  readMountTable,
  runCommand,
  UMOUNT_COMMAND,
} from "../../providers/mounts/index.js";
import { ensureRecord, parseRecords, propertyChange } from "../../providers/parsed-file/index.js";
import { accessSync, constants, readFileSync, statSync } from "node:fs";
import { propertyEvent, textParam } from "./property-change.js";
import { type BeforeWrite, withFileBackup } from "./parsed-record.js";

type Ensure = "defined" | "unmounted" | "mounted" | "absent";
type Current = "absent" | "unmounted" | "mounted" | "ghost";

const PROPERTIES = ["device", "fstype", "options", "pass", "dump"] as const;

interface MountSpec {
  readonly name: string;
  readonly ensure: Ensure;
  readonly target: string;
  /** The catalog's values (numbers stay numbers in events), defaults filled in. */
  readonly values: Partial<Record<(typeof PROPERTIES)[number], ParamValue>>;
}

function ensureOf(v: ParamValue | undefined): Ensure {
  if (v === "absent" || v === "unmounted" || v === "mounted") return v;
  return "defined";
}

function spec(resource: CatalogResource): MountSpec {
  const p = resource.parameters;
  const name = (textParam(p.name) ?? resource.title).replace(/^(.+?)\/*$/, "$1");
  const values: MountSpec["values"] = {};
  for (const k of PROPERTIES) if (p[k] !== undefined && p[k] !== null) values[k] = p[k];
  const ensure = ensureOf(p.ensure);
  if (ensure !== "absent") {
    values.dump ??= 0;
    values.pass ??= 0;
  }
  return { name, ensure, target: textParam(p.target) ?? "/etc/fstab", values };
}

function validate(resource: CatalogResource): string[] {
  const p = resource.parameters;
  const problems: string[] = [];
  const ensure = p.ensure;
  if (
    ensure !== undefined &&
    !["defined", "present", "unmounted", "absent", "mounted"].includes(String(ensure))
  )
    problems.push(
      `Invalid value ${JSON.stringify(ensure)}. Valid values are defined, present, unmounted, absent, mounted.`,
    );
  const options = textParam(p.options);
  if (options !== undefined && /\s/.test(options))
    problems.push(`options must not contain whitespace: ${options}`);
  if (options === "") problems.push("options must not be an empty string");
  const dump = textParam(p.dump);
  if (dump !== undefined && !/(0|1)/.test(dump))
    problems.push(`Invalid value ${JSON.stringify(dump)}. Valid values match /(0|1)/.`);
  return problems;
}

function text(v: ParamValue | undefined): string | undefined {
  return v === undefined || v === null ? undefined : String(v);
}

function mounted(name: string): boolean {
  try {
    return readMountTable().some((m) => m.target === name);
  } catch {
    return false;
  }
}

function inTable(s: MountSpec): FstabRecord | undefined {
  try {
    const lines = parseRecords(readFileSync(s.target, "utf8"), fstabFormat);
    for (const l of lines) if (l.kind === "record" && l.record.name === s.name) return l.record;
  } catch {
    // no table: nothing in it
  }
  return undefined;
}

function recordOf(s: MountSpec, found: FstabRecord | undefined): FstabRecord {
  const v = s.values;
  const pick = (k: (typeof PROPERTIES)[number]): string | undefined => text(v[k]) ?? found?.[k];
  const out: Record<string, string> = { device: pick("device") ?? "", name: s.name };
  for (const k of ["fstype", "options", "dump", "pass"] as const) {
    const x = pick(k);
    if (x !== undefined) out[k] = x;
  }
  return out as unknown as FstabRecord;
}

function differences(s: MountSpec, found: FstabRecord): Change[] {
  const changes: Change[] = [];
  for (const k of PROPERTIES) {
    const want = text(s.values[k]);
    const have = found[k] ?? "absent";
    if (want !== undefined && want !== have) changes.push(propertyChange(k, have, want));
  }
  return changes;
}

/**
 * A program as Puppet's provider finds it (`commands mountcmd: 'mount'`):
 * the first executable of that name in PATH, else the usual path.
 */
function program(name: string, fallback: string): string {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (!dir.startsWith("/")) continue;
    const path = `${dir}/${name}`;
    try {
      accessSync(path, constants.X_OK);
      if (statSync(path).isFile()) return path;
    } catch {
      // not here
    }
  }
  return fallback;
}

function command(argv: string[]): string | undefined {
  const r = runCommand(argv);
  if (r.status === 0 && !r.error) return undefined;
  return `Execution of '${argv.join(" ")}' returned ${r.status ?? 1}: ${r.output.trim() || r.error || ""}`;
}

/**
 * `-T TABLE` when the table is not /etc/fstab: mount(8) reads only
 * /etc/fstab, so Puppet's bare `mount NAME` mounts what that file says
 * (or fails); tend mounts what the resource's own table says.
 */
function tableArgs(s: MountSpec): string[] {
  return s.target === "/etc/fstab" ? [] : ["-T", s.target];
}

/** As Puppet's provider on Linux: the options come from the table. */
function mountArgs(s: MountSpec): string[] {
  return [program("mount", MOUNT_COMMAND), ...tableArgs(s), s.name];
}

async function apply(
  resource: CatalogResource,
  context: ApplyContext,
  beforeWrite?: BeforeWrite,
): Promise<ResourceResult> {
  const s = spec(resource);
  const found = inTable(s);
  const isMounted = mounted(s.name);
  const current: Current = found ? (isMounted ? "mounted" : "unmounted") : isMounted ? "ghost" : "absent";
  const noop = context.noop;
  const status: ResourceEvent["status"] = noop ? "noop" : "success";
  const events: ResourceEvent[] = [];
  let failed: string | undefined;
  const ensureEvent = (name: string, previous: string, desired: string): void => {
    const diff = { property: "ensure", previous, desired };
    const e = propertyEvent(diff, failed ? "failure" : status, failed);
    events.push({ ...e, name });
  };
  const writeTable = (ensure: "present" | "absent", others: boolean) =>
    ensureRecord<FstabRecord>(
      {
        target: s.target,
        format: fstabFormat,
        matches: (r) => r.name === s.name,
        ensure,
        differences: (f) => (others ? differences(s, f) : []),
        desired: (f) => recordOf(s, f),
        fileMode: 0o600,
      },
      { dryRun: noop, beforeWrite: beforeWrite },
    );
  // ensure first, as Puppet syncs it before the other properties.
  const inSync =
    s.ensure === current ||
    (s.ensure === "defined" && (current === "mounted" || current === "unmounted")) ||
    (s.ensure === "absent" && current === "absent");
  if (!inSync) {
    if (s.ensure === "absent") {
      if (isMounted && !noop) failed = command([program("umount", UMOUNT_COMMAND), s.name]);
      if (!failed && current !== "ghost") {
        const r = writeTable("absent", false);
        if (r.status === "failed") failed = r.error;
      }
      ensureEvent("mount_deleted", current, "absent");
    } else {
      // Puppet's order: a new entry is written first (then a ghost unmounted);
      // an entry already there is unmounted first, then its other properties
      // synced (mount_core's syncothers), as they are before mounting.
      const create = current === "absent" || current === "ghost";
      const unmount = s.ensure === "unmounted" && isMounted;
      if (unmount && !create && !noop) failed = command([program("umount", UMOUNT_COMMAND), s.name]);
      if (!failed && (create || s.ensure !== "defined")) {
        const r = writeTable("present", !create);
        if (r.status === "failed") failed = r.error;
      }
      if (!failed && !noop && unmount && create)
        failed = command([program("umount", UMOUNT_COMMAND), s.name]);
      ensureEvent(s.ensure === "mounted" ? "mount_mounted" : "mount_changed", current, s.ensure);
      // Puppet mounts in the provider's flush, after the ensure change is
      // recorded: a failure there is the resource's ("Could not evaluate").
      if (!failed && !noop && s.ensure === "mounted" && !isMounted) {
        const problem = command(mountArgs(s));
        if (problem) return { events, failed: problem, provider: "parsed" };
      }
    }
  } else if (s.ensure !== "absent" && found) {
    const r = writeTable("present", true);
    if (r.status === "failed") failed = r.error;
    for (const change of r.changes) {
      const k = change.property as (typeof PROPERTIES)[number];
      const previous = found[k] ?? "absent";
      const desired = s.values[k] ?? "";
      events.push(propertyEvent({ property: k, previous, desired }, failed ? "failure" : status, failed));
    }
  }
  if (failed) {
    // Puppet logs the error itself (source Puppet) as well as the failed change.
    (context.runLogger ?? context.logger).error(failed);
    return { events, failed, provider: "parsed" };
  }
  return { events, provider: "parsed" };
}

/**
 * Puppet's mount refreshes itself after a change (self_refresh), unless it
 * is being removed; the applier queues the events and calls `refresh`.
 */
function selfRefresh(resource: CatalogResource): boolean {
  return ensureOf(resource.parameters.ensure) !== "absent";
}

/**
 * A refresh remounts a mounted file system (not swap): `mount -o remount`,
 * or umount then mount when `remounts => false`. Puppet asks its provider
 * whether it is mounted; tend reads the mount table, which differs only for
 * a mount point mounted outside the table and just added to it with
 * `ensure => defined` (Puppet's provider then thinks it unmounted).
 */
async function refresh(resource: CatalogResource, context: ApplyContext): Promise<ResourceResult> {
  const s = spec(resource);
  if (context.noop || text(s.values.fstype) === "swap" || !mounted(s.name))
    return { events: [], provider: "parsed" };
  (context.providerLogger?.("parsed") ?? context.logger).info("Remounting");
  const remounts = textParam(resource.parameters.remounts) !== "false";
  const problem = remounts
    ? command([program("mount", MOUNT_COMMAND), ...tableArgs(s), "-o", "remount", s.name])
    : (command([program("umount", UMOUNT_COMMAND), s.name]) ?? command(mountArgs(s)));
  return problem ? { events: [], failed: problem, provider: "parsed" } : { events: [], provider: "parsed" };
}

export const mountType: ResourceType = {
  name: "mount",
  validate,
  apply: withFileBackup("mount", apply),
  refresh,
  selfRefresh,
};
