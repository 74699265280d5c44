/**
 * Compliance status trees, from a message up to a rule on a node, with
 * their merges and the compliance of blocks under each reporting logic
 * (rudder-core `StatusReports`). Rudder groups with hash maps; tend keeps
 * first-seen order, so results are the same sets in a stable order.
 */
import { type ComplianceLevel, computeLevel, computePercent, sumLevels } from "./compliance-level.js";
import type { ReportingLogic } from "./expected.js";
import { type ReportType, worstType } from "./report-type.js";

export interface MessageStatus {
  readonly type: ReportType;
  readonly message?: string;
}

export interface ValueStatus {
  /** The value reported (for values matched by pattern: the expected, unexpanded one). */
  readonly value: string;
  readonly expectedValue: string;
  /** The report id, "0" for values matched without one. */
  readonly reportId: string;
  readonly messages: readonly MessageStatus[];
}

export interface ValueComponentStatus {
  readonly kind: "value";
  readonly name: string;
  readonly expectedName: string;
  readonly values: readonly ValueStatus[];
}

export interface BlockStatus {
  readonly kind: "block";
  readonly name: string;
  readonly logic: ReportingLogic;
  readonly components: readonly ComponentStatus[];
}

export type ComponentStatus = ValueComponentStatus | BlockStatus;

export interface DirectiveStatus {
  readonly directiveId: string;
  readonly policyTypes: readonly string[];
  /** Set when another rule's directive overrides this one on the node. */
  readonly overriddenBy?: string;
  readonly components: readonly ComponentStatus[];
}

/** A message, with an empty text left out (Rudder trims and drops it). */
export function messageStatus(type: ReportType, message?: string): MessageStatus {
  const text = message?.trim();
  return text ? { type, message: text } : { type };
}

/** Groups items by a key, keeping the order in which keys are first seen. */
export function groupBy<T, K>(items: Iterable<T>, key: (item: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

export function valueCompliance(value: ValueStatus): ComplianceLevel {
  return computeLevel(value.messages.map((m) => m.type));
}

export function valueStatusType(value: ValueStatus): ReportType {
  return worstType(value.messages.map((m) => m.type));
}

/** The status reports of a component's values, repeated per message (Rudder's `allReports`). */
function allReports(component: ComponentStatus): ReportType[] {
  if (component.kind === "block") return component.components.flatMap(allReports);
  return component.values.flatMap((v) => v.messages.map(() => valueStatusType(v)));
}

/** The sub-components named `name`: the first direct one, then those inside sub-blocks. */
function findChildren(block: BlockStatus, name: string): ComponentStatus[] {
  const direct = block.components.find((c) => c.name === name);
  const nested = block.components.flatMap((c) => (c.kind === "block" ? findChildren(c, name) : []));
  return [...(direct ? [direct] : []), ...nested];
}

/** The worst status of a component, following a block's focus. */
export function componentStatusType(component: ComponentStatus): ReportType {
  if (component.kind === "value") return worstType(allReports(component));
  const subs =
    component.logic.kind === "focus"
      ? findChildren(component, component.logic.component)
      : component.components;
  return worstType(subs.map(componentStatusType));
}

/** A component's compliance; a block's depends on its reporting logic. */
export function componentCompliance(component: ComponentStatus): ComplianceLevel {
  if (component.kind === "value") return sumLevels(component.values.map(valueCompliance));
  const logic = component.logic;
  switch (logic.kind) {
    case "weighted":
      return sumLevels(component.components.map(componentCompliance));
    case "worst-case-weighted-one":
    case "worst-case-weighted-sum": {
      const all = allReports(component);
      const worst = worstType(all);
      return computeLevel(logic.kind === "worst-case-weighted-one" ? [worst] : all.map(() => worst));
    }
    case "focus-worst":
      return focusWorst(component);
    case "focus":
      return sumLevels(findChildren(component, logic.component).map(componentCompliance));
  }
}

/** The sub-component with the lowest compliance percentage (a value weighs one). */
function focusWorst(block: BlockStatus): ComplianceLevel {
  const levels = block.components.map((c) =>
    c.kind === "block" ? componentCompliance(c) : computeLevel([componentStatusType(c)]),
  );
  if (levels.length === 0) return computeLevel([]);
  let worst = levels[0] as ComplianceLevel;
  let worstPc = computePercent(worst).compliance;
  for (const level of levels.slice(1)) {
    const pc = computePercent(level).compliance;
    if (pc < worstPc) [worst, worstPc] = [level, pc];
  }
  return worst;
}

/** All values of a component; a block's are merged (Rudder's `componentValues`). */
export function componentValues(component: ComponentStatus): ValueStatus[] {
  if (component.kind === "value") return [...component.values];
  return mergeValues(component.components.flatMap(componentValues));
}

export function directiveCompliance(directive: DirectiveStatus): ComplianceLevel {
  return sumLevels(directive.components.map(componentCompliance));
}

/**
 * Merges values by report id, then value, then expected value. As in
 * Rudder, each group takes the messages of every value with the same
 * reported value, whatever its expected value.
 */
export function mergeValues(values: Iterable<ValueStatus>): ValueStatus[] {
  const out: ValueStatus[] = [];
  for (const [id, byId] of groupBy(values, (v) => v.reportId)) {
    for (const [value, byValue] of groupBy(byId, (v) => v.value)) {
      for (const expected of groupBy(byValue, (v) => v.expectedValue).keys()) {
        out.push({
          value,
          expectedValue: expected,
          reportId: id,
          messages: byValue.flatMap((v) => v.messages),
        });
      }
    }
  }
  return out;
}

const LOGIC_RANK: Readonly<Record<ReportingLogic["kind"], number>> = {
  "worst-case-weighted-one": 4,
  "worst-case-weighted-sum": 3,
  "focus-worst": 2,
  weighted: 1,
  focus: 0,
};

/** The logic kept when blocks merge: worst-case one, worst-case sum, focus-worst, weighted, focus. */
function mergeLogic(a: ReportingLogic, b: ReportingLogic): ReportingLogic {
  return LOGIC_RANK[b.kind] > LOGIC_RANK[a.kind] ? b : a;
}

/** Merges components by name: blocks into one block, values by expected name. */
export function mergeComponents(components: Iterable<ComponentStatus>): ComponentStatus[] {
  const out: ComponentStatus[] = [];
  for (const [name, group] of groupBy(components, (c) => c.name)) {
    const blocks = group.filter((c): c is BlockStatus => c.kind === "block");
    if (blocks.length > 0) {
      const logic = blocks.map((b) => b.logic).reduce(mergeLogic);
      const subs = mergeComponents(blocks.flatMap((b) => b.components));
      out.push({ kind: "block", name, logic, components: subs });
    }
    const plain = group.filter((c): c is ValueComponentStatus => c.kind === "value");
    for (const [expectedName, same] of groupBy(plain, (c) => c.expectedName)) {
      out.push({ kind: "value", name, expectedName, values: mergeValues(same.flatMap((c) => c.values)) });
    }
  }
  return out;
}

/** Merges directives by id; one stays overridden only if all were. */
export function mergeDirectives(directives: Iterable<DirectiveStatus>): Map<string, DirectiveStatus> {
  const out = new Map<string, DirectiveStatus>();
  for (const [id, group] of groupBy(directives, (d) => d.directiveId)) {
    const tags = [...new Set(group.flatMap((d) => d.policyTypes))];
    const overridden = group.every((d) => d.overriddenBy !== undefined) ? group[0]?.overriddenBy : undefined;
    const merged: DirectiveStatus = {
      directiveId: id,
      policyTypes: tags.length > 0 ? tags : ["rudder.base"],
      components: mergeComponents(group.flatMap((d) => d.components)),
      ...(overridden !== undefined ? { overriddenBy: overridden } : {}),
    };
    out.set(id, merged);
  }
  return out;
}
