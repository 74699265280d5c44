/**
 * The drafts of one node (RuleValService + the interpolation of
 * BoundPolicyDraft): every enabled directive of every enabled rule whose
 * targets hold the node, with the technique's variables filled (the
 * directive's values, else REPORTKEYS, else the default) and Rudder's
 * generation-time variables expanded:
 *
 *   ${rudder.param.NAME}  ${node.properties[KEY][SUB]...}  (optionally
 *   `| default = "text"`)  ${node.id} ${node.hostname} ${node.state}
 *   ${node.policyserver.id} ${node.policyserver.hostname} ${node.admin}
 *   ${node.policyserver.admin}
 *
 * Any other `${...}` is CFEngine's and stays as written.
 */
import { groupHasNode, targetHasNode } from "../config/groups.js";
import type { Configuration, Directive, Node, Rule } from "../config/model.js";
import { type Technique, allVariables, techniqueKey } from "../config/technique.js";
import type { PolicyDraft } from "./policy.js";

export interface DraftProblem {
  readonly level: "warning" | "error";
  readonly message: string;
}

/** The rules that apply to `node`, by id order. */
export function rulesForNode(config: Configuration, node: Node, problems: DraftProblem[]): Rule[] {
  const problem = (message: string) => problems.push({ level: "warning", message });
  return [...config.rules.values()]
    .filter((r) => r.enabled && r.targets.some((t) => targetHasNode(config, t, node, problem)))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The ids of the groups `node` is in. */
export function groupsOfNode(config: Configuration, node: Node): string[] {
  return [...config.groups.values()].filter((g) => groupHasNode(config, g, node, () => {})).map((g) => g.id);
}

/** All drafts for `node`. */
export function draftsForNode(config: Configuration, node: Node, problems: DraftProblem[]): PolicyDraft[] {
  const drafts: PolicyDraft[] = [];
  const context = new InterpolationContext(config, node);
  for (const rule of rulesForNode(config, node, problems)) {
    for (const did of rule.directives) {
      const d = config.directives.get(did);
      if (!d?.enabled) continue;
      const t = config.techniques.get(techniqueKey({ name: d.techniqueName, version: d.techniqueVersion }));
      if (!t) continue;
      drafts.push(makeDraft(rule, d, t, context, problems));
    }
  }
  return drafts;
}

/** One draft from its parts (also used by tests and benchmarks). */
export function makeDraft(
  rule: Rule,
  d: Directive,
  t: Technique,
  context: InterpolationContext,
  problems: DraftProblem[],
): PolicyDraft {
  const originalValues = directiveValues(d, t, problems);
  const values = new Map<string, string[]>();
  for (const [name, list] of originalValues) {
    values.set(
      name,
      list.map((v) =>
        context.expand(v, (m) =>
          problems.push({ level: "error", message: `directive '${d.id}', '${name}': ${m}` }),
        ),
      ),
    );
  }
  return {
    id: { ruleId: rule.id, directiveId: d.id },
    ruleName: rule.displayName,
    directiveName: d.displayName,
    technique: t,
    priority: d.priority,
    ...(d.policyMode === undefined ? {} : { policyMode: d.policyMode }),
    isSystem: d.system || t.isSystem,
    values,
    originalValues,
    ruleOrder: rule.displayName,
    directiveOrder: d.displayName,
  };
}

/** The technique's variables with the directive's values, REPORTKEYS or defaults. */
export function directiveValues(d: Directive, t: Technique, problems: DraftProblem[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const v of allVariables(t.rootSection)) {
    const given =
      d.values.get(v.name) ?? (v.variableName !== undefined ? d.values.get(v.variableName) : undefined);
    if (given !== undefined) {
      // An empty value of a mandatory variable with a default takes the default.
      if (!v.mayBeEmpty && v.defaultValue !== undefined && given.length === 1 && given[0] === "") {
        out.set(v.name, [v.defaultValue]);
        continue;
      }
      if (given.length > 1 && !v.multivalued) {
        problems.push({
          level: "error",
          message: `directive '${d.id}' gives ${given.length} values to '${v.name}', which takes one`,
        });
      }
      out.set(v.name, [...given]);
    } else if (v.marker === "REPORTKEYS") out.set(v.name, [...v.providedValues]);
    else if (v.defaultValue !== undefined) out.set(v.name, [v.defaultValue]);
    else {
      if (!v.mayBeEmpty) {
        problems.push({
          level: "warning",
          message: `directive '${d.id}' gives no value to mandatory '${v.name}' of technique '${t.id.name}'`,
        });
      }
      out.set(v.name, [""]);
    }
  }
  return out;
}

const RUDDER_VARIABLE = /\$\{(rudder\.param\.|rudder\.parameters\[|node\.)([^}]*)\}/g;

/** What `${node...}` and `${rudder.param...}` expand to for one node. */
export class InterpolationContext {
  constructor(
    private readonly config: Configuration,
    private readonly node: Node,
  ) {}

  /** `text` with Rudder's variables replaced; problems go to `problem`. */
  expand(text: string, problem: (m: string) => void, depth = 0): string {
    if (!text.includes("${")) return text;
    return text.replace(RUDDER_VARIABLE, (whole, prefix: string, rest: string) => {
      const value = this.lookup(prefix, rest, problem, depth);
      return value === undefined ? whole : value;
    });
  }

  private lookup(
    prefix: string,
    rest: string,
    problem: (m: string) => void,
    depth: number,
  ): string | undefined {
    const [expr = "", option = ""] = rest.split("|").map((s) => s.trim());
    const dflt = /^default\s*=\s*"(.*)"$/.exec(option)?.[1];
    if (option === "node") return `\${node.${expr}}`;
    if (prefix === "rudder.param." || prefix === "rudder.parameters[") {
      const name = prefix === "rudder.param." ? expr : expr.replace(/\]$/, "");
      const [head, ...path] = splitPath(name);
      const found = head !== undefined && this.config.parameters.has(head);
      const value = found ? dig(this.config.parameters.get(head as string), path) : undefined;
      if (value === undefined) return dflt ?? missing(problem, `no global parameter '${name}'`);
      // A parameter may itself use parameters and node values.
      return depth > 10 ? render(value) : this.expand(render(value), problem, depth + 1);
    }
    return this.nodeValue(expr, dflt, problem);
  }

  private nodeValue(
    expr: string,
    dflt: string | undefined,
    problem: (m: string) => void,
  ): string | undefined {
    const n = this.node;
    const server = this.config.nodes.get(n.policyServerId);
    if (expr.startsWith("properties[")) {
      const [head, ...path] = splitPath(expr.slice("properties".length));
      const value = head !== undefined && head in n.properties ? dig(n.properties[head], path) : undefined;
      if (value === undefined)
        return dflt ?? missing(problem, `node '${n.id}' has no property '${expr.slice(10)}'`);
      return render(value);
    }
    const simple: Record<string, string | undefined> = {
      id: n.id,
      hostname: n.hostname,
      state: n.state,
      "policyserver.id": n.policyServerId,
      "policyserver.hostname": server?.hostname,
      admin: n.agent.user,
      "policyserver.admin": server?.agent.user,
    };
    const v = simple[expr];
    // Unknown node.* names are left for the agent (the node's own CFEngine variables).
    return v ?? dflt;
  }
}

function missing(problem: (m: string) => void, message: string): undefined {
  problem(message);
  return undefined;
}

/** `[a][b]` or `a.b` → ["a", "b"]. */
function splitPath(s: string): string[] {
  if (s.startsWith("[")) return [...s.matchAll(/\[([^\]]*)\]/g)].map((m) => m[1] as string);
  return s.split(".");
}

function dig(v: unknown, path: readonly string[]): unknown {
  let cur = v;
  for (const p of path) {
    if (typeof cur !== "object" || cur === null || !(p in cur)) return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

function render(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}
