/**
 * Policy generation for one node: drafts from the rules that target it,
 * merged and ordered as Rudder does (merge.ts), then the node's policy
 * directory as Rudder lays it out — rudder-directives.cf, its .csv, one
 * folder per technique and version with the technique's files, and the
 * expected reports (expected-reports.json). Returns the files as data;
 * write.ts puts them on disk.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { EXPECTED_REPORTS_FILE, type ExpectedReportsFile } from "../expected-reports.js";
import type { Configuration, Node } from "../config/model.js";
import { cfEscape } from "../technique/cf-layout.js";
import { DEFAULT_TEMPLATES, type Templates, buildBundleSequence, sortPolicies } from "./bundle-sequence.js";
import { type DraftProblem, draftsForNode } from "./drafts.js";
import { nodeExpectedReports } from "./expected.js";
import { type MergeMessage, buildPolicies } from "./merge.js";
import type { GlobalPolicyMode, Policy } from "./policy.js";
import type { StRecord, StValue } from "./string-template.js";
import {
  type SystemVariableProblem,
  type SystemVariables,
  liftJson,
  nodeSystemVariables,
  systemVariablesJson,
} from "./system-variables.js";
import { type SourceCache, addTechniqueFiles } from "./technique-files.js";

export interface GenerateMessage {
  readonly level: "warning" | "error";
  readonly message: string;
}

export interface GenerateOptions {
  /** templates for rudder-directives.cf (default: the configuration's, else tend's) */
  readonly templates?: Templates;
  /** the generation date written in the expected reports (default: now) */
  readonly now?: Date;
  /** technique files already read, by path (share one across the nodes of a run) */
  readonly fileCache?: SourceCache;
  /** the node configuration id (default: a digest of the files generated) */
  readonly nodeConfigId?: string;
  /** system variables to set whatever the configuration says (as Rudder's tests force some) */
  readonly systemVariableOverrides?: ReadonlyMap<string, readonly string[]>;
}

export type GenerateResult =
  | {
      readonly ok: true;
      readonly nodeId: string;
      readonly nodeConfigId: string;
      readonly policies: readonly Policy[];
      /** relative path → content */
      readonly files: ReadonlyMap<string, string>;
      readonly expectedReports: ExpectedReportsFile;
      readonly messages: readonly GenerateMessage[];
    }
  | { readonly ok: false; readonly messages: readonly GenerateMessage[] };

export function globalPolicyMode(config: Configuration): GlobalPolicyMode {
  return { mode: config.settings.policyMode, overridable: config.settings.policyModeOverridable };
}

/**
 * The templates of rudder-directives.cf: `templates/rudder-directives.st`
 * of the configuration, or a technique folder holding one (Rudder's system
 * technique "common" does), else tend's own.
 */
export function findTemplates(config: Configuration): Templates {
  for (const dir of [join(config.dir, "templates"), ...[...config.techniques.values()].map((t) => t.dir)]) {
    const directives = join(dir, "rudder-directives.st");
    if (!existsSync(directives)) continue;
    const system = join(dir, "rudder-system-directives.st");
    return {
      directives: readFileSync(directives, "utf8"),
      systemDirectives: existsSync(system)
        ? readFileSync(system, "utf8")
        : DEFAULT_TEMPLATES.systemDirectives,
    };
  }
  return DEFAULT_TEMPLATES;
}

/** Generates the policy of node `nodeId`. */
export function generateNode(
  config: Configuration,
  nodeId: string,
  options: GenerateOptions = {},
): GenerateResult {
  const node = config.nodes.get(nodeId);
  if (!node)
    return {
      ok: false,
      messages: [{ level: "error", message: `no node '${nodeId}' in ${config.dir}/nodes` }],
    };
  const problems: DraftProblem[] = [];
  const drafts = draftsForNode(config, node, problems);
  const global = globalPolicyMode(config);
  const merged = buildPolicies(node, global, drafts);
  const messages: GenerateMessage[] = [...problems, ...merged.messages];
  if (!merged.ok || messages.some((m) => m.level === "error")) return { ok: false, messages };
  const policies = merged.policies;
  const files = new Map<string, string>();
  const seq = buildBundleSequence(
    policies,
    global,
    node.policyMode,
    options.templates ?? findTemplates(config),
  );
  files.set("rudder-directives.cf", seq.directives);
  if (seq.systemDirectives !== undefined) files.set("rudder-system-directives.cf", seq.systemDirectives);
  files.set("rudder-directives.csv", seq.csv);
  // Rudder's system techniques (common...) are what use the system variables and agent files.
  const withSystem = policies.some((p) => p.technique.isSystem);
  const now = options.now ?? new Date();
  let extra: Map<string, StValue> = new Map();
  if (withSystem) {
    const problems: SystemVariableProblem[] = [];
    const sys = nodeSystemVariables(config, node, global, options.nodeConfigId ?? CONFIG_ID_MARK, problems);
    messages.push(...problems);
    if (problems.some((m) => m.level === "error")) return { ok: false, messages };
    for (const [name, value] of Object.entries(seq.variables))
      sys.set(name, { values: [value], multivalued: false });
    for (const [name, values] of options.systemVariableOverrides ?? [])
      sys.set(name, { ...(sys.get(name) ?? { multivalued: values.length !== 1 }), values });
    extra = systemAttributes(sys);
    extra.set("RUDDER_PARAMETERS", parameterEntries(config));
    extra.set("GENERATIONTIMESTAMP", String(now.getTime()));
    addAgentFiles(config, node, sys, files);
  }
  const cache: SourceCache = options.fileCache ?? new Map();
  for (const p of sortPolicies(policies)) addTechniqueFiles(config, p, files, messages, cache, extra);
  const nodeConfigId = options.nodeConfigId ?? configId(files);
  if (withSystem && options.nodeConfigId === undefined) {
    for (const [path, text] of files)
      if (text.includes(CONFIG_ID_MARK)) files.set(path, text.split(CONFIG_ID_MARK).join(nodeConfigId));
  }
  const beginDate = now.toISOString();
  const expectedReports = nodeExpectedReports(
    node.id,
    nodeConfigId,
    beginDate,
    node.policyMode,
    config.settings,
    policies,
  );
  files.set(EXPECTED_REPORTS_FILE, `${JSON.stringify(expectedReports, null, 2)}\n`);
  return { ok: true, nodeId: node.id, nodeConfigId, policies, files, expectedReports, messages };
}

/** Stands for the node configuration id until the files it is a digest of are known. */
const CONFIG_ID_MARK = "@@tend-rudder-node-config-id@@";

/** System variables as template attributes (FillTemplatesService: none or one empty value is no value). */
function systemAttributes(sys: SystemVariables): Map<string, StValue> {
  const out = new Map<string, StValue>();
  for (const [name, v] of sys) {
    const values = v.values;
    if (values.length === 0 || (values.length === 1 && values[0] === "")) out.set(name, undefined);
    else if (values.length === 1) {
      const only = values[0] as string;
      out.set(name, v.boolean ? only.toLowerCase() === "true" : only);
    } else out.set(name, [...values]);
  }
  return out;
}

const parameterText = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v));

/** RUDDER_PARAMETERS: the global parameters as ParameterEntry (name, agent-escaped value). */
function parameterEntries(config: Configuration): StRecord[] {
  return [...config.parameters].map(([name, value]) => ({
    parameterName: name,
    escapedValue: cfEscape(parameterText(value)),
  }));
}

/**
 * The files Rudder's writer adds to a node's policies: rudder.json (system
 * variables), rudder-parameters.json, properties.d/properties.json and the
 * policy servers' certificates.
 */
function addAgentFiles(
  config: Configuration,
  node: Node,
  sys: SystemVariables,
  files: Map<string, string>,
): void {
  files.set("rudder.json", systemVariablesJson(sys));
  const parameters: Record<string, unknown> = {};
  for (const name of [...config.parameters.keys()].sort()) parameters[name] = config.parameters.get(name);
  files.set("rudder-parameters.json", liftJson({ parameters }));
  // Rudder's file ends with a newline only when the node has properties.
  const hasProperties = Object.keys(node.properties).length > 0;
  files.set(
    "properties.d/properties.json",
    `${liftJson({ properties: node.properties })}${hasProperties ? "\n" : ""}`,
  );
  const rootCert = config.nodes.get("root")?.agent.certificate ?? "";
  files.set("certs/root.pem", rootCert);
  const server = config.nodes.get(node.policyServerId);
  files.set(
    "certs/policy-server.pem",
    node.policyServerId === "root" ? rootCert : (server?.agent.certificate ?? ""),
  );
}

/** A stable id of the node's configuration: a digest of the files generated. */
function configId(files: ReadonlyMap<string, string>): string {
  const h = createHash("sha256");
  for (const [path, content] of [...files].sort(([a], [b]) => (a < b ? -1 : 1)))
    h.update(`${path}\0${content}\0`);
  return h.digest("hex").slice(0, 32);
}

export type { MergeMessage };
