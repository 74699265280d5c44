/**
 * Which nodes a group holds and which nodes a rule targets. Dynamic groups
 * are evaluated against each node's facts and properties with the
 * comparators of Rudder's node queries (CmdbQuery.scala): eq, notEq, regex,
 * notRegex, exists, notExists, gt, gteq, lt, lteq; on node properties
 * (objectType "serializedNodeProperty") also hasKey and jsonSelect; a
 * criterion on objectType "group" (attribute nodeGroupId, comparator eq)
 * selects the members of another group.
 */
import type { Configuration, Criterion, Group, Node, Query, Target } from "./model.js";

/** Problems met while evaluating (an unknown comparator, a bad regex). */
export type QueryProblem = (message: string) => void;

/** True when `node` is in `group`. */
export function groupHasNode(
  config: Configuration,
  group: Group,
  node: Node,
  problem: QueryProblem,
  depth = 0,
): boolean {
  if (!group.enabled) return false;
  if (!group.dynamic || !group.query) return group.nodeIds.includes(node.id);
  return queryMatches(config, group.query, node, problem, depth);
}

function queryMatches(
  config: Configuration,
  q: Query,
  node: Node,
  problem: QueryProblem,
  depth: number,
): boolean {
  // A policy server is selected only by "nodeAndPolicyServer" queries.
  if (node.isPolicyServer && q.select !== "nodeAndPolicyServer") return false;
  const results = q.where.map((c) => criterionMatches(config, c, node, problem, depth));
  let matched: boolean;
  if (q.where.length === 0) matched = false;
  else matched = q.composition === "and" ? results.every(Boolean) : results.some(Boolean);
  return q.transform === "invert" ? !matched : matched;
}

function criterionMatches(
  config: Configuration,
  c: Criterion,
  node: Node,
  problem: QueryProblem,
  depth: number,
): boolean {
  if (c.objectType === "group") {
    const g = config.groups.get(c.value);
    if (!g || depth > 20) {
      problem(g ? `group '${c.value}' refers to itself` : `no group '${c.value}'`);
      return false;
    }
    const member = groupHasNode(config, g, node, problem, depth + 1);
    return c.comparator === "notEq" ? !member : member;
  }
  if (c.objectType === "serializedNodeProperty" || c.objectType === "nodeProperty") {
    return propertyMatches(c, node, problem);
  }
  const raw = node.facts[c.attribute];
  const values =
    raw === undefined || raw === null ? [] : Array.isArray(raw) ? raw.map(String) : [String(raw)];
  return valueMatches(c.comparator, values, c.value, problem);
}

function valueMatches(
  comparator: string,
  values: readonly string[],
  expected: string,
  problem: QueryProblem,
): boolean {
  switch (comparator) {
    case "exists":
      return values.length > 0;
    case "notExists":
      return values.length === 0;
    case "eq":
      return values.some((v) => v.toLowerCase() === expected.toLowerCase());
    case "notEq":
      return !values.some((v) => v.toLowerCase() === expected.toLowerCase());
    case "regex":
    case "notRegex": {
      const re = regex(expected, problem);
      if (!re) return false;
      const any = values.some((v) => re.test(v));
      return comparator === "regex" ? any : !any;
    }
    case "gt":
    case "gteq":
    case "lt":
    case "lteq":
      return values.some((v) => ordered(comparator, compareValues(v, expected)));
    default:
      problem(
        `unknown comparator '${comparator}', expected eq, notEq, regex, notRegex, exists, notExists, gt, gteq, lt or lteq`,
      );
      return false;
  }
}

function ordered(comparator: string, cmp: number): boolean {
  if (comparator === "gt") return cmp > 0;
  if (comparator === "gteq") return cmp >= 0;
  if (comparator === "lt") return cmp < 0;
  return cmp <= 0;
}

/** Numbers (with an optional unit: 2 GB) compare as numbers, other values as strings. */
function compareValues(a: string, b: string): number {
  const na = asNumber(a);
  const nb = asNumber(b);
  if (na !== undefined && nb !== undefined) return na - nb;
  return a < b ? -1 : a > b ? 1 : 0;
}

const UNITS: Readonly<Record<string, number>> = {
  b: 1,
  kb: 1024,
  mb: 1024 ** 2,
  gb: 1024 ** 3,
  tb: 1024 ** 4,
};

function asNumber(s: string): number | undefined {
  const m = /^\s*(-?\d+(?:\.\d+)?)\s*([kmgt]?b)?\s*$/i.exec(s);
  if (!m) return undefined;
  return Number(m[1]) * (m[2] ? (UNITS[m[2].toLowerCase()] ?? 1) : 1);
}

function regex(source: string, problem: QueryProblem): RegExp | undefined {
  try {
    // Rudder's regexes match the whole value (Java's String.matches).
    return new RegExp(`^(?:${source})$`, "s");
  } catch {
    problem(`'${source}' is not a valid regular expression`);
    return undefined;
  }
}

function propertyText(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}

function propertyMatches(c: Criterion, node: Node, problem: QueryProblem): boolean {
  const split = (sep: string): [string, string] => {
    const at = c.value.indexOf(sep);
    return at < 0 ? [c.value, ""] : [c.value.slice(0, at), c.value.slice(at + 1)];
  };
  const props = node.properties;
  switch (c.comparator) {
    case "exists":
    case "hasKey":
      return split("=")[0] in props;
    case "notExists":
      return !(split("=")[0] in props);
    case "eq":
    case "notEq": {
      const [k, v] = split("=");
      const hit = k in props && propertyText(props[k]) === v;
      return c.comparator === "eq" ? hit : !hit;
    }
    case "regex":
    case "notRegex": {
      const [k, v] = split("=");
      const re = regex(v, problem);
      const hit = re !== undefined && k in props && re.test(propertyText(props[k]));
      return c.comparator === "regex" ? hit : !hit;
    }
    case "jsonSelect": {
      const [k, path] = split(":");
      return k in props && jsonSelect(props[k], path).length > 0;
    }
    default:
      problem(
        `unknown node property comparator '${c.comparator}', expected eq, notEq, regex, notRegex, exists, notExists, hasKey or jsonSelect`,
      );
      return false;
  }
}

/** A small JSONPath subset: `$.a.b`, `$.a[0]`, `$.a[*]`, `$.a[?(@.b == 'x')]` not supported. */
function jsonSelect(value: unknown, path: string): unknown[] {
  const steps = path
    .replace(/^\$\.?/, "")
    .split(/\.|\[|\]/)
    .filter((s) => s !== "");
  let current: unknown[] = [value];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      if (step === "*" && typeof v === "object" && v !== null) next.push(...Object.values(v));
      else if (Array.isArray(v) && /^\d+$/.test(step)) {
        if (Number(step) < v.length) next.push(v[Number(step)]);
      } else if (typeof v === "object" && v !== null && step in v)
        next.push((v as Record<string, unknown>)[step]);
    }
    current = next;
  }
  return current;
}

/** True when `target` selects `node`. */
export function targetHasNode(
  config: Configuration,
  target: Target,
  node: Node,
  problem: QueryProblem,
): boolean {
  switch (target.kind) {
    case "special":
      if (target.value === "all") return true;
      if (target.value === "all_policyServers") return node.isPolicyServer;
      return !node.isPolicyServer;
    case "group": {
      const g = config.groups.get(target.id);
      return g !== undefined && groupHasNode(config, g, node, problem);
    }
    case "node":
      return node.id === target.id;
    case "policyServer":
      return node.isPolicyServer && node.id === target.id;
    case "or":
      return target.targets.some((t) => targetHasNode(config, t, node, problem));
    case "and":
      return (
        target.targets.length > 0 && target.targets.every((t) => targetHasNode(config, t, node, problem))
      );
    case "exclusion":
      return (
        targetHasNode(config, target.include, node, problem) &&
        !targetHasNode(config, target.exclude, node, problem)
      );
  }
}
