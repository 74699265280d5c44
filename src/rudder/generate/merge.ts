/**
 * From all the drafts that apply to a node to its ordered list of policies,
 * deciding as MergePolicyService.buildPolicy decides:
 *
 * - a technique that is not multi-instance keeps one directive: the one of
 *   highest priority (0 is the highest); among equal priorities the first
 *   by (rule name, directive name) in bundle order, with Rudder's
 *   "NON STABLE POLICY" warning when different directives tie; the others
 *   are recorded as overridden;
 * - a multi-instance technique generated `separated` or
 *   `separated-with-parameters` gives one policy per directive (a directive
 *   applied by several rules keeps its first (rule, directive));
 * - a multi-instance `merged` technique gives one policy whose values are
 *   the directives' values in priority, then bundle order, placed at the
 *   first (rule, directive) in bundle order only;
 * - the policies are sorted by (rule name, directive name).
 */
import type { PolicyMode } from "../expected-reports.js";
import { compareBundleOrderList } from "./bundle-order.js";
import {
  type GlobalPolicyMode,
  type Policy,
  type PolicyDraft,
  type PolicyId,
  type PolicyVars,
  computeMode,
  reportId,
} from "./policy.js";

export interface MergeMessage {
  readonly level: "warning" | "error";
  readonly message: string;
}

export type MergeResult =
  | { readonly ok: true; readonly policies: Policy[]; readonly messages: MergeMessage[] }
  | { readonly ok: false; readonly messages: MergeMessage[] };

/** The node the drafts are for (for messages and the node policy mode). */
export interface MergeNode {
  readonly id: string;
  readonly hostname: string;
  readonly policyMode?: PolicyMode;
}

const bundleOrder = (a: PolicyDraft | Policy, b: PolicyDraft | Policy): number =>
  compareBundleOrderList([a.ruleOrder, a.directiveOrder], [b.ruleOrder, b.directiveOrder]);

const priorityThenBundleOrder = (a: PolicyDraft, b: PolicyDraft): number =>
  a.priority - b.priority || bundleOrder(a, b);

const key = (id: PolicyId): string => `${id.ruleId}\u0000${id.directiveId}`;

/** Merges and orders `drafts` for `node`. */
export function buildPolicies(
  node: MergeNode,
  global: GlobalPolicyMode,
  drafts: readonly PolicyDraft[],
): MergeResult {
  const messages: MergeMessage[] = [];
  const unique = new Map<string, PolicyDraft[]>();
  const toMerge = new Map<string, PolicyDraft[]>();
  const separated: PolicyDraft[] = [];
  for (const d of dedupe(drafts, node, messages)) {
    const name = d.technique.id.name;
    if (!d.technique.multiInstance) push(unique, name, d);
    else if (d.technique.generationMode === "merged") push(toMerge, name, d);
    else separated.push(d);
  }
  const policies: Policy[] = [];
  for (const list of unique.values()) policies.push(keepUnique(node, list, messages));
  for (const list of groupBy(separated, (d) => d.id.directiveId).values()) {
    const sorted = [...list].sort(bundleOrder);
    policies.push(toPolicy(sorted[0] as PolicyDraft, sorted.slice(1)));
  }
  for (const list of toMerge.values()) {
    const merged = merge(node, global, list, messages);
    if (!merged) return { ok: false, messages };
    policies.push(merged);
  }
  policies.sort(bundleOrder);
  return { ok: true, policies, messages };
}

function push<T>(m: Map<string, T[]>, k: string, v: T): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

function groupBy<T>(items: readonly T[], f: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const i of items) push(m, f(i), i);
  return m;
}

function dedupe(drafts: readonly PolicyDraft[], node: MergeNode, messages: MergeMessage[]): PolicyDraft[] {
  const seen = new Map<string, PolicyDraft>();
  for (const d of drafts) {
    if (seen.has(key(d.id))) {
      messages.push({
        level: "error",
        message: `directive '${d.id.directiveId}' on rule '${d.id.ruleId}' was added several times on node '${node.id}'; keeping the first`,
      });
    } else seen.set(key(d.id), d);
  }
  return [...seen.values()];
}

/** The tracking key values: one report id per value of the bounding variable (multi-instance only). */
function tracking(d: PolicyDraft): string[] {
  const bound = d.technique.trackerBoundingVariable;
  let size = 1;
  if (d.technique.multiInstance && bound !== undefined) size = d.originalValues.get(bound)?.length ?? 0;
  return new Array<string>(size).fill(reportId(d.id));
}

function varsOf(d: PolicyDraft): PolicyVars {
  return {
    id: d.id,
    ...(d.policyMode === undefined ? {} : { policyMode: d.policyMode }),
    values: d.values,
    originalValues: d.originalValues,
    trackingValues: tracking(d),
  };
}

function toPolicy(
  main: PolicyDraft,
  overridden: readonly PolicyDraft[],
  vars?: PolicyVars[],
  mode?: PolicyMode,
): Policy {
  const policyMode = vars ? mode : main.policyMode;
  return {
    id: main.id,
    ruleName: main.ruleName,
    directiveName: main.directiveName,
    technique: main.technique,
    priority: main.priority,
    ...(policyMode === undefined ? {} : { policyMode }),
    vars: vars ?? [varsOf(main)],
    ruleOrder: main.ruleOrder,
    directiveOrder: main.directiveOrder,
    overrides: overridden.map((o) => o.id),
  };
}

function keepUnique(node: MergeNode, list: readonly PolicyDraft[], messages: MergeMessage[]): Policy {
  const byPriority = [...list].sort((a, b) => a.priority - b.priority);
  const best = (byPriority[0] as PolicyDraft).priority;
  const same = byPriority.filter((d) => d.priority === best).sort(bundleOrder);
  const lesser = byPriority.filter((d) => d.priority !== best);
  const keep = same[0] as PolicyDraft;
  // The same directive through two rules is stable: only different directives warn.
  if (new Set(same.map((d) => d.id.directiveId)).size > 1) {
    const discarded = same
      .slice(1)
      .map((x) => `${x.id.ruleId}@@${x.id.directiveId}:${x.ruleName}/${x.directiveName}`)
      .join("', '");
    messages.push({
      level: "warning",
      message:
        `Unicity check: NON STABLE POLICY ON NODE '${node.hostname}' for mono-instance (unique) technique ` +
        `'${keep.technique.id.name}/${keep.technique.id.version}'. Several directives with same priority '${keep.priority}' are applied. ` +
        `Keeping (ruleId@@directiveId) '${keep.id.ruleId}@@${keep.id.directiveId}' (order: ${keep.ruleOrder}/${keep.directiveName}), ` +
        `discarding: '${discarded}'`,
    });
  }
  return toPolicy(keep, [...same.slice(1), ...lesser]);
}

function merge(
  node: MergeNode,
  global: GlobalPolicyMode,
  list: readonly PolicyDraft[],
  messages: MergeMessage[],
): Policy | undefined {
  const first = list[0] as PolicyDraft;
  if (list.length === 1) return toPolicy(first, []);
  const pairs = list.map((d) => `${d.id.ruleId} / ${d.id.directiveId}`).join(" ; ");
  const error = (message: string) => {
    messages.push({ level: "error", message });
    return undefined;
  };
  if (new Set(list.map((d) => d.isSystem)).size > 1) {
    return error(
      `node '${node.hostname}' '${node.id}' gets system and non-system directives of technique '${first.technique.id.name}' to merge`,
    );
  }
  if (new Set(list.map((d) => d.technique.id.version)).size > 1) {
    return error(
      `Node ${node.hostname} '${node.id}' get directives from different versions of technique '${first.technique.id.name}', but ` +
        `that technique does not support multi-policy generation. Problematic rules/directives: ${pairs}`,
    );
  }
  let mode: PolicyMode | undefined;
  const modes = [...new Set(list.map((d) => d.policyMode))];
  if (modes.length === 1) mode = modes[0];
  else {
    mode = computeMode(global, node.policyMode, modes);
    if (mode === undefined) {
      return error(
        `Node ${node.hostname} '${node.id}' get directives with incompatible different policy mode but technique ` +
          `'${first.technique.id.name}/${first.technique.id.version}' does not support multi-policy generation. Problematic rules/directives: ${pairs}`,
      );
    }
  }
  const vars = [...list].sort(priorityThenBundleOrder).map(varsOf);
  const main = [...list].sort(bundleOrder)[0] as PolicyDraft;
  return toPolicy(main, [], vars, mode);
}
