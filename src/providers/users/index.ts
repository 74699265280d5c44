/**
 * The users provider: local accounts in /etc/passwd, /etc/shadow and
 * /etc/group (of a given root), inspected, compared with a promised state
 * and changed with the system's shadow tools unless in a dry run. Every
 * front end goes through it: CFEngine's `users` promises through
 * `ensureUser` (cf-agent 3.21's semantics), Puppet's `user` and `group`
 * through `ensureAccount` and `ensureGroup` (one command per property).
 */
export {
  type GroupEntry,
  type PasswdEntry,
  type ShadowEntry,
  parseGroup,
  parsePasswd,
  parseShadow,
} from "./accounts.js";
export type {
  PasswordSpec,
  UserChange,
  UserPolicy,
  UserResult,
  UserSpec,
  UserStatus,
  UsersLog,
  UsersLogLevel,
  UsersOptions,
} from "./context.js";
export { ensureUser } from "./ensure.js";
export {
  type AccountOptions,
  type AccountResult,
  type AccountSpec,
  type AccountState,
  ensureAccount,
  groupId,
} from "./account.js";
export { ensureGroup, type GroupOptions, type GroupResult, type GroupSpec } from "./groups.js";
export { accountExists, groupExists, type LockOptions, type LockResult, lockAccount } from "./lock.js";
export { groupName, secondaryGroups } from "./modify.js";
export { type ToolResult, type ToolRunner, runTool } from "./tools.js";
