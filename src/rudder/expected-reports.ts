/**
 * The contract between policy generation (src/rudder/generate) and
 * compliance (src/rudder/compliance): a node's expected reports, as JSON in
 * Rudder's own format — the 7.1 short-key format rudder-core stores in the
 * `nodeconfigurations` table (ExpectedReportsSerialisation.Version7_1, with
 * the 8.2 directive fields `pm` and `t`).
 *
 * Generation writes one file, {@link EXPECTED_REPORTS_FILE}, at the root of
 * the node's policy directory. Its top-level object is Rudder's JSON plus
 * three extra keys (`nodeId`, `nodeConfigId`, `beginDate`) that Rudder keeps
 * in table columns; Rudder's decoder ignores unknown keys, so the file still
 * reads as Rudder's format. Additive changes only: both sides read fields
 * they do not know as absent.
 */

/** A directive's, node's or global policy mode. */
export type PolicyMode = "enforce" | "audit";

/** Rudder's compliance modes (ComplianceModeName). */
export type ComplianceModeName = "full-compliance" | "changes-only" | "reports-disabled";

/**
 * A block's reporting logic (cfclerk ReportingLogic.value):
 * `weighted`, `worst-case-weighted-one`, `worst-case-weighted-sum`,
 * `focus-worst`, or `focus:<component id>`.
 */
export type ReportingLogicValue =
  | "weighted"
  | "worst-case-weighted-one"
  | "worst-case-weighted-sum"
  | "focus-worst"
  | `focus:${string}`;

/** `gpm`: the global policy mode and whether nodes/directives may override it. */
export interface JsonGlobalPolicyMode {
  readonly m: PolicyMode;
  /** true: "always" overridable; false: unoverridable. */
  readonly o: boolean;
}

/** `gar` / `nar`: an agent run schedule, in minutes. */
export interface JsonAgentRun {
  /** interval */
  readonly i: number;
  /** start minute */
  readonly sm: number;
  /** start hour */
  readonly sh: number;
  /** splay time */
  readonly st: number;
}

/** `ms`: the modes the node's policy was generated with. */
export interface JsonModes {
  readonly gpm: JsonGlobalPolicyMode;
  /** the node's own policy mode, when it sets one */
  readonly npm?: PolicyMode;
  readonly gcm: ComplianceModeName;
  /** global heartbeat period (runs) */
  readonly ghp: number;
  /** the node's heartbeat period, when it overrides */
  readonly nhp?: number;
  readonly gar: JsonAgentRun;
  readonly nar?: JsonAgentRun;
}

/**
 * An expected value matched by text: `[]` is Rudder's "None"/"None" pair,
 * `[v]` an expanded value equal to its unexpanded form, `[expanded,
 * unexpanded]` otherwise. Values may contain CFEngine variables (`${...}`),
 * which compliance turns into patterns.
 */
export type JsonExpectedValueMatch = readonly [] | readonly [string] | readonly [string, string];

/** An expected value of a YAML (rudderc) technique: matched by report id. */
export interface JsonExpectedValueId {
  /** the method call's report id */
  readonly id: string;
  /** the component key (unexpanded) */
  readonly v: string;
}

export type JsonExpectedValue = JsonExpectedValueMatch | JsonExpectedValueId;

/** A leaf component: its name (`vid`) and its expected values. */
export interface JsonValueExpectedReport {
  readonly vid: string;
  readonly vs: readonly JsonExpectedValue[];
}

/** A block of components with its reporting logic. */
export interface JsonBlockExpectedReport {
  readonly bid: string;
  readonly rl: ReportingLogicValue;
  readonly scs: readonly JsonComponentExpectedReport[];
  /** the block's id in the technique, when it has one */
  readonly id?: string;
}

export type JsonComponentExpectedReport = JsonValueExpectedReport | JsonBlockExpectedReport;

/** The expected reports of one directive applied by one rule. */
export interface JsonDirectiveExpectedReports {
  readonly did: string;
  /** the directive's own policy mode, when it sets one */
  readonly pm?: PolicyMode;
  /** Rudder < 8.2: system directive. Read, never written (`t` replaces it). */
  readonly s?: boolean;
  /** policy types; absent means ["rudder.base"], system is ["rudder.system"] */
  readonly t?: readonly string[];
  readonly cs: readonly JsonComponentExpectedReport[];
}

/** The expected reports of one rule on the node. */
export interface JsonRuleExpectedReports {
  readonly rid: string;
  readonly ds: readonly JsonDirectiveExpectedReports[];
}

/** A (rule, directive) pair. */
export interface JsonPolicyRef {
  readonly rid: string;
  readonly did: string;
}

/** `p` was overridden by `ob` (a unique technique's losing directive). */
export interface JsonOverride {
  readonly p: JsonPolicyRef;
  readonly ob: JsonPolicyRef;
}

/** Rudder's JSON for a node's expected reports (7.1/8.2 format). */
export interface JsonNodeExpectedReports {
  readonly ms: JsonModes;
  readonly rs: readonly JsonRuleExpectedReports[];
  readonly os: readonly JsonOverride[];
}

/**
 * The file generation writes: Rudder's JSON plus the columns Rudder keeps
 * beside it in `nodeconfigurations`.
 */
export interface ExpectedReportsFile extends JsonNodeExpectedReports {
  readonly nodeId: string;
  /** the node configuration id, also printed in the run's start/end markers */
  readonly nodeConfigId: string;
  /** ISO 8601, when the configuration was generated */
  readonly beginDate?: string;
}

/** The file's name at the root of a node's generated policy directory. */
export const EXPECTED_REPORTS_FILE = "expected-reports.json";

/** True when `c` is a block (has sub-components). */
export function isBlockExpectedReport(c: JsonComponentExpectedReport): c is JsonBlockExpectedReport {
  return "bid" in c;
}

/** True when `v` is a value matched by report id. */
export function isExpectedValueId(v: JsonExpectedValue): v is JsonExpectedValueId {
  return !Array.isArray(v);
}

/**
 * Encodes an (expanded, unexpanded) pair as Rudder does: "None"/"None" is
 * `[]`, equal values are written once.
 */
export function encodeValueMatch(value: string, unexpanded: string): JsonExpectedValueMatch {
  if (value === unexpanded) return value === "None" ? [] : [value];
  return [value, unexpanded];
}

/** Decodes a matched value to its (expanded, unexpanded) pair. */
export function decodeValueMatch(v: JsonExpectedValueMatch): { value: string; unexpanded: string } {
  if (v.length === 0) return { value: "None", unexpanded: "None" };
  if (v.length === 1) return { value: v[0], unexpanded: v[0] };
  return { value: v[0], unexpanded: v[1] };
}
