/**
 * The values policy generation works on (DataStructures.scala): a draft is
 * one directive applied by one rule to the node; a policy is what is left
 * after merging — one draft, or several drafts of a merged multi-instance
 * technique whose values were concatenated.
 */
import type { PolicyMode } from "../expected-reports.js";
import type { Technique } from "../config/technique.js";

export type Values = ReadonlyMap<string, readonly string[]>;

/** A (rule, directive) pair. */
export interface PolicyId {
  readonly ruleId: string;
  readonly directiveId: string;
}

/** `ruleId@@directiveId@@0`: the report id (the serial is always 0 since Rudder 4.3). */
export function reportId(id: PolicyId): string {
  return `${id.ruleId}@@${id.directiveId}@@0`;
}

export interface PolicyDraft {
  readonly id: PolicyId;
  readonly ruleName: string;
  readonly directiveName: string;
  readonly technique: Technique;
  readonly priority: number;
  readonly policyMode?: PolicyMode;
  readonly isSystem: boolean;
  /** values with Rudder's ${node...} / ${rudder.param...} expanded */
  readonly values: Values;
  /** values as the directive wrote them */
  readonly originalValues: Values;
  /** BundleOrder of the rule and of the directive (their names) */
  readonly ruleOrder: string;
  readonly directiveOrder: string;
}

/** One directive's share of a policy. */
export interface PolicyVars {
  readonly id: PolicyId;
  readonly policyMode?: PolicyMode;
  readonly values: Values;
  readonly originalValues: Values;
  /** the tracking key: one report id per value of the bounding variable */
  readonly trackingValues: readonly string[];
}

export interface Policy {
  /** the (rule, directive) the policy is ordered and named by */
  readonly id: PolicyId;
  readonly ruleName: string;
  readonly directiveName: string;
  readonly technique: Technique;
  readonly priority: number;
  readonly policyMode?: PolicyMode;
  /** non-empty; several only for a merged technique, in priority then bundle order */
  readonly vars: readonly PolicyVars[];
  readonly ruleOrder: string;
  readonly directiveOrder: string;
  /** the drafts this one overrode */
  readonly overrides: readonly PolicyId[];
}

/** Rudder's global policy mode. */
export interface GlobalPolicyMode {
  readonly mode: PolicyMode;
  readonly overridable: boolean;
}

/**
 * The merged values of a policy (Policy.mergeVars): each variable's values
 * concatenated in the order of the policy's vars.
 */
export function mergedValues(p: Policy): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const v of p.vars) {
    for (const [name, values] of v.values) {
      const list = out.get(name);
      if (list) list.push(...values);
      else out.set(name, [...values]);
    }
  }
  return out;
}

/** The tracking key's values over all the policy's vars. */
export function trackingValues(p: Policy): string[] {
  return p.vars.flatMap((v) => v.trackingValues);
}

/** `<version>_<directiveId>` with non-word characters as `_` (PolicyId.getRudderUniqueId). */
export function rudderUniqueId(p: Policy): string {
  return `${p.technique.id.version}_${p.id.directiveId}`.replace(/\W/g, "_");
}

/**
 * The mode of one directive on a node (PolicyMode.computeMode): a node in
 * audit puts everything in audit; otherwise the directives' modes must
 * agree (undefined ones take the node's, else the global mode). Returns
 * undefined when they do not agree.
 */
export function computeMode(
  global: GlobalPolicyMode,
  nodeMode: PolicyMode | undefined,
  directiveModes: readonly (PolicyMode | undefined)[],
): PolicyMode | undefined {
  if (!global.overridable) return global.mode;
  if (nodeMode === "audit") return "audit";
  const dflt = nodeMode ?? global.mode;
  const modes = [...new Set(directiveModes.map((m) => m ?? dflt))];
  if (modes.length === 0) return dflt;
  return modes.length === 1 ? modes[0] : undefined;
}
