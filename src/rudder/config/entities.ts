/**
 * Directives, rules, groups, nodes, parameters and settings read from their
 * JSON files, in the shapes of Rudder's REST API. Each reader checks the
 * shape, reports what is wrong at the member it concerns, and returns what
 * it could read (undefined when the file is unusable).
 */
import type { PolicyMode } from "../expected-reports.js";
import type { DiagnosticBag } from "./diagnostics.js";
import {
  type JsonFile,
  type JsonObject,
  booleanMember,
  describe,
  errorAt,
  isObject,
  stringMember,
} from "./json-file.js";
import {
  DEFAULT_SERVER_SETTINGS,
  DEFAULT_SETTINGS,
  DEFAULT_TARGET_NAMES,
  type Criterion,
  type Directive,
  type Group,
  type Node,
  type NodeAgent,
  type NodeKind,
  type Query,
  type Rule,
  type ServerSettings,
  type Settings,
  type Target,
} from "./model.js";

function root(bag: DiagnosticBag, f: JsonFile): JsonObject | undefined {
  if (isObject(f.value)) return f.value;
  errorAt(bag, f, undefined, `expected a JSON object, found ${describe(f.value)}`);
  return undefined;
}

function checkId(bag: DiagnosticBag, f: JsonFile, o: JsonObject, fileId: string): string {
  const id = stringMember(bag, f, o, "id") ?? fileId;
  if (id !== fileId) errorAt(bag, f, "id", `"id" is '${id}' but the file is named '${fileId}.json'`);
  return id;
}

function policyMode(bag: DiagnosticBag, f: JsonFile, o: JsonObject): PolicyMode | undefined {
  const v = stringMember(bag, f, o, "policyMode");
  if (v === undefined || v === "default" || v === "") return undefined;
  if (v === "enforce" || v === "audit") return v;
  errorAt(bag, f, "policyMode", `"policyMode" is '${v}', expected "default", "enforce" or "audit"`);
  return undefined;
}

/** A directive file (api_directives.yml shape). */
export function readDirective(bag: DiagnosticBag, f: JsonFile, fileId: string): Directive | undefined {
  const o = root(bag, f);
  if (!o) return undefined;
  const id = checkId(bag, f, o, fileId);
  const techniqueName = stringMember(bag, f, o, "techniqueName", true);
  const techniqueVersion = stringMember(bag, f, o, "techniqueVersion", true);
  if (techniqueName === undefined || techniqueVersion === undefined) return undefined;
  let priority = 5;
  if (o.priority !== undefined) {
    if (
      typeof o.priority === "number" &&
      Number.isInteger(o.priority) &&
      o.priority >= 0 &&
      o.priority <= 10
    ) {
      priority = o.priority;
    } else
      errorAt(
        bag,
        f,
        "priority",
        `"priority" must be an integer from 0 (highest) to 10, found ${describe(o.priority)}`,
      );
  }
  const mode = policyMode(bag, f, o);
  return {
    id,
    displayName: stringMember(bag, f, o, "displayName") ?? id,
    techniqueName,
    techniqueVersion,
    values: readParameters(bag, f, o.parameters),
    priority,
    ...(mode === undefined ? {} : { policyMode: mode }),
    enabled: booleanMember(bag, f, o, "enabled", true),
    system: booleanMember(bag, f, o, "system", false),
    file: f.file,
  };
}

/**
 * The directive's parameters: Rudder's section tree
 * (`{"section": {"name", "vars": [{"var": {name, value}}], "sections": [...]}}`)
 * or, as a tend shorthand, a flat object of name → value or list of values.
 */
function readParameters(bag: DiagnosticBag, f: JsonFile, p: unknown): Map<string, string[]> {
  const values = new Map<string, string[]>();
  if (p === undefined) return values;
  if (!isObject(p)) {
    errorAt(bag, f, "parameters", `"parameters" must be an object, found ${describe(p)}`);
    return values;
  }
  const add = (name: string, value: string) => {
    const list = values.get(name);
    if (list) list.push(value);
    else values.set(name, [value]);
  };
  if (isObject(p.section)) {
    walkSection(bag, f, p.section, add);
    return values;
  }
  for (const [name, v] of Object.entries(p)) {
    if (typeof v === "string") add(name, v);
    else if (Array.isArray(v) && v.every((x) => typeof x === "string")) {
      values.set(name, [...(v as string[])]);
    } else
      errorAt(
        bag,
        f,
        name,
        `parameter "${name}" must be a string or a list of strings, found ${describe(v)}`,
      );
  }
  return values;
}

function walkSection(
  bag: DiagnosticBag,
  f: JsonFile,
  s: JsonObject,
  add: (n: string, v: string) => void,
): void {
  const vars = s.vars ?? [];
  const sections = s.sections ?? [];
  if (!Array.isArray(vars) || !Array.isArray(sections)) {
    errorAt(bag, f, "vars", `a section's "vars" and "sections" must be arrays`);
    return;
  }
  for (const v of vars) {
    const inner = isObject(v) && isObject(v.var) ? v.var : undefined;
    if (!inner || typeof inner.name !== "string" || typeof inner.value !== "string") {
      errorAt(bag, f, "var", `expected {"var": {"name": string, "value": string}}, found ${describe(v)}`);
      continue;
    }
    add(inner.name, inner.value);
  }
  for (const c of sections) {
    if (isObject(c) && isObject(c.section)) walkSection(bag, f, c.section, add);
    else errorAt(bag, f, "sections", `expected {"section": {...}}, found ${describe(c)}`);
  }
}

const SPECIAL = new Set(["all", "all_exceptPolicyServers", "all_policyServers"]);

/** A rule target: "special:all", "group:<id>", "node:<id>", "policyServer:<id>" or a composition. */
export function readTarget(bag: DiagnosticBag, f: JsonFile, t: unknown): Target | undefined {
  if (typeof t === "string") {
    const [kind, ...rest] = t.split(":");
    const value = rest.join(":");
    if (kind === "special" && SPECIAL.has(value)) return { kind: "special", value: value as "all" };
    if ((kind === "group" || kind === "node" || kind === "policyServer") && value !== "")
      return { kind, id: value };
    errorAt(
      bag,
      f,
      t,
      `unknown target '${t}', expected special:all, special:all_exceptPolicyServers, special:all_policyServers, group:<id>, node:<id> or policyServer:<id>`,
    );
    return undefined;
  }
  if (isObject(t)) {
    if ("include" in t || "exclude" in t) {
      const include = readTarget(bag, f, t.include ?? { or: [] });
      const exclude = readTarget(bag, f, t.exclude ?? { or: [] });
      return include && exclude ? { kind: "exclusion", include, exclude } : undefined;
    }
    for (const kind of ["or", "and"] as const) {
      const list = t[kind];
      if (Array.isArray(list)) {
        const targets = list.map((x) => readTarget(bag, f, x)).filter((x): x is Target => x !== undefined);
        return { kind, targets };
      }
    }
  }
  errorAt(
    bag,
    f,
    "targets",
    `a target must be a string, {"include": ..., "exclude": ...}, {"or": [...]} or {"and": [...]}, found ${describe(t)}`,
  );
  return undefined;
}

/** A rule file (api_rules.yml shape). */
export function readRule(bag: DiagnosticBag, f: JsonFile, fileId: string): Rule | undefined {
  const o = root(bag, f);
  if (!o) return undefined;
  const id = checkId(bag, f, o, fileId);
  const directives = o.directives ?? [];
  if (!Array.isArray(directives) || !directives.every((d) => typeof d === "string")) {
    errorAt(bag, f, "directives", `"directives" must be a list of directive ids`);
    return undefined;
  }
  const rawTargets = o.targets ?? [];
  if (!Array.isArray(rawTargets)) {
    errorAt(bag, f, "targets", `"targets" must be a list, found ${describe(rawTargets)}`);
    return undefined;
  }
  const targets = rawTargets.map((t) => readTarget(bag, f, t)).filter((t): t is Target => t !== undefined);
  return {
    id,
    displayName: stringMember(bag, f, o, "displayName") ?? id,
    directives: directives as string[],
    targets,
    enabled: booleanMember(bag, f, o, "enabled", true),
    system: booleanMember(bag, f, o, "system", false),
    file: f.file,
  };
}

function readQuery(bag: DiagnosticBag, f: JsonFile, q: unknown): Query | undefined {
  if (!isObject(q)) {
    errorAt(bag, f, "query", `"query" must be an object, found ${describe(q)}`);
    return undefined;
  }
  const composition = q.composition ?? "and";
  if (composition !== "and" && composition !== "or") {
    errorAt(bag, f, "composition", `"composition" must be "and" or "or", found ${describe(composition)}`);
    return undefined;
  }
  const transform = q.transform ?? "identity";
  if (transform !== "identity" && transform !== "invert") {
    errorAt(bag, f, "transform", `"transform" must be "identity" or "invert", found ${describe(transform)}`);
    return undefined;
  }
  const where = q.where ?? [];
  if (!Array.isArray(where)) {
    errorAt(bag, f, "where", `"where" must be a list of criteria`);
    return undefined;
  }
  const criteria: Criterion[] = [];
  for (const c of where) {
    if (!isObject(c) || typeof c.attribute !== "string" || typeof c.comparator !== "string") {
      errorAt(
        bag,
        f,
        "where",
        `a criterion needs "objectType", "attribute", "comparator" and "value", found ${describe(c)}`,
      );
      continue;
    }
    criteria.push({
      objectType: typeof c.objectType === "string" ? c.objectType : "node",
      attribute: c.attribute,
      comparator: c.comparator,
      value: typeof c.value === "string" ? c.value : c.value === undefined ? "" : JSON.stringify(c.value),
    });
  }
  return {
    select: typeof q.select === "string" ? q.select : "node",
    composition,
    transform,
    where: criteria,
  };
}

/** A group file (api_groups.yml shape). */
export function readGroup(bag: DiagnosticBag, f: JsonFile, fileId: string): Group | undefined {
  const o = root(bag, f);
  if (!o) return undefined;
  const id = checkId(bag, f, o, fileId);
  const nodeIds = o.nodeIds ?? [];
  if (!Array.isArray(nodeIds) || !nodeIds.every((n) => typeof n === "string")) {
    errorAt(bag, f, "nodeIds", `"nodeIds" must be a list of node ids`);
    return undefined;
  }
  const query = o.query === undefined ? undefined : readQuery(bag, f, o.query);
  const dynamic = booleanMember(bag, f, o, "dynamic", query !== undefined);
  if (dynamic && query === undefined) errorAt(bag, f, "dynamic", `a dynamic group needs a "query"`);
  return {
    id,
    displayName: stringMember(bag, f, o, "displayName") ?? id,
    nodeIds: nodeIds as string[],
    ...(query === undefined ? {} : { query }),
    dynamic,
    enabled: booleanMember(bag, f, o, "enabled", true),
    file: f.file,
  };
}

function readProperties(bag: DiagnosticBag, f: JsonFile, p: unknown): Record<string, unknown> {
  if (p === undefined) return {};
  if (Array.isArray(p)) {
    const out: Record<string, unknown> = {};
    for (const x of p) {
      if (isObject(x) && typeof x.name === "string") out[x.name] = x.value;
      else
        errorAt(
          bag,
          f,
          "properties",
          `a property must be {"name": string, "value": ...}, found ${describe(x)}`,
        );
    }
    return out;
  }
  if (isObject(p)) return { ...p };
  errorAt(bag, f, "properties", `"properties" must be a list of {"name", "value"} or an object`);
  return {};
}

/** Inventory facts by the attribute names Rudder's node queries use. */
function nodeFacts(
  o: JsonObject,
  id: string,
  hostname: string,
  policyServerId: string,
): Record<string, unknown> {
  const os = isObject(o.os) ? o.os : {};
  const facts: Record<string, unknown> = {
    nodeId: id,
    nodeHostname: hostname,
    policyServerId,
    OS: os.type,
    osName: os.name,
    osVersion: os.version,
    osFullName: os.fullName,
    osServicePack: os.servicePack,
    osKernelVersion: os.kernelVersion,
    osArchitectureDescription: o.architectureDescription,
    ram: o.ram,
    ipHostNumber: o.ipAddresses,
    agentName: isObject(o.agent) ? (o.agent.name ?? o.agent.type) : o.agentName,
    machineType: isObject(o.machine) ? o.machine.type : undefined,
    manufacturer: isObject(o.machine) ? o.machine.manufacturer : undefined,
    timezone: isObject(o.timezone) ? o.timezone.name : undefined,
    state: o.state ?? "enabled",
  };
  if (isObject(o.facts)) Object.assign(facts, o.facts);
  for (const k of Object.keys(facts)) if (facts[k] === undefined) delete facts[k];
  return facts;
}

/** A node file (api_nodes.yml shape, plus "facts" for any other inventory value). */
export function readNode(bag: DiagnosticBag, f: JsonFile, fileId: string): Node | undefined {
  const o = root(bag, f);
  if (!o) return undefined;
  const id = checkId(bag, f, o, fileId);
  const hostname = stringMember(bag, f, o, "hostname") ?? id;
  const policyServerId = stringMember(bag, f, o, "policyServerId") ?? "root";
  const mode = policyMode(bag, f, o);
  return {
    id,
    hostname,
    policyServerId,
    isPolicyServer: booleanMember(bag, f, o, "isPolicyServer", id === "root"),
    ...(mode === undefined ? {} : { policyMode: mode }),
    properties: readProperties(bag, f, o.properties),
    facts: nodeFacts(o, id, hostname, policyServerId),
    state: typeof o.state === "string" ? o.state : "enabled",
    agent: readAgent(bag, f, o.agent),
    kind: nodeKind(bag, f, o, id),
    allowedNetworks: stringList(bag, f, o, "allowedNetworks"),
    file: f.file,
  };
}

/** "agent": {"type", "version", "user", "certificate"} (Rudder's RudderAgent). */
function readAgent(bag: DiagnosticBag, f: JsonFile, v: unknown): NodeAgent {
  const agent: NodeAgent = { type: "cfengine-community", version: "", user: "root" };
  if (v === undefined) return agent;
  if (!isObject(v)) {
    errorAt(bag, f, "agent", `"agent" must be an object, found ${describe(v)}`);
    return agent;
  }
  const str = (k: string): string | undefined => {
    const x = v[k];
    if (x === undefined) return undefined;
    if (typeof x === "string") return x;
    errorAt(bag, f, "agent", `"agent.${k}" must be a string, found ${describe(x)}`);
    return undefined;
  };
  const certificate = str("certificate");
  return {
    type: str("type") ?? agent.type,
    version: str("version") ?? agent.version,
    user: str("user") ?? agent.user,
    ...(certificate === undefined ? {} : { certificate }),
  };
}

function nodeKind(bag: DiagnosticBag, f: JsonFile, o: JsonObject, id: string): NodeKind {
  const v = stringMember(bag, f, o, "nodeKind");
  if (v === undefined) return id === "root" ? "root" : o.isPolicyServer === true ? "relay" : "node";
  if (v === "root" || v === "relay" || v === "node") return v;
  errorAt(bag, f, "nodeKind", `"nodeKind" is '${v}', expected "root", "relay" or "node"`);
  return "node";
}

function stringList(bag: DiagnosticBag, f: JsonFile, o: JsonObject, key: string): string[] {
  const v = o[key];
  if (v === undefined) return [];
  if (Array.isArray(v) && v.every((x) => typeof x === "string")) return v as string[];
  errorAt(bag, f, key, `"${key}" must be a list of strings, found ${describe(v)}`);
  return [];
}

/** parameters.json: a list of {"id", "value"} (api_parameters.yml) or {"parameters": [...]}. */
export function readParametersFile(bag: DiagnosticBag, f: JsonFile): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const list = Array.isArray(f.value) ? f.value : isObject(f.value) ? f.value.parameters : undefined;
  if (!Array.isArray(list)) {
    errorAt(bag, f, undefined, `expected a list of {"id", "value"} or {"parameters": [...]}`);
    return out;
  }
  for (const p of list) {
    const name = isObject(p) ? (p.id ?? p.name) : undefined;
    if (!isObject(p) || typeof name !== "string") {
      errorAt(bag, f, undefined, `a parameter must be {"id": string, "value": ...}, found ${describe(p)}`);
      continue;
    }
    out.set(name, p.value);
  }
  return out;
}

const SETTING_KEYS: Readonly<Record<string, keyof Settings>> = {
  global_policy_mode: "policyMode",
  global_policy_mode_overridable: "policyModeOverridable",
  rudder_compliance_mode: "complianceMode",
  rudder_compliance_mode_name: "complianceMode",
  heartbeat_frequency: "heartbeatPeriod",
  run_frequency: "runFrequency",
  first_run_minute: "firstRunMinute",
  first_run_hour: "firstRunHour",
  splay_time: "splayTime",
};

/** settings.json "server": the values behind Rudder's global system variables, each optional. */
function readServerSettings(bag: DiagnosticBag, f: JsonFile, v: unknown): ServerSettings {
  if (!isObject(v)) {
    errorAt(bag, f, "server", `"server" must be an object, found ${describe(v)}`);
    return DEFAULT_SERVER_SETTINGS;
  }
  const out: Record<string, unknown> = { ...DEFAULT_SERVER_SETTINGS };
  for (const [key, value] of Object.entries(v)) {
    const dflt = (DEFAULT_SERVER_SETTINGS as unknown as Record<string, unknown>)[key];
    if (dflt === undefined) {
      errorAt(
        bag,
        f,
        "server",
        `unknown server setting "${key}", expected one of ${Object.keys(DEFAULT_SERVER_SETTINGS).join(", ")}`,
      );
    } else if (typeof value !== typeof dflt) {
      errorAt(bag, f, "server", `"server.${key}" must be a ${typeof dflt}, found ${describe(value)}`);
    } else out[key] = value;
  }
  return out as unknown as ServerSettings;
}

/**
 * settings.json "target_names": {"special:all": "All nodes", ...}: the
 * special targets of the group library and their names, in order (replaces
 * Rudder's default ones).
 */
function readTargetNames(bag: DiagnosticBag, f: JsonFile, v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isObject(v)) {
    errorAt(bag, f, "target_names", `"target_names" must be an object, found ${describe(v)}`);
    return { ...DEFAULT_TARGET_NAMES };
  }
  for (const [key, value] of Object.entries(v)) {
    if (typeof value === "string") out[key] = value;
    else errorAt(bag, f, "target_names", `"target_names.${key}" must be a string, found ${describe(value)}`);
  }
  return out;
}

/** settings.json: Rudder's settings API names, each optional. */
export function readSettings(bag: DiagnosticBag, f: JsonFile): Settings {
  const o = root(bag, f);
  if (!o) return DEFAULT_SETTINGS;
  const s: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  for (const [key, value] of Object.entries(o)) {
    if (key === "server") {
      s.server = readServerSettings(bag, f, value);
      continue;
    }
    if (key === "target_names") {
      s.targetNames = readTargetNames(bag, f, value);
      continue;
    }
    const field = SETTING_KEYS[key];
    if (!field) {
      errorAt(
        bag,
        f,
        key,
        `unknown setting "${key}", expected one of ${[...Object.keys(SETTING_KEYS), "server", "target_names"].join(", ")}`,
      );
      continue;
    }
    if (typeof value !== typeof DEFAULT_SETTINGS[field]) {
      errorAt(bag, f, key, `"${key}" must be a ${typeof DEFAULT_SETTINGS[field]}, found ${describe(value)}`);
      continue;
    }
    s[field] = value;
  }
  if (s.policyMode !== "enforce" && s.policyMode !== "audit") {
    errorAt(bag, f, "global_policy_mode", `"global_policy_mode" must be "enforce" or "audit"`);
    s.policyMode = "enforce";
  }
  if (!["full-compliance", "changes-only", "reports-disabled"].includes(s.complianceMode as string)) {
    errorAt(
      bag,
      f,
      "rudder_compliance_mode",
      `the compliance mode must be full-compliance, changes-only or reports-disabled`,
    );
    s.complianceMode = "full-compliance";
  }
  return s as unknown as Settings;
}
