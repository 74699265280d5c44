/**
 * Puppet's `exec`, as Puppet 7.23 keeps it. Its one property, `returns`,
 * is out of sync (`notrun`) unless a check says the command need not run:
 * `refreshonly` (only a refresh runs it), `creates` (a path exists),
 * `unless` (a command exits 0), `onlyif` (a command exits non-zero), in
 * that order. Checks run in noop too. Running it tries up to `tries` times
 * (`try_sleep` seconds apart) until the exit status is one of `returns`;
 * its output is logged (`logoutput`: always, never, or on failure, at the
 * resource's loglevel); success is the event `executed successfully`, a
 * status outside `returns` fails the resource with `'cmd' returned 1
 * instead of one of [0]`, a time limit with `Command exceeded timeout`.
 *
 * Refresh (an event along notify/subscribe): the checks again, without
 * refreshonly; then the `refresh` command if given (its status is not
 * judged), else the command as above. A non-refreshonly exec that ran and
 * is then refreshed runs a second time, as in Puppet.
 *
 * Commands run through the command provider (exec-run.ts).
 */
import type { CatalogResource } from "../../catalog/model.js";
import type {
  ApplyContext,
  ResourceEvent,
  ResourceResult,
  ResourceType,
} from "../../catalog/resource-type.js";
import { existsSync } from "node:fs";
import type { Logger } from "../../system/logger.js";
import { formatValue, noopMessage } from "../format.js";
import { puppetLogLevel } from "../run-settings.js";
import { type ExecCommand, type ExecParams, readExecParams } from "./exec-params.js";
import { commandText, runExecCommand } from "./exec-run.js";

type CheckName = "refreshonly" | "creates" | "unless" | "onlyif";

/** Whether the check lets the command run; an error when a check command cannot run. */
type CheckResult = { readonly run: boolean } | { readonly error: string };

function params(resource: CatalogResource): ExecParams {
  const read = readExecParams(resource);
  if ("problems" in read) throw new Error(read.problems[0]);
  return read.params;
}

/** Ruby's inspect of a check value (`"test -f /x"`, `["test", "-f"]`), for the timeout message. */
function inspect(cmd: ExecCommand): string {
  return typeof cmd === "string" ? JSON.stringify(cmd) : commandText(cmd);
}

/** The logger of one property (Puppet's source `.../Exec[x]/returns`), when the applier gives one. */
function propertyLog(context: ApplyContext, property: string): Logger {
  return context.propertyLogger?.(property) ?? context.logger;
}

function runCheck(
  name: "unless" | "onlyif",
  cmd: ExecCommand,
  p: ExecParams,
  context: ApplyContext,
): CheckResult {
  const run = runExecCommand(cmd, p, context.logger);
  if (run.kind === "error") return { error: run.message };
  const logger = propertyLog(context, name);
  if (run.kind === "timeout") {
    logger.error(`Check ${inspect(cmd)} exceeded timeout`);
    return { run: false };
  }
  for (const line of splitLines(run.output)) logger.debug(line);
  return { run: name === "onlyif" ? run.status === "0" : run.status !== "0" };
}

/** Puppet's check_all_attributes: whether every check lets the command run. */
function checksAllow(p: ExecParams, context: ApplyContext, refreshing: boolean): CheckResult {
  const checks: [CheckName, () => CheckResult][] = [];
  if (!refreshing && p.refreshonly) checks.push(["refreshonly", () => ({ run: false })]);
  for (const path of p.creates) checks.push(["creates", () => ({ run: !existsSync(path) })]);
  for (const cmd of p.unless) checks.push(["unless", () => runCheck("unless", cmd, p, context)]);
  for (const cmd of p.onlyif) checks.push(["onlyif", () => runCheck("onlyif", cmd, p, context)]);
  for (const [name, check] of checks) {
    const result = check();
    if ("error" in result) return result;
    if (!result.run) {
      context.logger.debug(`'${commandText(p.command)}' won't be executed because of failed check '${name}'`);
      return { run: false };
    }
  }
  return { run: true };
}

/** Ruby's `split(/\n/)`: trailing empty lines dropped. */
function splitLines(output: string): string[] {
  const lines = output.split("\n");
  while (lines.length > 0 && lines.at(-1) === "") lines.pop();
  return lines;
}

/** The `returns` property's sync: the command run (with its tries); the failure message, if any. */
async function runCommandWithTries(
  resource: CatalogResource,
  p: ExecParams,
  context: ApplyContext,
): Promise<string | undefined> {
  const logger = propertyLog(context, "returns");
  let last: { status: string; output: string } | undefined;
  for (let attempt = 1; attempt <= p.tries; attempt++) {
    if (p.tries > 1) logger.debug(`Exec try ${attempt}/${p.tries}`);
    const run = runExecCommand(p.command, p, logger);
    if (run.kind === "timeout") return "Command exceeded timeout";
    if (run.kind === "error") return run.message;
    last = run;
    if (p.returns.includes(run.status)) break;
    if (p.trySleep > 0 && p.tries > 1) {
      logger.debug(`Sleeping for ${p.trySleep} seconds between tries`);
      await new Promise((resolve) => setTimeout(resolve, p.trySleep * 1000));
    }
  }
  const { status, output } = last as { status: string; output: string };
  const ok = p.returns.includes(status);
  if (p.logoutput === "true" || (p.logoutput === "on_failure" && !ok)) {
    const level = puppetLogLevel(resource.parameters.loglevel);
    for (const line of splitLines(output)) logger.log(level, line);
  }
  if (ok) return undefined;
  return `'${commandText(p.command)}' returned ${status} instead of one of [${p.returns.join(",")}]`;
}

function returnsEvent(p: ExecParams, status: ResourceEvent["status"], message: string): ResourceEvent {
  return {
    property: "returns",
    previousValue: "notrun",
    desiredValue: [...p.returns],
    name: "executed_command",
    status,
    message,
  };
}

async function applyExec(resource: CatalogResource, context: ApplyContext): Promise<ResourceResult> {
  const p = params(resource);
  const allowed = checksAllow(p, context, false);
  if ("error" in allowed) return { events: [], failed: allowed.error, provider: p.provider };
  if (!allowed.run) return { events: [], provider: p.provider };
  if (context.noop) {
    return { events: [returnsEvent(p, "noop", noopMessage("notrun", [...p.returns]))], provider: p.provider };
  }
  const failure = await runCommandWithTries(resource, p, context);
  if (failure === undefined) {
    return { events: [returnsEvent(p, "success", "executed successfully")], provider: p.provider };
  }
  // Puppet logs the failure as its own error before the failed change.
  (context.runLogger ?? context.logger).error(failure);
  const message = `change from 'notrun' to ${formatValue([...p.returns])} failed: ${failure}`;
  return { events: [returnsEvent(p, "failure", message)], failed: failure, provider: p.provider };
}

/** Puppet's exec refresh: the checks but refreshonly, then `refresh` or the command. */
async function refreshExec(resource: CatalogResource, context: ApplyContext): Promise<ResourceResult> {
  const p = params(resource);
  const allowed = checksAllow(p, context, true);
  if ("error" in allowed) return { events: [], failed: allowed.error };
  if (!allowed.run) return { events: [] };
  if (p.refresh !== undefined) {
    const run = runExecCommand(p.refresh, p, context.logger);
    if (run.kind === "timeout") return { events: [], failed: "execution expired" };
    return run.kind === "error" ? { events: [], failed: run.message } : { events: [] };
  }
  const failure = await runCommandWithTries(resource, p, context);
  return failure === undefined ? { events: [] } : { events: [], failed: failure };
}

/** Files an exec depends on when the catalog manages them: its cwd and the absolute paths its commands name. */
function autorequireExec(resource: CatalogResource): string[] {
  const read = readExecParams(resource);
  if ("problems" in read) return [];
  const p = read.params;
  const refs: string[] = [];
  if (p.cwd !== undefined) refs.push(`File[${p.cwd}]`);
  const first = (cmd: ExecCommand) => (typeof cmd === "string" ? cmd : (cmd[0] ?? ""));
  for (const match of first(p.command).matchAll(/^(\/\S+)/g)) refs.push(`File[${match[1]}]`);
  for (const match of first(p.command).matchAll(/^"([^"]+)"/g)) refs.push(`File[${match[1]}]`);
  for (const cmd of [...p.onlyif, ...p.unless]) {
    for (const match of first(cmd).matchAll(/^(\/\S+)/g)) refs.push(`File[${match[1]}]`);
  }
  if (p.user !== undefined && !/^\d+$/.test(p.user)) refs.push(`User[${p.user}]`);
  return refs;
}

export const execType: ResourceType = {
  name: "exec",
  validate(resource) {
    const read = readExecParams(resource);
    return "problems" in read ? read.problems.slice(0, 1) : [];
  },
  apply: applyExec,
  refresh: refreshExec,
  autorequire: autorequireExec,
};
