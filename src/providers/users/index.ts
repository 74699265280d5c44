/**
 * The users provider: local accounts in /etc/passwd, /etc/shadow and
 * /etc/group (of a given root), inspected, compared with a promised state
 * and changed with the system's shadow tools unless in a dry run. Every
 * front end (CFEngine's `users` promises today) goes through `ensureUser`.
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
export { groupName, secondaryGroups } from "./modify.js";
export { type ToolResult, type ToolRunner, runTool } from "./tools.js";
