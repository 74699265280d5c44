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
import type { Configuration } from "../config/model.js";
import { DEFAULT_TEMPLATES, type Templates, buildBundleSequence, sortPolicies } from "./bundle-sequence.js";
import { type DraftProblem, draftsForNode } from "./drafts.js";
import { nodeExpectedReports } from "./expected.js";
import { type MergeMessage, buildPolicies } from "./merge.js";
import type { GlobalPolicyMode, Policy } from "./policy.js";
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
  const cache: SourceCache = options.fileCache ?? new Map();
  for (const p of sortPolicies(policies)) addTechniqueFiles(config, p, files, messages, cache);
  const nodeConfigId = configId(files);
  const beginDate = (options.now ?? new Date()).toISOString();
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

/** A stable id of the node's configuration: a digest of the files generated. */
function configId(files: ReadonlyMap<string, string>): string {
  const h = createHash("sha256");
  for (const [path, content] of [...files].sort(([a], [b]) => (a < b ? -1 : 1)))
    h.update(`${path}\0${content}\0`);
  return h.digest("hex").slice(0, 32);
}

export type { MergeMessage };
