/**
 * Reads a node's expected reports from Rudder's JSON (the 7.1/8.2 format of
 * src/rudder/expected-reports.ts) into the model compliance works on,
 * checking every field: a bad file gives a list of problems, each with the
 * JSON path where it is, never an exception.
 */
import {
  EXPECTED_REPORTS_FILE,
  type ExpectedReportsFile,
  type JsonComponentExpectedReport,
} from "../expected-reports.js";
import type {
  ComponentExpected,
  DirectiveExpected,
  ExpectedValue,
  NodeExpectedReports,
  NodeModes,
  OverriddenPolicy,
  RuleExpected,
} from "./expected.js";
import { BASE_TAG, parseReportingLogic, SYSTEM_TAG } from "./expected.js";
import type { ComplianceMode, PolicyMode } from "./report-type.js";

export { EXPECTED_REPORTS_FILE, type ExpectedReportsFile };

/** A problem in the expected reports, at a JSON path (`rs[0].ds[1].cs[0].vid`). */
export interface ExpectedProblem {
  readonly path: string;
  readonly message: string;
}

type Json = unknown;

class Reader {
  readonly problems: ExpectedProblem[] = [];

  fail(path: string, message: string): undefined {
    this.problems.push({ path: path || "(top)", message });
    return undefined;
  }

  object(value: Json, path: string): Record<string, Json> | undefined {
    if (typeof value === "object" && value !== null && !Array.isArray(value))
      return value as Record<string, Json>;
    return this.fail(path, "expected an object");
  }

  array(value: Json, path: string): Json[] {
    if (Array.isArray(value)) return value;
    this.fail(path, "expected an array");
    return [];
  }

  string(value: Json, path: string): string | undefined {
    return typeof value === "string" ? value : this.fail(path, "expected a string");
  }

  number(value: Json, path: string, fallback: number): number {
    if (value === undefined) return fallback;
    if (typeof value === "number" && Number.isFinite(value)) return value;
    this.fail(path, "expected a number");
    return fallback;
  }

  mode(value: Json, path: string): PolicyMode | undefined {
    if (value === undefined || value === null) return undefined;
    if (value === "enforce" || value === "audit") return value;
    return this.fail(path, "expected 'enforce' or 'audit'");
  }
}

const join = (base: string, key: string | number): string =>
  typeof key === "number" ? `${base}[${key}]` : base ? `${base}.${key}` : key;

function readValue(r: Reader, v: Json, path: string): ExpectedValue | undefined {
  if (Array.isArray(v)) {
    const texts = v.map((x, i) => r.string(x, join(path, i)) ?? "");
    if (texts.length === 0) return { kind: "match", value: "None", unexpanded: "None" };
    return { kind: "match", value: texts[0] as string, unexpanded: texts[1] ?? (texts[0] as string) };
  }
  const o = r.object(v, path);
  if (!o) return undefined;
  const id = r.string(o.id, join(path, "id"));
  const value = r.string(o.v, join(path, "v"));
  return id !== undefined && value !== undefined ? { kind: "id", id, value } : undefined;
}

function readComponent(r: Reader, c: Json, path: string): ComponentExpected | undefined {
  const o = r.object(c, path);
  if (!o) return undefined;
  if ("vid" in o) {
    const name = r.string(o.vid, join(path, "vid"));
    const values = r
      .array(o.vs, join(path, "vs"))
      .flatMap((v, i) => readValue(r, v, join(path, `vs[${i}]`)) ?? []);
    return name === undefined ? undefined : { kind: "value", name, values };
  }
  if (!("bid" in o)) return r.fail(path, "expected a component ('vid') or a block ('bid')");
  const name = r.string(o.bid, join(path, "bid"));
  const logicText = r.string(o.rl, join(path, "rl"));
  const logic = logicText === undefined ? undefined : parseReportingLogic(logicText);
  if (logicText !== undefined && !logic)
    r.fail(
      join(path, "rl"),
      `'${logicText}' is not a reporting logic (weighted, focus:ID, focus-worst, worst-case-weighted-one, worst-case-weighted-sum)`,
    );
  const components = r
    .array(o.scs, join(path, "scs"))
    .flatMap((s, i) => readComponent(r, s, join(path, `scs[${i}]`)) ?? []);
  if (name === undefined || !logic) return undefined;
  const id = typeof o.id === "string" ? { id: o.id } : {};
  return { kind: "block", name, logic, components, ...id };
}

function readDirective(r: Reader, d: Json, path: string): DirectiveExpected | undefined {
  const o = r.object(d, path);
  if (!o) return undefined;
  const directiveId = r.string(o.did, join(path, "did"));
  const policyMode = r.mode(o.pm, join(path, "pm"));
  let policyTypes: string[] = [o.s === true ? SYSTEM_TAG : BASE_TAG];
  if (o.t !== undefined && o.t !== null)
    policyTypes =
      typeof o.t === "string"
        ? [o.t]
        : r.array(o.t, join(path, "t")).flatMap((t, i) => r.string(t, join(path, `t[${i}]`)) ?? []);
  const components = r
    .array(o.cs, join(path, "cs"))
    .flatMap((c, i) => readComponent(r, c, join(path, `cs[${i}]`)) ?? []);
  if (directiveId === undefined) return undefined;
  return { directiveId, policyTypes, components, ...(policyMode ? { policyMode } : {}) };
}

function readRule(r: Reader, rule: Json, path: string): RuleExpected | undefined {
  const o = r.object(rule, path);
  if (!o) return undefined;
  const ruleId = r.string(o.rid, join(path, "rid"));
  const directives = r
    .array(o.ds, join(path, "ds"))
    .flatMap((d, i) => readDirective(r, d, join(path, `ds[${i}]`)) ?? []);
  return ruleId === undefined ? undefined : { ruleId, directives };
}

const COMPLIANCE_MODES: readonly ComplianceMode[] = ["full-compliance", "changes-only", "reports-disabled"];

function readModes(r: Reader, ms: Json): NodeModes {
  const o = r.object(ms, "ms") ?? {};
  const gpm = r.object(o.gpm, "ms.gpm") ?? {};
  const global = r.mode(gpm.m, "ms.gpm.m") ?? "enforce";
  const gcm = o.gcm ?? "full-compliance";
  const complianceMode = COMPLIANCE_MODES.find((m) => m === gcm);
  if (!complianceMode) r.fail("ms.gcm", "expected 'full-compliance', 'changes-only' or 'reports-disabled'");
  const nar = o.nar === undefined || o.nar === null ? undefined : r.object(o.nar, "ms.nar");
  const gar = r.object(o.gar ?? {}, "ms.gar") ?? {};
  const nodeMode = r.mode(o.npm, "ms.npm");
  const nhp = o.nhp === undefined || o.nhp === null ? undefined : r.number(o.nhp, "ms.nhp", 1);
  return {
    globalPolicyMode: global,
    overridable: gpm.o !== false,
    ...(nodeMode ? { nodePolicyMode: nodeMode } : {}),
    complianceMode: complianceMode ?? "full-compliance",
    heartbeatPeriod: nhp ?? r.number(o.ghp, "ms.ghp", 1),
    runInterval: nar ? r.number(nar.i, "ms.nar.i", 5) : r.number(gar.i, "ms.gar.i", 5),
  };
}

function readOverride(r: Reader, o: Json, path: string): OverriddenPolicy | undefined {
  const obj = r.object(o, path);
  const p = obj ? r.object(obj.p, join(path, "p")) : undefined;
  const ob = obj ? r.object(obj.ob, join(path, "ob")) : undefined;
  if (!p || !ob) return undefined;
  const ids = [
    r.string(p.rid, join(path, "p.rid")),
    r.string(p.did, join(path, "p.did")),
    r.string(ob.rid, join(path, "ob.rid")),
    r.string(ob.did, join(path, "ob.did")),
  ];
  const [a, b, c, d] = ids;
  if (a === undefined || b === undefined || c === undefined || d === undefined) return undefined;
  return { policy: { ruleId: a, directiveId: b }, overriddenBy: { ruleId: c, directiveId: d } };
}

/** One expected component in Rudder's JSON (`{"vid":…}` or `{"bid":…}`), for tests and tools. */
export function decodeComponent(json: JsonComponentExpectedReport | Json): {
  component?: ComponentExpected;
  problems: ExpectedProblem[];
} {
  const r = new Reader();
  const component = readComponent(r, json, "");
  return { ...(component ? { component } : {}), problems: r.problems };
}

/** One rule's expected reports in Rudder's JSON (`{"rid":…,"ds":[…]}`). */
export function decodeRule(json: Json): { rule?: RuleExpected; problems: ExpectedProblem[] } {
  const r = new Reader();
  const rule = readRule(r, json, "");
  return { ...(rule ? { rule } : {}), problems: r.problems };
}

/**
 * A node's expected reports from the file generation writes (or Rudder's
 * bare JSON, with `nodeId` and `configId` given as fallbacks).
 */
export function decodeExpectedReports(
  json: Json,
  fallback: { nodeId?: string; configId?: string } = {},
): { expected?: NodeExpectedReports; problems: ExpectedProblem[] } {
  const r = new Reader();
  const o = r.object(json, "");
  if (!o) return { problems: r.problems };
  const modes = readModes(r, o.ms);
  const rules = r.array(o.rs, "rs").flatMap((x, i) => readRule(r, x, `rs[${i}]`) ?? []);
  const overrides = r.array(o.os ?? [], "os").flatMap((x, i) => readOverride(r, x, `os[${i}]`) ?? []);
  const nodeId = typeof o.nodeId === "string" ? o.nodeId : fallback.nodeId;
  const configId = typeof o.nodeConfigId === "string" ? o.nodeConfigId : fallback.configId;
  if (nodeId === undefined) r.fail("nodeId", "expected the node's id");
  if (configId === undefined) r.fail("nodeConfigId", "expected the node configuration id");
  if (r.problems.length > 0 || nodeId === undefined || configId === undefined)
    return { problems: r.problems };
  const begin = typeof o.beginDate === "string" ? { beginDate: o.beginDate } : {};
  return { expected: { nodeId, configId, modes, rules, overrides, ...begin }, problems: [] };
}
