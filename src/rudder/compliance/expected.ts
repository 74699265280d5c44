/**
 * What a node's policy is expected to report, in Rudder's model
 * (rudder-core `NodeExpectedReports` and below): rules, directives,
 * components (plain or blocks with a reporting logic) and their values.
 */
import type { ComplianceMode, PolicyMode } from "./report-type.js";

/** How a block's compliance is made of its parts (cfclerk `ReportingLogic`). */
export type ReportingLogic =
  | { readonly kind: "weighted" }
  | { readonly kind: "worst-case-weighted-one" }
  | { readonly kind: "worst-case-weighted-sum" }
  | { readonly kind: "focus-worst" }
  | { readonly kind: "focus"; readonly component: string };

/**
 * One expected value: matched by value (possibly a `${var}` pattern), or,
 * with a report id, by that id only.
 */
export type ExpectedValue =
  | { readonly kind: "match"; readonly value: string; readonly unexpanded: string }
  | { readonly kind: "id"; readonly value: string; readonly id: string };

export interface ValueExpected {
  readonly kind: "value";
  readonly name: string;
  readonly values: readonly ExpectedValue[];
}

export interface BlockExpected {
  readonly kind: "block";
  readonly name: string;
  readonly logic: ReportingLogic;
  readonly components: readonly ComponentExpected[];
  readonly id?: string;
}

export type ComponentExpected = ValueExpected | BlockExpected;

export interface DirectiveExpected {
  readonly directiveId: string;
  /** The directive's own mode, when it has one. */
  readonly policyMode?: PolicyMode;
  /** Compliance tags ("rudder.base", "rudder.system"...). */
  readonly policyTypes: readonly string[];
  readonly components: readonly ComponentExpected[];
}

export interface RuleExpected {
  readonly ruleId: string;
  readonly directives: readonly DirectiveExpected[];
}

export interface PolicyRef {
  readonly ruleId: string;
  readonly directiveId: string;
}

/** A (rule, directive) left out of the policy because another one won. */
export interface OverriddenPolicy {
  readonly policy: PolicyRef;
  readonly overriddenBy: PolicyRef;
}

/** The node's modes, as the expected reports record them. */
export interface NodeModes {
  readonly globalPolicyMode: PolicyMode;
  /** Whether nodes and directives may override the global mode. */
  readonly overridable: boolean;
  readonly nodePolicyMode?: PolicyMode;
  readonly complianceMode: ComplianceMode;
  readonly heartbeatPeriod: number;
  /** The agent's run interval, minutes. */
  readonly runInterval: number;
}

export interface NodeExpectedReports {
  readonly nodeId: string;
  readonly configId: string;
  /** When this configuration began (ISO date), if known. */
  readonly beginDate?: string;
  readonly endDate?: string;
  readonly modes: NodeModes;
  readonly rules: readonly RuleExpected[];
  readonly overrides: readonly OverriddenPolicy[];
}

export const BASE_TAG = "rudder.base";
export const SYSTEM_TAG = "rudder.system";

/**
 * The mode a directive runs in: system policies always enforce; an
 * overridable global mode yields to audit on the node or the directive,
 * then to the directive's or node's own (PolicyMode.directivePolicyMode).
 */
export function directivePolicyMode(modes: NodeModes, directive: DirectiveExpected): PolicyMode {
  if (directive.policyTypes.includes(SYSTEM_TAG)) return "enforce";
  if (!modes.overridable) return modes.globalPolicyMode;
  if (modes.nodePolicyMode === "audit" || directive.policyMode === "audit") return "audit";
  return directive.policyMode ?? modes.nodePolicyMode ?? modes.globalPolicyMode;
}

/** The reporting logic named as Rudder writes it (`weighted`, `focus:NAME`...), or undefined. */
export function parseReportingLogic(text: string, defaultFocus = ""): ReportingLogic | undefined {
  const lower = text.toLowerCase();
  if (lower === "weighted") return { kind: "weighted" };
  if (lower === "worst-case-weighted-one") return { kind: "worst-case-weighted-one" };
  if (lower === "worst-case-weighted-sum") return { kind: "worst-case-weighted-sum" };
  if (lower === "focus-worst") return { kind: "focus-worst" };
  if (lower === "focus") return { kind: "focus", component: defaultFocus };
  if (lower.startsWith("focus:")) return { kind: "focus", component: text.slice("focus:".length) };
  return undefined;
}

/** The logic as Rudder writes it. */
export function formatReportingLogic(logic: ReportingLogic): string {
  return logic.kind === "focus" ? `focus:${logic.component}` : logic.kind;
}
