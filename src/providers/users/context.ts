/**
 * What the users provider is given (the desired account, where the
 * databases are, dry run, how to run tools and where to log) and what it
 * hands back (the outcome and each change as data).
 */
import type { ToolCommand, ToolRunner } from "./tools.js";
import { toolFailed, toolOutput } from "./tools.js";

export type UserPolicy = "present" | "absent" | "locked";

export interface PasswordSpec {
  readonly format: "hash" | "plaintext";
  readonly data: string;
}

/** The account as promised; an absent property is left as it is. */
export interface UserSpec {
  readonly name: string;
  readonly policy: UserPolicy;
  /** As written (cf-agent keeps the text; a number that does not parse always differs). */
  readonly uid?: string;
  readonly description?: string;
  /** A group name, or a gid when no group has that name. */
  readonly groupPrimary?: string;
  /** Undefined: not managed. An empty list: no secondary groups. */
  readonly groupsSecondary?: readonly string[];
  readonly homeDir?: string;
  readonly shell?: string;
  readonly password?: PasswordSpec;
}

/** Levels of the provider's messages; `notice` carries what the tools printed. */
export type UsersLogLevel = "error" | "warning" | "notice" | "info" | "verbose";
export type UsersLog = (level: UsersLogLevel, message: string) => void;

export interface UsersOptions {
  /** The root whose /etc databases are read and changed ("/" for the system). */
  readonly root?: string;
  /** Inspect only: say what would change, change nothing. */
  readonly dryRun: boolean;
  readonly run?: ToolRunner;
  readonly log: UsersLog;
  /**
   * Called once a new account exists, before its password is set (the
   * CFEngine front end runs `home_bundle` there, as cf-agent 3.21 does).
   * Returning false stops there: the result is `failed`, with no more
   * messages (the front end's run is over).
   */
  readonly onCreate?: () => boolean;
}

/** One property changed (or, in a dry run, that would change). */
export interface UserChange {
  readonly property: string;
  readonly old?: string;
  readonly new?: string;
  readonly message: string;
  /** False in a dry run and for a change that failed. */
  readonly applied: boolean;
}

export type UserStatus = "kept" | "changed" | "failed";

export interface UserResult {
  readonly status: UserStatus;
  readonly changes: readonly UserChange[];
}

/** State of one call, passed down. */
export interface UsersRun {
  readonly spec: UserSpec;
  readonly root: string;
  readonly dryRun: boolean;
  readonly run: ToolRunner;
  readonly log: UsersLog;
  readonly onCreate?: () => boolean;
  readonly changes: UserChange[];
  /** Set when `onCreate` stopped the provider. */
  aborted: boolean;
}

/**
 * Runs a command as cf-agent's ExecuteUserCommand does: says it at
 * verbose level, passes on what the tool printed, logs a failure.
 */
export function executeUserCommand(
  run: UsersRun,
  command: ToolCommand,
  action: string,
  capAction: string,
  detail?: string,
): boolean {
  const user = run.spec.name;
  const how = detail === undefined ? "" : ` ${detail}`;
  run.log("verbose", `${capAction} user '${user}'${how}. (command: '${command.text}')`);
  const result = run.run(command.argv);
  for (const line of toolOutput(result)) run.log("notice", line);
  if (!toolFailed(result)) return true;
  run.log(
    "error",
    `Command returned error while ${action} user '${user}'. (Command line: '${command.text}')`,
  );
  return false;
}
