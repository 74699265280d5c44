/**
 * The hosts provider: one host entry of a hosts file brought to its
 * desired state (present with an address, aliases and a comment, or
 * absent). The file is read, the entry compared, and, unless in a dry run,
 * the whole file written back atomically with the other lines unchanged.
 * A failure to read or write is a `failed` result, never an exception.
 */
import { readFileSync, statSync } from "node:fs";
import { writeFileAtomically } from "../../system/atomic.js";
import type { Change, ProviderResult } from "../change.js";
import { type HostEntry, type HostsLine, hostsHeader, parseHosts, renderHosts } from "./hosts-file.js";

/** The entry wanted; an absent property is left as it is. */
export interface HostSpec {
  readonly name: string;
  readonly ensure: "present" | "absent";
  readonly ip?: string;
  /** In order; an empty list removes every alias. */
  readonly aliases?: readonly string[];
  readonly comment?: string;
  /** The hosts file (`/etc/hosts` unless told). */
  readonly target: string;
}

export interface HostOptions {
  readonly dryRun: boolean;
  /** When the header note says the file was written (tests fix it). */
  readonly now?: () => Date;
  /** Called just before the file is rewritten (a backup); throwing fails the change with its message. */
  readonly beforeWrite?: (target: string) => void;
}

/** The provider's answer, with the entry as it was found (for the front end's messages). */
export interface HostResult extends ProviderResult {
  readonly found?: HostEntry;
}

type Property = "ip" | "host_aliases" | "comment";

function readLines(target: string): HostsLine[] {
  try {
    return parseHosts(readFileSync(target, "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

/** The properties of `found` that differ from the spec, as changes. */
function differences(spec: HostSpec, found: HostEntry): Change[] {
  const wanted: Record<Property, string | undefined> = {
    ip: spec.ip,
    host_aliases: spec.aliases?.join(" "),
    comment: spec.comment,
  };
  const current: Record<Property, string> = {
    ip: found.ip,
    host_aliases: found.aliases.join(" "),
    comment: found.comment,
  };
  const changes: Change[] = [];
  for (const property of ["ip", "host_aliases", "comment"] as const) {
    const want = wanted[property];
    if (want === undefined || want === current[property]) continue;
    const message = `${property} changed from '${current[property]}' to '${want}'`;
    changes.push({ property, old: current[property], new: want, message, applied: false });
  }
  return changes;
}

function updated(spec: HostSpec, found: HostEntry): HostEntry {
  return {
    ip: spec.ip ?? found.ip,
    name: found.name,
    aliases: spec.aliases ?? found.aliases,
    comment: spec.comment ?? found.comment,
  };
}

/** The file's lines after the change, or a reason the change cannot be made. */
function plan(spec: HostSpec, lines: HostsLine[], index: number): HostsLine[] | string {
  if (spec.ensure === "absent") return lines.filter((_, i) => i !== index);
  const at = lines[index];
  if (at?.kind === "entry") {
    return lines.map((l, i) => (i === index ? { kind: "entry", entry: updated(spec, at.entry) } : l));
  }
  if (spec.ip === undefined) return "ip is a required attribute for hosts";
  const entry = { ip: spec.ip, name: spec.name, aliases: spec.aliases ?? [], comment: spec.comment ?? "" };
  return [...lines, { kind: "entry", entry }];
}

function write(target: string, lines: readonly HostsLine[], options: HostOptions): void {
  const mode = statSync(target, { throwIfNoEntry: false })?.mode ?? 0o644;
  const header = hostsHeader(options.now?.() ?? new Date());
  writeFileAtomically(target, renderHosts(lines, header), mode & 0o7777);
}

/** Brings one host entry to the spec; writes the file only when something differs. */
export function ensureHost(spec: HostSpec, options: HostOptions): HostResult {
  let lines: HostsLine[];
  try {
    lines = readLines(spec.target);
  } catch (error) {
    return { status: "failed", changes: [], error: `Could not read ${spec.target}: ${String(error)}` };
  }
  const index = lines.findIndex((l) => l.kind === "entry" && l.entry.name === spec.name);
  const at = lines[index];
  const found = at?.kind === "entry" ? at.entry : undefined;
  const changes = changesFor(spec, found);
  if (changes.length === 0) return { status: "unchanged", changes, found };
  if (options.dryRun) return { status: "changed", changes, found };
  const next = plan(spec, lines, index);
  if (typeof next === "string") return { status: "failed", changes, found, error: next };
  try {
    options.beforeWrite?.(spec.target);
  } catch (error) {
    return {
      status: "failed",
      changes,
      found,
      error: error instanceof Error ? error.message : String(error),
    };
  }
  try {
    write(spec.target, next, options);
  } catch (error) {
    return { status: "failed", changes, found, error: `Could not write ${spec.target}: ${String(error)}` };
  }
  return { status: "changed", changes: changes.map((c) => ({ ...c, applied: true })), found };
}

function changesFor(spec: HostSpec, found: HostEntry | undefined): Change[] {
  if (spec.ensure === "absent") {
    if (!found) return [];
    return [{ property: "ensure", old: "present", new: "absent", message: "removed", applied: false }];
  }
  if (!found)
    return [{ property: "ensure", old: "absent", new: "present", message: "created", applied: false }];
  return differences(spec, found);
}
