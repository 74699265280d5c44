/**
 * Local groups: one group of /etc/group (of a given root) brought to its
 * desired state with groupadd, groupmod and groupdel: created (with a gid,
 * as a system group, a duplicate gid allowed), its gid changed, its
 * members set (all of them, or at least those named), removed. Changes
 * are returned as data; a tool that fails makes the result `failed` with
 * what it printed.
 */
import type { Change, ProviderResult } from "../change.js";
import { type GroupEntry, readGroups } from "./accounts.js";
import {
  GROUPADD,
  GROUPDEL,
  GROUPMOD,
  runTool,
  ToolCommand,
  type ToolRunner,
  toolFailed,
  toolOutput,
} from "./tools.js";

export interface GroupSpec {
  readonly name: string;
  readonly ensure: "present" | "absent";
  readonly gid?: number;
  /** Undefined: members not managed. */
  readonly members?: readonly string[];
  /** True: exactly these members; false: at least these. */
  readonly membersInclusive?: boolean;
  /** Not members, whoever else is (with `membersInclusive` false; Chef's `excluded_members`). */
  readonly excludedMembers?: readonly string[];
  readonly system?: boolean;
  readonly allowDuplicate?: boolean;
}

export interface GroupOptions {
  readonly dryRun: boolean;
  /** The root whose /etc files are read and changed ("/" for the system). */
  readonly root?: string;
  readonly run?: ToolRunner;
}

export interface GroupResult extends ProviderResult {
  readonly found?: GroupEntry;
}

/** How a failure starts (`Could not create group devs`, `Could not set gid on group[devs]`), as Puppet words it. */
export function failureContext(kind: string, name: string, change: Change | undefined): string {
  if (change?.property !== "ensure") return `Could not set ${change?.property ?? "?"} on ${kind}[${name}]`;
  return `Could not ${change.new === "absent" ? "delete" : "create"} ${kind} ${name}`;
}

/** Runs a tool; undefined when it worked, else what it said. */
export function runChecked(run: ToolRunner, command: ToolCommand): string | undefined {
  const result = run(command.argv);
  if (!toolFailed(result)) return undefined;
  const said = toolOutput(result).join("\n");
  return `Execution of '${command.argv.join(" ")}' returned ${result.status ?? -1}: ${said}`;
}

function wantedMembers(spec: GroupSpec, found: GroupEntry): string[] | undefined {
  if (spec.members === undefined && !spec.excludedMembers?.length) return undefined;
  const members = spec.members ?? [];
  const excluded = new Set(spec.excludedMembers ?? []);
  const wanted = spec.membersInclusive ? [...members] : [...found.members, ...members];
  return [...new Set(wanted)].filter((m) => !excluded.has(m)).sort();
}

function differences(spec: GroupSpec, found: GroupEntry): Change[] {
  const changes: Change[] = [];
  if (spec.gid !== undefined && spec.gid !== found.gid) {
    const message = `gid changed from ${found.gid} to ${spec.gid}`;
    changes.push({ property: "gid", old: String(found.gid), new: String(spec.gid), message, applied: false });
  }
  const members = wantedMembers(spec, found);
  const current = [...new Set(found.members)].sort();
  if (members !== undefined && members.join(",") !== current.join(",")) {
    const [old, now] = [found.members.join(","), members.join(",")];
    changes.push({
      property: "members",
      old,
      new: now,
      message: `members changed to ${now}`,
      applied: false,
    });
  }
  return changes;
}

function addCommand(spec: GroupSpec, root: string): ToolCommand {
  const command = new ToolCommand(GROUPADD, root);
  if (spec.gid !== undefined) command.option("-g", String(spec.gid));
  if (spec.allowDuplicate) command.word("-o");
  if (spec.system) command.word("-r");
  return command.word(spec.name);
}

function commandFor(spec: GroupSpec, change: Change, root: string): ToolCommand {
  const command = new ToolCommand(GROUPMOD, root);
  if (change.property === "gid") {
    command.option("-g", change.new ?? "");
    if (spec.allowDuplicate) command.word("-o");
  } else command.option("-U", change.new ?? "");
  return command.word(spec.name);
}

/** The commands that bring the group to the spec, for the changes found. */
function commands(spec: GroupSpec, changes: readonly Change[], root: string): ToolCommand[] {
  const first = changes[0];
  if (first?.property === "ensure") {
    if (spec.ensure === "absent") return [new ToolCommand(GROUPDEL, root).word(spec.name)];
    const add = [addCommand(spec, root)];
    if (spec.members !== undefined && spec.members.length > 0)
      add.push(new ToolCommand(GROUPMOD, root).option("-U", spec.members.join(",")).word(spec.name));
    return add;
  }
  return changes.map((c) => commandFor(spec, c, root));
}

/** Brings one group to the spec; runs the tools only when something differs. */
export function ensureGroup(spec: GroupSpec, options: GroupOptions): GroupResult {
  const root = options.root ?? "/";
  const groups = readGroups(root);
  if (!groups.ok)
    return { status: "failed", changes: [], error: `Could not read /etc/group: ${groups.error}` };
  const found = groups.entries.find((g) => g.name === spec.name);
  let changes: Change[];
  if (spec.ensure === "absent")
    changes = found
      ? [{ property: "ensure", old: "present", new: "absent", message: "removed", applied: false }]
      : [];
  else if (!found)
    changes = [{ property: "ensure", old: "absent", new: "present", message: "created", applied: false }];
  else changes = differences(spec, found);
  if (changes.length === 0) return { status: "unchanged", changes, found };
  if (options.dryRun) return { status: "changed", changes, found };
  const run = options.run ?? runTool;
  const applied: Change[] = [];
  for (const command of commands(spec, changes, root)) {
    const said = runChecked(run, command);
    if (said !== undefined) {
      const error = `${failureContext("group", spec.name, changes[applied.length] ?? changes[0])}: ${said}`;
      return { status: "failed", changes: [...applied, ...changes.slice(applied.length)], found, error };
    }
    const done = changes[applied.length];
    if (done) applied.push({ ...done, applied: true });
  }
  return { status: "changed", changes: applied, found };
}
