/**
 * Local accounts the way a declarative front end manages them (Puppet's
 * useradd provider): each property compared on its own and set with its
 * own command — home, uid, gid (a group name or number), comment, shell,
 * password hash, secondary groups (at least those named, or exactly them),
 * expiry date — an account created with useradd (its home made from
 * /etc/skel when asked, a system account, a duplicate uid allowed) and
 * removed with userdel (its home too when asked). CFEngine's `users`
 * promises keep their own semantics in ensure.ts; both run the same tools
 * (tools.ts) over the same databases (accounts.ts).
 */
import { accessSync, constants, existsSync } from "node:fs";
import type { Change, ProviderResult } from "../change.js";
import { type GroupEntry, type PasswdEntry, readGroups, readPasswd, readShadow } from "./accounts.js";
import { failureContext, runChecked } from "./groups.js";
import { CHPASSWD, runTool, ToolCommand, type ToolRunner, USERADD, USERDEL, USERMOD } from "./tools.js";

export interface AccountSpec {
  readonly name: string;
  readonly ensure: "present" | "absent";
  readonly uid?: number;
  /** A group name or number. */
  readonly gid?: string | number;
  readonly comment?: string;
  readonly home?: string;
  readonly shell?: string;
  /** The password hash, as shadow holds it. */
  readonly password?: string;
  readonly groups?: readonly string[];
  /** True: exactly `groups`; false: at least them. */
  readonly groupsInclusive?: boolean;
  /** `YYYY-MM-DD`, or null for no expiry. */
  readonly expiry?: string | null;
  /** Create the home directory with the account, remove it with the account. */
  readonly manageHome?: boolean;
  readonly system?: boolean;
  readonly allowDuplicate?: boolean;
}

/** An account as found. */
export interface AccountState {
  readonly uid: number;
  readonly gid: number;
  readonly comment: string;
  readonly home: string;
  readonly shell: string;
  readonly password?: string;
  /** Groups that list the account as a member, in file order. */
  readonly groups: readonly string[];
  /** `YYYY-MM-DD`, or undefined when the account does not expire. */
  readonly expiry?: string;
}

export interface AccountOptions {
  readonly dryRun: boolean;
  readonly root?: string;
  readonly run?: ToolRunner;
}

export interface AccountResult extends ProviderResult {
  readonly found?: AccountState;
}

/** The properties, in the order they are compared and set (Puppet's). */
const ORDER = ["home", "uid", "gid", "comment", "shell", "password", "groups", "expiry"] as const;
type Property = (typeof ORDER)[number];

function expiryDate(days: string | undefined): string | undefined {
  if (days === undefined || !/^\d+$/.test(days)) return undefined;
  return new Date(Number(days) * 86_400_000).toISOString().slice(0, 10);
}

function readState(root: string, entry: PasswdEntry, groups: readonly GroupEntry[]): AccountState {
  const shadow = readShadow(root);
  const line = shadow.ok ? shadow.entries.find((e) => e.name === entry.name) : undefined;
  return {
    uid: entry.uid,
    gid: entry.gid,
    comment: entry.gecos,
    home: entry.dir,
    shell: entry.shell,
    password: line?.hash,
    groups: groups.filter((g) => g.members.includes(entry.name)).map((g) => g.name),
    expiry: expiryDate(line?.expire),
  };
}

/** The gid a group name or number stands for, or undefined when there is no such group. */
export function groupId(value: string | number, groups: readonly GroupEntry[]): number | undefined {
  if (typeof value === "number") return value;
  const named = groups.find((g) => g.name === value);
  if (named) return named.gid;
  return /^\d+$/.test(value) ? Number(value) : undefined;
}

function wantedGroups(spec: AccountSpec, state: AccountState): string[] | undefined {
  if (spec.groups === undefined) return undefined;
  const wanted = spec.groupsInclusive ? [...spec.groups] : [...spec.groups, ...state.groups];
  return [...new Set(wanted)].sort();
}

type Values = Record<Property, [string | undefined, string | undefined]>;

/** Each property's current text and wanted text (undefined: not managed). */
function values(spec: AccountSpec, state: AccountState, groups: readonly GroupEntry[]): Values {
  const gid = spec.gid === undefined ? undefined : groupId(spec.gid, groups);
  return {
    home: [state.home, spec.home],
    uid: [String(state.uid), spec.uid === undefined ? undefined : String(spec.uid)],
    gid: [
      String(state.gid),
      spec.gid === undefined ? undefined : gid === undefined ? String(spec.gid) : String(gid),
    ],
    comment: [state.comment, spec.comment],
    shell: [state.shell, spec.shell],
    password: [state.password, spec.password],
    groups: [[...new Set(state.groups)].sort().join(","), wantedGroups(spec, state)?.join(",")],
    expiry: [state.expiry ?? "absent", spec.expiry === undefined ? undefined : (spec.expiry ?? "absent")],
  };
}

function differences(spec: AccountSpec, state: AccountState, groups: readonly GroupEntry[]): Change[] {
  const table = values(spec, state, groups);
  const changes: Change[] = [];
  for (const property of ORDER) {
    const [old, now] = table[property];
    if (now === undefined || now === old) continue;
    const message =
      property === "password" ? "password changed" : `${property} changed from '${old ?? ""}' to '${now}'`;
    changes.push({
      property,
      old: property === "groups" ? state.groups.join(",") : old,
      new: now,
      message,
      applied: false,
    });
  }
  return changes;
}

/** Why the shell cannot be used, as Puppet says it, or undefined (checked on the running system, as the tools run there). */
function shellProblem(shell: string | undefined): string | undefined {
  if (shell === undefined) return undefined;
  const path = shell;
  if (!existsSync(path)) return `Shell ${shell} must exist`;
  try {
    accessSync(path, constants.X_OK);
  } catch {
    return `Shell ${shell} must be executable`;
  }
  return undefined;
}

/** useradd's command line: every property given (by flag, alphabetically by property), then the switches. */
function addCommand(spec: AccountSpec, root: string, groups: readonly GroupEntry[]): ToolCommand {
  const command = new ToolCommand(USERADD, root);
  if (spec.gid === undefined && groups.some((g) => g.name === spec.name)) command.option("-g", spec.name);
  if (spec.comment) command.option("-c", spec.comment);
  if (spec.expiry) command.option("-e", spec.expiry);
  if (spec.gid !== undefined && spec.gid !== "") command.option("-g", String(spec.gid));
  if (spec.groups && spec.groups.length > 0) command.option("-G", spec.groups.join(","));
  if (spec.home) command.option("-d", spec.home);
  if (spec.shell) command.option("-s", spec.shell);
  if (spec.uid !== undefined) command.option("-u", String(spec.uid));
  if (spec.allowDuplicate) command.word("-o");
  command.word(spec.manageHome ? "-m" : "-M");
  if (spec.system) command.word("-r");
  return command.word(spec.name);
}

const FLAGS: Record<Exclude<Property, "password">, string> = {
  home: "-d",
  uid: "-u",
  gid: "-g",
  comment: "-c",
  shell: "-s",
  groups: "-G",
  expiry: "-e",
};

function setPassword(run: ToolRunner, root: string, name: string, hash: string): string | undefined {
  const argv = root === "/" ? [CHPASSWD, "-e"] : [CHPASSWD, "-R", root, "-e"];
  const result = run(argv, `${name}:${hash}\n`);
  const said = `${result.stdout}${result.stderr}${result.error ?? ""}`;
  return result.status === 0 && said === "" ? undefined : `chpasswd said ${said.trim()}`;
}

/** Sets one property; undefined when it worked, else why not. */
function setProperty(
  spec: AccountSpec,
  change: Change,
  options: AccountOptions,
  root: string,
): string | undefined {
  const run = options.run ?? runTool;
  const property = change.property as Property;
  if (property === "password") return setPassword(run, root, spec.name, change.new ?? "");
  if (property === "gid" && !/^\d+$/.test(change.new ?? "")) return `Could not find group(s) ${change.new}`;
  if (property === "shell") {
    const problem = shellProblem(spec.shell);
    if (problem) return problem;
  }
  const value = property === "expiry" && change.new === "absent" ? "" : (change.new ?? "");
  const command = new ToolCommand(USERMOD, root).option(FLAGS[property], value);
  if (property === "uid" && spec.allowDuplicate) command.word("-o");
  return runChecked(run, command.word(spec.name));
}

function create(
  spec: AccountSpec,
  options: AccountOptions,
  root: string,
  groups: readonly GroupEntry[],
): string | undefined {
  const problem = shellProblem(spec.shell);
  if (problem) return problem;
  const run = options.run ?? runTool;
  const said = runChecked(run, addCommand(spec, root, groups));
  if (said !== undefined) return said;
  return spec.password === undefined ? undefined : setPassword(run, root, spec.name, spec.password);
}

function remove(spec: AccountSpec, options: AccountOptions, root: string): string | undefined {
  const command = new ToolCommand(USERDEL, root);
  if (spec.manageHome) command.word("-r");
  return runChecked(options.run ?? runTool, command.word(spec.name));
}

function ensureChange(spec: AccountSpec): Change {
  const present = spec.ensure === "present";
  return {
    property: "ensure",
    old: present ? "absent" : "present",
    new: spec.ensure,
    message: present ? "created" : "removed",
    applied: false,
  };
}

/** Brings one account to the spec; runs the tools only when something differs. */
export function ensureAccount(spec: AccountSpec, options: AccountOptions): AccountResult {
  const root = options.root ?? "/";
  const passwd = readPasswd(root);
  const groups = readGroups(root);
  if (!passwd.ok)
    return { status: "failed", changes: [], error: `Could not read /etc/passwd: ${passwd.error}` };
  if (!groups.ok)
    return { status: "failed", changes: [], error: `Could not read /etc/group: ${groups.error}` };
  const entry = passwd.entries.find((e) => e.name === spec.name);
  const found = entry ? readState(root, entry, groups.entries) : undefined;
  const exists = found !== undefined;
  const changes =
    (spec.ensure === "present") === exists
      ? found
        ? differences(spec, found, groups.entries)
        : []
      : [ensureChange(spec)];
  if (changes.length === 0) return { status: "unchanged", changes, found };
  if (options.dryRun) return { status: "changed", changes, found };
  const applied: Change[] = [];
  for (const change of changes) {
    const said =
      change.property !== "ensure"
        ? setProperty(spec, change, options, root)
        : spec.ensure === "present"
          ? create(spec, options, root, groups.entries)
          : remove(spec, options, root);
    if (said !== undefined) {
      // Puppet's own checks say what is wrong plainly; a tool's failure is put in context.
      const plain = said.startsWith("Could not find group") || said.startsWith("Shell ");
      const error = plain ? said : `${failureContext("user", spec.name, change)}: ${said}`;
      return { status: "failed", changes: [...applied, ...changes.slice(applied.length)], found, error };
    }
    applied.push({ ...change, applied: true });
  }
  return { status: "changed", changes: applied, found };
}
