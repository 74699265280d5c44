/**
 * The parameters of Puppet's `exec` as Puppet 7.23 munges and validates
 * them: `returns` as strings, `path` split on `:`, `timeout` a number of
 * seconds (0: none, default 300), `tries` an integer ≥ 1, `try_sleep` a
 * number ≥ 0, `umask` octal, `environment` entries `NAME=value`,
 * `logoutput` true/false/on_failure (default on_failure), `refreshonly`
 * true/false, `provider` posix (default) or shell. A value Puppet refuses
 * is a problem with Puppet's words; reading never throws.
 */
import type { CatalogResource, ParamValue } from "../../catalog/model.js";

/** A command as the catalog gives it: a string, or an argument vector. */
export type ExecCommand = string | readonly string[];

export interface ExecParams {
  readonly command: ExecCommand;
  readonly provider: "posix" | "shell";
  /** Directories searched for an unqualified command; undefined when `path` is not set. */
  readonly path?: readonly string[];
  readonly cwd?: string;
  readonly environment: readonly string[];
  readonly creates: readonly string[];
  readonly onlyif: readonly ExecCommand[];
  readonly unless: readonly ExecCommand[];
  readonly refreshonly: boolean;
  readonly refresh?: ExecCommand;
  /** Accepted exit codes, as text (Puppet's munged `returns`). */
  readonly returns: readonly string[];
  /** Seconds; 0 is no limit. */
  readonly timeout: number;
  readonly tries: number;
  readonly trySleep: number;
  readonly logoutput: "true" | "false" | "on_failure";
  readonly user?: string;
  readonly group?: string;
  readonly umask?: number;
}

export type ReadParams = { readonly params: ExecParams } | { readonly problems: readonly string[] };

function text(value: ParamValue | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === "string" ? value : String(value);
}

function list(value: ParamValue | undefined): ParamValue[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? [...value] : [value];
}

/** A check's commands: a string, an array of strings, or an array mixing strings and argument vectors. */
function commands(value: ParamValue | undefined): ExecCommand[] {
  return list(value).map((item) => (Array.isArray(item) ? item.map((v) => String(v)) : String(item)));
}

function command(value: ParamValue | undefined): ExecCommand | undefined {
  if (value === undefined || value === null) return undefined;
  return Array.isArray(value) ? value.map((v) => String(v)) : String(value);
}

/** Puppet's message for a value outside a parameter's list. */
function invalidValue(value: ParamValue, valid: readonly string[]): string {
  return `Invalid value ${JSON.stringify(String(value))}. Valid values are ${valid.join(", ")}.`;
}

/** true/false (booleans or their words), or the named extra values. */
function choice<T extends string>(
  value: ParamValue | undefined,
  fallback: T,
  valid: readonly T[],
  problems: string[],
): T {
  if (value === undefined || value === null) return fallback;
  const word = String(value) as T;
  if (valid.includes(word)) return word;
  problems.push(invalidValue(value, valid));
  return fallback;
}

function readTimeout(value: ParamValue | undefined, problems: string[]): number {
  const first = Array.isArray(value) ? value[0] : value;
  if (first === undefined || first === null) return 300;
  const seconds = Number(first);
  if (String(first).trim() === "" || Number.isNaN(seconds)) {
    problems.push("The timeout must be a number.");
    return 300;
  }
  return Math.max(seconds, 0);
}

function readTries(value: ParamValue | undefined, problems: string[]): number {
  if (value === undefined || value === null) return 1;
  if (typeof value === "string" && !/^\d+$/.test(value)) {
    problems.push("Tries must be an integer");
    return 1;
  }
  const tries = Number(value);
  if (!Number.isInteger(tries) || tries < 1) {
    problems.push("Tries must be an integer >= 1");
    return 1;
  }
  return tries;
}

function readTrySleep(value: ParamValue | undefined, problems: string[]): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === "string" && !/^[-\d.]+$/.test(value)) {
    problems.push("try_sleep must be a number");
    return 0;
  }
  const seconds = Number(value);
  if (Number.isNaN(seconds) || seconds < 0) {
    problems.push("try_sleep cannot be a negative number");
    return 0;
  }
  return seconds;
}

function readUmask(value: ParamValue | undefined, problems: string[]): number | undefined {
  const word = text(value);
  if (word === undefined) return undefined;
  if (/^0?[0-7]{1,4}$/.test(word)) return Number.parseInt(word, 8);
  problems.push(`The umask specification is invalid: ${JSON.stringify(word)}`);
  return undefined;
}

function readEnvironment(value: ParamValue | undefined, problems: string[]): string[] {
  const entries = list(value).map((v) => String(v));
  for (const entry of entries) {
    if (!/\w+=/.test(entry)) problems.push(`Invalid environment setting '${entry}'`);
  }
  return entries;
}

/** `path` as Puppet keeps it: each item split on `:`. */
function readPath(value: ParamValue | undefined): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  return list(value).flatMap((v) => String(v).split(":"));
}

/** The program of a command as Puppet's `extractexe` finds it: the first word, or a quoted start. */
export function extractExe(cmd: ExecCommand): string {
  if (typeof cmd !== "string") return cmd[0] ?? "";
  const quoted = /^"([^"]+)"|^'([^']+)'/.exec(cmd);
  if (quoted) return quoted[1] ?? quoted[2] ?? "";
  return cmd.split(" ")[0] ?? "";
}

/** Puppet's `validatecmd` of the posix provider: unqualified needs `path`. */
function validateCommand(
  cmd: ExecCommand,
  params: Pick<ExecParams, "path" | "provider">,
): string | undefined {
  if (params.provider === "shell" || params.path !== undefined) return undefined;
  const exe = extractExe(cmd);
  if (exe.startsWith("/")) return undefined;
  return `'${exe}' is not qualified and no path was specified. Please qualify the command or specify a path.`;
}

/** Reads and checks an `exec` resource's parameters. */
export function readExecParams(resource: CatalogResource): ReadParams {
  const p = resource.parameters;
  const problems: string[] = [];
  const cmd = command(p.command ?? resource.title) ?? resource.title;
  const provider = choice(p.provider, "posix", ["posix", "shell"] as const, problems);
  const params: ExecParams = {
    command: cmd,
    provider,
    path: readPath(p.path),
    cwd: text(p.cwd),
    environment: readEnvironment(p.environment, problems),
    creates: list(p.creates).map((v) => String(v)),
    onlyif: commands(p.onlyif),
    unless: commands(p.unless),
    refreshonly: choice(p.refreshonly, "false", ["true", "false"] as const, problems) === "true",
    refresh: command(p.refresh),
    returns: list(p.returns ?? "0").map((v) => String(v)),
    timeout: readTimeout(p.timeout, problems),
    tries: readTries(p.tries, problems),
    trySleep: readTrySleep(p.try_sleep, problems),
    logoutput: choice(p.logoutput, "on_failure", ["true", "false", "on_failure"] as const, problems),
    user: text(p.user),
    group: text(p.group),
    umask: readUmask(p.umask, problems),
  };
  const checked = [params.command, ...params.onlyif, ...params.unless];
  if (params.refresh !== undefined) checked.push(params.refresh);
  for (const c of checked) {
    const problem = validateCommand(c, params);
    if (problem !== undefined) problems.push(problem);
  }
  return problems.length > 0 ? { problems } : { params };
}
