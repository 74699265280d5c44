/**
 * package, service, user, group and cron, over the providers Puppet's
 * types use (packages/debian, services, users, cron), with Chef's actions:
 * a package is installed, upgraded, removed or purged; a service started,
 * stopped, restarted, reloaded, enabled or disabled (Chef's default action
 * for a service is `nothing`); users and groups created or removed; a
 * cron job created or deleted. RecipeSystem replaces the machine's tools.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ensureCron } from "../../providers/cron/index.js";
import { ensureDebPackage } from "../../providers/packages/debian.js";
import { commandServiceBackend } from "../../providers/services/init-script.js";
import { ensureService, restartService, type ServiceBackend } from "../../providers/services/service.js";
import { systemdBackend } from "../../providers/services/systemd.js";
import { commandFailure, systemRunner } from "../../providers/tool-runner.js";
import {
  accountExists,
  ensureAccount,
  ensureGroup,
  groupExists,
  lockAccount,
} from "../../providers/users/index.js";
import {
  type ActionOutcome,
  type ActionTarget,
  failed,
  type RecipeActionContext,
  type RecipeResourceType,
  textProp,
  UNCHANGED,
} from "./type.js";

const PACKAGE_ENSURE: Readonly<Record<string, string>> = {
  install: "present",
  upgrade: "latest",
  remove: "absent",
  purge: "purged",
};

export const packageType: RecipeResourceType = {
  name: "package",
  actions: ["install", "upgrade", "remove", "purge", "nothing"],
  defaultAction: "install",
  properties: ["packageName", "version", "source", "options"],
  nameProperty: "packageName",
  run: async (action, target, context) => {
    if (action === "nothing") return UNCHANGED;
    const p = target.props;
    const name = textProp(p.packageName) ?? target.declaration.name;
    const version = textProp(p.version);
    const ensure =
      action === "install" && version !== undefined ? version : (PACKAGE_ENSURE[action] ?? "present");
    const source = textProp(p.source);
    const result = ensureDebPackage(
      {
        name,
        ensure,
        tool: "apt",
        source,
        installOptions: Array.isArray(p.options) ? p.options.map(String) : [],
      },
      { noop: context.whyRun, run: context.system.tools },
    );
    if (result.status === "failed") return failed(result.error ?? "failed");
    if (result.status === "unchanged") return { ...UNCHANGED, provider: "apt" };
    const shown = result.latest ?? version ?? "";
    const line =
      action === "remove" || action === "purge"
        ? `${action} package ${name}`
        : `${action === "upgrade" ? "upgrade" : "install"} version ${shown || "(candidate)"} of package ${name}`;
    return { updated: true, lines: [line], provider: "apt" };
  },
};

function systemdIsInit(): boolean {
  try {
    return readFileSync("/proc/1/comm", "utf8").includes("systemd");
  } catch {
    return false;
  }
}

function serviceBackend(target: ActionTarget, context: RecipeActionContext): ServiceBackend {
  const p = target.props;
  const name = textProp(p.serviceName) ?? target.declaration.name;
  const run = context.system.tools ?? systemRunner({});
  const provider =
    textProp(p.provider) ?? ((context.system.systemdRuns ?? systemdIsInit()) ? "systemd" : "debian");
  if (provider === "systemd") return systemdBackend(name, { run });
  const flavour = provider === "init" || provider === "base" ? provider : "debian";
  return commandServiceBackend(
    {
      name,
      flavour,
      commands: {
        status: textProp(p.statusCommand),
        start: textProp(p.startCommand),
        stop: textProp(p.stopCommand),
        restart: textProp(p.restartCommand),
      },
      pattern: textProp(p.pattern),
      ...(context.system.initScriptDirectory ? { path: [context.system.initScriptDirectory] } : {}),
    },
    { run, processTable: context.system.processTable },
  );
}

function serviceOutcome(
  result: { status: string; error?: string; changes: readonly unknown[] },
  line: string,
  provider: string,
): ActionOutcome {
  if (result.status === "failed") return { ...failed(result.error ?? "failed"), provider };
  if (result.status === "unchanged") return { ...UNCHANGED, provider };
  return { updated: true, lines: [line], provider };
}

/** reload: the resource's command, else `systemctl reload`, else a restart. */
function reloadService(
  target: ActionTarget,
  context: RecipeActionContext,
  backend: ServiceBackend,
): ActionOutcome {
  const state = backend.status();
  if (typeof state !== "string") return failed(state.error);
  if (state !== "running") return { ...UNCHANGED, provider: backend.provider };
  const line = `reload service ${target.ref}`;
  if (context.whyRun) return { updated: true, lines: [line], provider: backend.provider };
  const given = textProp(target.props.reloadCommand);
  const name = textProp(target.props.serviceName) ?? target.declaration.name;
  const run = context.system.tools ?? systemRunner({});
  const argv =
    given !== undefined
      ? ["/bin/sh", "-c", given]
      : backend.provider === "systemd"
        ? ["systemctl", "reload", "--", name]
        : undefined;
  let error: string | undefined;
  if (argv === undefined) error = backend.restart();
  else {
    const out = run(argv);
    error = out.status === 0 ? undefined : commandFailure(argv, out);
  }
  return error === undefined ? { updated: true, lines: [line], provider: backend.provider } : failed(error);
}

export const serviceType: RecipeResourceType = {
  name: "service",
  actions: ["start", "stop", "restart", "reload", "enable", "disable", "nothing"],
  defaultAction: "nothing",
  properties: [
    "serviceName",
    "provider",
    "startCommand",
    "stopCommand",
    "restartCommand",
    "statusCommand",
    "reloadCommand",
    "pattern",
  ],
  nameProperty: "serviceName",
  run: async (action, target, context) => {
    if (action === "nothing") return UNCHANGED;
    const line = `${action} service ${target.ref}`;
    const script = missingInitScript(action, target, context);
    if (script !== undefined) return initScriptAbsent(action, script, line, context.whyRun);
    const backend = serviceBackend(target, context);
    const noop = context.whyRun;
    switch (action) {
      case "start":
      case "stop":
        return serviceOutcome(
          ensureService(backend, { ensure: action === "start" ? "running" : "stopped", noop }),
          line,
          backend.provider,
        );
      case "enable":
      case "disable":
        return serviceOutcome(
          ensureService(backend, { enable: action === "enable", noop }),
          line,
          backend.provider,
        );
      case "restart": {
        // Chef restarts a stopped service too: it ends up running.
        const state = backend.status();
        if (typeof state !== "string") return failed(state.error);
        if (state !== "running")
          return serviceOutcome(ensureService(backend, { ensure: "running", noop }), line, backend.provider);
        return serviceOutcome(restartService(backend, noop), line, backend.provider);
      }
      default:
        return reloadService(target, context, backend);
    }
  },
};

const ACTION_COMMAND: Readonly<Record<string, string>> = {
  start: "startCommand",
  stop: "stopCommand",
  restart: "restartCommand",
  reload: "reloadCommand",
};

/**
 * The init script an init-script service needs for `action` and lacks
 * (chef-client's init provider asserts it unless the resource gives the
 * action's command); undefined when systemd runs the service, a command is
 * given, or the script is there.
 */
function missingInitScript(
  action: string,
  target: ActionTarget,
  context: RecipeActionContext,
): string | undefined {
  const command = ACTION_COMMAND[action];
  if (command === undefined || target.props[command] !== undefined) return undefined;
  const p = target.props;
  const provider =
    textProp(p.provider) ?? ((context.system.systemdRuns ?? systemdIsInit()) ? "systemd" : "debian");
  if (provider === "systemd" || provider === "base") return undefined;
  const name = textProp(p.serviceName) ?? target.declaration.name;
  const script = join(context.system.initScriptDirectory ?? "/etc/init.d", name);
  return existsSync(script) ? undefined : script;
}

/**
 * No init script: a failure, or in why-run chef-client's assumption that
 * an earlier resource would have installed it, the service then taken as
 * stopped (start and restart would run; stop and reload have nothing to do).
 */
function initScriptAbsent(action: string, script: string, line: string, whyRun: boolean): ActionOutcome {
  if (!whyRun) return failed(`${script} does not exist!`);
  const assumptions = [
    `${script} does not exist!`,
    `Init script '${script}' doesn't exist, assuming a prior action would have created it.`,
  ];
  const runs = action === "start" || action === "restart";
  return { updated: runs, lines: runs ? [line] : [], assumptions };
}

function rootOf(context: RecipeActionContext): string | undefined {
  return context.system.root;
}

/**
 * Chef's `modify`, `lock` and `unlock` need the account: without it they
 * fail, or in why-run assume an earlier resource would have created it.
 */
function absentAccount(name: string, whyRun: boolean): ActionOutcome {
  const message = `Cannot modify user ${name} - does not exist!`;
  if (!whyRun) return failed(message);
  return { ...UNCHANGED, assumptions: [message, `Assuming user ${name} would have been created`] };
}

function userExists(name: string, context: RecipeActionContext): boolean {
  return accountExists(name, rootOf(context));
}

function lockUser(name: string, lock: boolean, context: RecipeActionContext): ActionOutcome {
  const options = { dryRun: context.whyRun, root: rootOf(context), run: context.system.accountTools };
  const result = lockAccount(name, lock, options);
  if (!result.exists) return absentAccount(name, context.whyRun);
  if (result.status === "failed") return failed(result.error ?? "failed");
  if (result.status === "unchanged") return { ...UNCHANGED, provider: "useradd" };
  return {
    updated: true,
    lines: [lock ? `lock the user ${name}` : `unlock user ${name}`],
    provider: "useradd",
  };
}

export const userType: RecipeResourceType = {
  name: "user",
  actions: ["create", "remove", "modify", "manage", "lock", "unlock", "nothing"],
  defaultAction: "create",
  properties: ["username", "uid", "gid", "comment", "home", "shell", "password", "manageHome", "system"],
  nameProperty: "username",
  run: async (action, target, context) => {
    if (action === "nothing") return UNCHANGED;
    const p = target.props;
    const name = textProp(p.username) ?? target.declaration.name;
    if (action === "lock" || action === "unlock") return lockUser(name, action === "lock", context);
    if ((action === "modify" || action === "manage") && !userExists(name, context))
      return action === "manage" ? UNCHANGED : absentAccount(name, context.whyRun);
    const gid = p.gid;
    const result = ensureAccount(
      {
        name,
        ensure: action === "remove" ? "absent" : "present",
        uid: typeof p.uid === "number" ? p.uid : undefined,
        gid: typeof gid === "number" || typeof gid === "string" ? gid : undefined,
        comment: textProp(p.comment),
        home: textProp(p.home),
        shell: textProp(p.shell),
        password: textProp(p.password),
        manageHome: p.manageHome === true,
        system: p.system === true,
      },
      { dryRun: context.whyRun, root: rootOf(context), run: context.system.accountTools },
    );
    if (result.status === "failed") return failed(result.error ?? "failed");
    if (result.status === "unchanged") return { ...UNCHANGED, provider: "useradd" };
    const verb =
      action === "remove" ? "remove" : action !== "create" ? action : result.found ? "alter" : "create";
    const lines = [
      `${verb} user ${name}`,
      ...(result.found && action !== "remove" ? result.changes.map((c) => `change ${c.property}`) : []),
    ];
    return { updated: true, lines, provider: "useradd" };
  },
};

/** Chef's check: a name both in `members` and `excludedMembers` is a mistake. */
function checkMembers(props: Readonly<Record<string, unknown>>): string[] {
  const members = Array.isArray(props.members) ? props.members.map(String) : [];
  const excluded = Array.isArray(props.excludedMembers) ? props.excludedMembers.map(String) : [];
  const both = members.filter((m) => excluded.includes(m));
  const problems = both.length
    ? [`Attempting to both add and remove users from a group: '${both.join(", ")}'`]
    : [];
  if (excluded.length > 0 && props.append !== true)
    problems.push("excludedMembers needs `append: true`, as Chef's");
  return problems;
}

function absentGroup(ref: string, whyRun: boolean): ActionOutcome {
  const message = `Cannot modify ${ref} - group does not exist!`;
  if (!whyRun) return failed(message);
  const assumed = `Group ${ref} does not exist. Unless it would have been created earlier in this run, this attempt to modify it would fail.`;
  return { ...UNCHANGED, assumptions: [message, assumed] };
}

export const groupType: RecipeResourceType = {
  name: "group",
  actions: ["create", "remove", "modify", "manage", "nothing"],
  defaultAction: "create",
  properties: ["groupName", "gid", "members", "excludedMembers", "append", "system"],
  nameProperty: "groupName",
  validate: checkMembers,
  run: async (action, target, context) => {
    if (action === "nothing") return UNCHANGED;
    const p = target.props;
    const name = textProp(p.groupName) ?? target.declaration.name;
    if ((action === "modify" || action === "manage") && !groupExists(name, rootOf(context)))
      return action === "manage" ? UNCHANGED : absentGroup(target.ref, context.whyRun);
    const list = (value: unknown): string[] | undefined =>
      Array.isArray(value) ? value.map(String) : undefined;
    const result = ensureGroup(
      {
        name,
        ensure: action === "remove" ? "absent" : "present",
        gid: typeof p.gid === "number" ? p.gid : undefined,
        members: list(p.members),
        membersInclusive: p.append !== true,
        excludedMembers: p.append === true ? list(p.excludedMembers) : undefined,
        system: p.system === true,
      },
      { dryRun: context.whyRun, root: rootOf(context), run: context.system.accountTools },
    );
    if (result.status === "failed") return failed(result.error ?? "failed");
    if (result.status === "unchanged") return { ...UNCHANGED, provider: "groupadd" };
    const verb =
      action === "remove" ? "remove" : action !== "create" ? action : result.found ? "alter" : "create";
    const lines = [
      `${verb} group ${name}`,
      ...(result.found && action !== "remove" ? result.changes.map((c) => `change ${c.property}`) : []),
    ];
    return { updated: true, lines, provider: "groupadd" };
  },
};

const CRON_FIELDS = [
  ["minute", "minute"],
  ["hour", "hour"],
  ["day", "monthday"],
  ["month", "month"],
  ["weekday", "weekday"],
] as const;

export const cronType: RecipeResourceType = {
  name: "cron",
  actions: ["create", "delete", "nothing"],
  defaultAction: "create",
  properties: ["minute", "hour", "day", "month", "weekday", "time", "command", "user", "environment"],
  validate: (props) => (props.command === undefined ? ["cron needs `command`"] : []),
  run: async (action, target, context) => {
    if (action === "nothing") return UNCHANGED;
    const p = target.props;
    const fields: Record<string, readonly string[] | null> = {};
    for (const [chef, field] of CRON_FIELDS) {
      const value = textProp(p[chef]) ?? "*";
      fields[field] = value === "*" ? null : value.split(",");
    }
    const environment = Object.entries((p.environment as Record<string, string>) ?? {}).map(
      ([k, v]) => `${k}=${v}`,
    );
    const time = textProp(p.time);
    const result = ensureCron(
      {
        name: target.declaration.name,
        user: textProp(p.user) ?? "root",
        ensure: action === "delete" ? "absent" : "present",
        command: textProp(p.command),
        special: time ?? null,
        fields: time === undefined ? fields : {},
        environment,
      },
      { dryRun: context.whyRun, root: rootOf(context), store: context.system.crontabs },
    );
    if (result.status === "failed") return failed(result.error ?? "failed");
    if (result.status === "unchanged") return UNCHANGED;
    const verb = action === "delete" ? "delete" : result.found ? "update" : "add";
    return { updated: true, lines: [`${verb} crontab entry for ${target.ref}`] };
  },
};
