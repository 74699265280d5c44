/**
 * A Rudder configuration as tend reads it from a directory: techniques,
 * directives, rules, groups, nodes, global parameters and settings, each in
 * the shape Rudder's REST API gives it (api_directives.yml, api_rules.yml,
 * api_groups.yml, api_nodes.yml, api_parameters.yml), after validation.
 */
import type { PolicyMode } from "../expected-reports.js";
import type { Technique } from "./technique.js";

export interface Directive {
  readonly id: string;
  readonly displayName: string;
  readonly techniqueName: string;
  readonly techniqueVersion: string;
  /** variable name → values, in the order the parameter sections give them */
  readonly values: ReadonlyMap<string, readonly string[]>;
  /** 0 (highest) to 10; Rudder's default is 5 */
  readonly priority: number;
  /** undefined: "default" (the node's or global mode) */
  readonly policyMode?: PolicyMode;
  readonly enabled: boolean;
  readonly system: boolean;
  readonly file: string;
}

/** A rule target (Rudder RuleTarget). */
export type Target =
  | { readonly kind: "special"; readonly value: "all" | "all_exceptPolicyServers" | "all_policyServers" }
  | { readonly kind: "group"; readonly id: string }
  | { readonly kind: "node"; readonly id: string }
  | { readonly kind: "policyServer"; readonly id: string }
  | { readonly kind: "or"; readonly targets: readonly Target[] }
  | { readonly kind: "and"; readonly targets: readonly Target[] }
  | { readonly kind: "exclusion"; readonly include: Target; readonly exclude: Target };

export interface Rule {
  readonly id: string;
  readonly displayName: string;
  readonly directives: readonly string[];
  /** the rule applies to the union of its targets */
  readonly targets: readonly Target[];
  readonly enabled: boolean;
  readonly system: boolean;
  readonly file: string;
}

/** One line of a group's query. */
export interface Criterion {
  readonly objectType: string;
  readonly attribute: string;
  readonly comparator: string;
  readonly value: string;
}

export interface Query {
  readonly select: string;
  readonly composition: "and" | "or";
  readonly transform: "identity" | "invert";
  readonly where: readonly Criterion[];
}

export interface Group {
  readonly id: string;
  readonly displayName: string;
  /** static members (or the last computed ones of a dynamic group) */
  readonly nodeIds: readonly string[];
  readonly query?: Query;
  readonly dynamic: boolean;
  readonly enabled: boolean;
  readonly file: string;
}

/** The node's agent (Rudder's RudderAgent and the inventory's agent facts). */
export interface NodeAgent {
  /** cfengine-community (Rudder's AgentType name) */
  readonly type: string;
  readonly version: string;
  /** the account the agent runs as (localAdministratorAccountName) */
  readonly user: string;
  /** the agent's certificate (PEM), from which its key hashes are computed */
  readonly certificate?: string;
}

/** What a node is to Rudder (NodeKind). */
export type NodeKind = "root" | "relay" | "node";

export interface Node {
  readonly id: string;
  readonly hostname: string;
  readonly policyServerId: string;
  readonly isPolicyServer: boolean;
  /** undefined: "default" (the global mode) */
  readonly policyMode?: PolicyMode;
  /** node properties by name (JSON values) */
  readonly properties: Readonly<Record<string, unknown>>;
  /** inventory facts by Rudder's query attribute names (osName, ram, ...) */
  readonly facts: Readonly<Record<string, unknown>>;
  readonly state: string;
  readonly agent: NodeAgent;
  readonly kind: NodeKind;
  /** a policy server's allowed networks (Rudder's allowed_networks setting) */
  readonly allowedNetworks: readonly string[];
  readonly file: string;
}

/** Global settings (Rudder's settings API names, all optional in settings.json). */
export interface Settings {
  readonly policyMode: PolicyMode;
  readonly policyModeOverridable: boolean;
  readonly complianceMode: "full-compliance" | "changes-only" | "reports-disabled";
  readonly heartbeatPeriod: number;
  readonly runFrequency: number;
  readonly firstRunMinute: number;
  readonly firstRunHour: number;
  readonly splayTime: number;
  /** the system variables Rudder's server configuration and runtime settings give */
  readonly server: ServerSettings;
  /** names of the special targets (Rudder's system groups) by target */
  readonly targetNames: Readonly<Record<string, string>>;
}

/**
 * Rudder's server-side values behind global system variables
 * (rudder-web.properties and runtime settings; SystemVariableServiceImpl).
 */
export interface ServerSettings {
  readonly instanceId: string;
  readonly toolsFolder: string;
  readonly communityPort: number;
  readonly httpsPort: number;
  readonly sharedFilesFolder: string;
  readonly webdavUser: string;
  readonly webdavPassword: string;
  /** jdbc:postgresql://host:port/base */
  readonly reportsDbUri: string;
  readonly reportsDbUser: string;
  readonly reportsDbPassword: string;
  readonly configurationRepository: string;
  readonly serverVersion: string;
  readonly denyBadClocks: boolean;
  readonly relaySyncMethod: string;
  readonly relaySyncPromises: boolean;
  readonly relaySyncSharedFiles: boolean;
  readonly modifiedFilesTtl: number;
  readonly cfengineOutputsTtl: number;
}

export const DEFAULT_SERVER_SETTINGS: ServerSettings = {
  instanceId: "",
  toolsFolder: "/opt/rudder/share/tools",
  communityPort: 5309,
  httpsPort: 443,
  sharedFilesFolder: "/var/rudder/configuration-repository/shared-files",
  webdavUser: "rudder",
  webdavPassword: "rudder",
  reportsDbUri: "jdbc:postgresql://localhost:5432/rudder",
  reportsDbUser: "rudder",
  reportsDbPassword: "",
  configurationRepository: "/var/rudder/configuration-repository",
  serverVersion: "8.3.0",
  denyBadClocks: true,
  relaySyncMethod: "classic",
  relaySyncPromises: false,
  relaySyncSharedFiles: false,
  modifiedFilesTtl: 30,
  cfengineOutputsTtl: 7,
};

/** Rudder's names of its special targets (bootstrap.ldif, init-policy-server.ldif). */
export const DEFAULT_TARGET_NAMES: Readonly<Record<string, string>> = {
  "special:all": "All nodes",
  "special:all_exceptPolicyServers": "All managed nodes",
  "special:all_policyServers": "All policy servers",
  "policyServer:root": "Root policy server",
};

export const DEFAULT_SETTINGS: Settings = {
  policyMode: "enforce",
  policyModeOverridable: true,
  complianceMode: "full-compliance",
  heartbeatPeriod: 1,
  runFrequency: 5,
  firstRunMinute: 0,
  firstRunHour: 0,
  splayTime: 4,
  server: DEFAULT_SERVER_SETTINGS,
  targetNames: DEFAULT_TARGET_NAMES,
};

export interface Configuration {
  readonly dir: string;
  /** by `name/version` */
  readonly techniques: ReadonlyMap<string, Technique>;
  readonly directives: ReadonlyMap<string, Directive>;
  readonly rules: ReadonlyMap<string, Rule>;
  readonly groups: ReadonlyMap<string, Group>;
  readonly nodes: ReadonlyMap<string, Node>;
  /** global parameters by name (JSON values) */
  readonly parameters: ReadonlyMap<string, unknown>;
  readonly settings: Settings;
}
