/**
 * A node's expected reports from its policies, as RuleExpectedReportBuilder
 * (DeploymentService.scala) builds them: one entry per (rule, directive) —
 * a merged policy gives one per directive it merged — with the components
 * of the technique's sections: a component section reports once per value
 * of its component key (matched by report id when the section or the
 * variable has an id), a section with a reporting logic is a block, other
 * sections only hold components; a technique without components reports
 * under its own name once per value of the tracking variable.
 */
import type {
  ExpectedReportsFile,
  JsonComponentExpectedReport,
  JsonDirectiveExpectedReports,
  JsonExpectedValue,
  JsonOverride,
  JsonRuleExpectedReports,
  ReportingLogicValue,
} from "../expected-reports.js";
import { encodeValueMatch } from "../expected-reports.js";
import type { Settings } from "../config/model.js";
import type { SectionSpec, Technique, VariableSpec } from "../config/technique.js";
import type { Policy, PolicyVars } from "./policy.js";

const NONE = "None";

function zipMatch(values: readonly string[], unexpanded: readonly string[]): JsonExpectedValue[] {
  const n = Math.min(values.length, unexpanded.length);
  const out: JsonExpectedValue[] = [];
  for (let i = 0; i < n; i++) out.push(encodeValueMatch(values[i] as string, unexpanded[i] as string));
  return out;
}

function findVariable(section: SectionSpec, name: string): VariableSpec | undefined {
  for (const c of section.children) {
    if (c.kind === "variable" && c.name === name) return c;
    if (c.kind === "section") {
      const v = findVariable(c, name);
      if (v) return v;
    }
  }
  return undefined;
}

function sectionReports(t: Technique, vars: PolicyVars, s: SectionSpec): JsonComponentExpectedReport[] {
  const subSections = () => s.children.filter((c): c is SectionSpec => c.kind === "section");
  if (!s.component) return subSections().flatMap((c) => sectionReports(t, vars, c));
  if (s.reportingLogic !== undefined) {
    const children = subSections().flatMap((c) => sectionReports(t, vars, c));
    return [
      {
        bid: s.name,
        rl: reportingLogic(s.reportingLogic, children),
        scs: children,
        ...(s.id ? { id: s.id } : {}),
      },
    ];
  }
  if (s.componentKey === undefined) {
    return [{ vid: s.name, vs: [s.id ? { id: s.id, v: NONE } : encodeValueMatch(NONE, NONE)] }];
  }
  const values = vars.values.get(s.componentKey) ?? [];
  const unexpanded = vars.originalValues.get(s.componentKey) ?? [];
  const reportId = s.id ?? findVariable(t.rootSection, s.componentKey)?.id;
  const vs: JsonExpectedValue[] = reportId
    ? values.map((v) => ({ id: reportId, v }))
    : zipMatch(values, unexpanded);
  return [{ vid: s.name, vs }, ...subSections().flatMap((c) => sectionReports(t, vars, c))];
}

function reportingLogic(
  value: string,
  children: readonly JsonComponentExpectedReport[],
): ReportingLogicValue {
  const lower = value.toLowerCase();
  if (
    lower === "weighted" ||
    lower === "worst-case-weighted-one" ||
    lower === "worst-case-weighted-sum" ||
    lower === "focus-worst"
  ) {
    return lower;
  }
  const focus =
    lower === "focus" ? "" : value.startsWith("focus:") ? value.slice("focus:".length) : undefined;
  if (focus === undefined) return "weighted";
  // A focus on a report id names the component carrying that id.
  const hit = children.find((c) =>
    "bid" in c ? c.id === focus : c.vs.some((v) => !Array.isArray(v) && (v as { id: string }).id === focus),
  );
  return `focus:${hit ? ("bid" in hit ? hit.bid : hit.vid) : focus}`;
}

/** The components one directive of `policy` is expected to report. */
export function componentsOf(t: Technique, vars: PolicyVars): JsonComponentExpectedReport[] {
  const all = t.rootSection.children
    .filter((c): c is SectionSpec => c.kind === "section")
    .flatMap((s) => sectionReports(t, vars, s));
  if (all.length > 0) return all;
  const bound = t.trackerBoundingVariable;
  const values = bound ? (vars.values.get(bound) ?? []) : [];
  const unexpanded = bound ? (vars.originalValues.get(bound) ?? []) : [];
  const vs =
    values.length === 0 && unexpanded.length === 0
      ? [encodeValueMatch(NONE, NONE)]
      : zipMatch(values, unexpanded);
  return [{ vid: t.id.name, vs }];
}

/** The rules' expected reports, in the order rules first appear in `policies`. */
export function ruleExpectedReports(policies: readonly Policy[]): JsonRuleExpectedReports[] {
  const byRule = new Map<string, JsonDirectiveExpectedReports[]>();
  for (const p of policies) {
    for (const v of p.vars) {
      const t = p.technique;
      const types = [...t.policyTypes];
      const d: JsonDirectiveExpectedReports = {
        did: v.id.directiveId,
        ...(v.policyMode ? { pm: v.policyMode } : {}),
        ...(types.length === 1 && types[0] === "rudder.base" ? {} : { t: types }),
        cs: componentsOf(t, v),
      };
      const list = byRule.get(v.id.ruleId);
      if (list) list.push(d);
      else byRule.set(v.id.ruleId, [d]);
    }
  }
  return [...byRule].map(([rid, ds]) => ({ rid, ds }));
}

/** The whole file generation writes next to the policy. */
export function nodeExpectedReports(
  nodeId: string,
  nodeConfigId: string,
  beginDate: string,
  nodeMode: "enforce" | "audit" | undefined,
  settings: Settings,
  policies: readonly Policy[],
): ExpectedReportsFile {
  const os: JsonOverride[] = policies.flatMap((p) =>
    p.overrides.map((o) => ({
      p: { rid: o.ruleId, did: o.directiveId },
      ob: { rid: p.id.ruleId, did: p.id.directiveId },
    })),
  );
  return {
    nodeId,
    nodeConfigId,
    beginDate,
    ms: {
      gpm: { m: settings.policyMode, o: settings.policyModeOverridable },
      ...(nodeMode ? { npm: nodeMode } : {}),
      gcm: settings.complianceMode,
      ghp: settings.heartbeatPeriod,
      gar: {
        i: settings.runFrequency,
        sm: settings.firstRunMinute,
        sh: settings.firstRunHour,
        st: settings.splayTime,
      },
    },
    rs: ruleExpectedReports(policies),
    os,
  };
}
