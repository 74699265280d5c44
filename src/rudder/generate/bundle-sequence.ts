/**
 * The bundle sequence of a node's policy, written as Rudder writes it
 * (BuildBundleSequence.scala, CfengineBundleVariables, PolicyOrdering):
 * `rudder-directives.cf` calls, per directive in (rule name, directive
 * name) order, `set_dry_run_mode` with the directive's mode and a
 * `run_<directive id>` bundle that sets the reporting context
 * (`rudder_reporting_context_v4`), turns method reporting on or off, calls
 * the technique's bundles (with the directive's parameters for
 * `separated-with-parameters`) and cleans the context. Run hooks come
 * before and after; `clean_mode` ends in enforce mode.
 * `rudder-directives.csv` lists the same policies, one line each.
 */
import type { PolicyMode } from "../expected-reports.js";
import type { RunHookSpec } from "../config/technique.js";
import { allVariables } from "../config/technique.js";
import { cfEscape } from "../technique/cf-layout.js";
import { compareBundleOrderList } from "./bundle-order.js";
import {
  type GlobalPolicyMode,
  type Policy,
  computeMode,
  mergedValues,
  reportId,
  rudderUniqueId,
} from "./policy.js";

const UNIQUE_ID_TAG = "RudderUniqueID";

/** PolicyOrdering.sort: policy type, rule name, directive name, unique id. */
export function sortPolicies(policies: readonly Policy[]): Policy[] {
  const tag = (p: Policy) =>
    p.technique.isSystem ? "rudder.system" : ([...p.technique.policyTypes].sort()[0] ?? "rudder.base");
  const keyOf = (p: Policy) => [tag(p), p.ruleOrder, p.directiveOrder, rudderUniqueId(p)];
  return [...policies].sort((a, b) => compareBundleOrderList(keyOf(a), keyOf(b)));
}

/** A path with the technique folder made unique for a `separated` policy (Policy.makeUniqueDest). */
export function policyPath(path: string, p: Policy): string {
  if (p.technique.generationMode !== "separated") return path;
  const id = rudderUniqueId(p);
  const from = `${p.technique.id.name}/${p.technique.id.version}`;
  const at = path.indexOf(from);
  const unique =
    at < 0 ? path : `${path.slice(0, at)}${p.technique.id.name}/${id}${path.slice(at + from.length)}`;
  return unique.split(UNIQUE_ID_TAG).join(id);
}

/** The input files of the policies, in order, without duplicates. */
export function inputFiles(sorted: readonly Policy[], system: boolean): string[] {
  const out: string[] = [];
  for (const p of sorted) {
    if (p.technique.isSystem !== system) continue;
    for (const r of [...p.technique.templates, ...p.technique.files]) {
      if (r.included) out.push(policyPath(r.outPath, p));
    }
  }
  return [...new Set(out)];
}

interface Call {
  readonly name: string;
  /** already quoted parameters */
  readonly params: readonly string[];
}

const callText = (c: Call): string => (c.params.length === 0 ? c.name : `${c.name}(${c.params.join(",")})`);
const dq = (v: string): string => `"${cfEscape(v)}"`;

interface TechniqueBundles {
  readonly promiser: string;
  readonly policy: Policy;
  readonly mode: PolicyMode;
  readonly main: readonly Call[];
}

function mainBundles(p: Policy): Call[] {
  let params: string[] = [];
  if (p.technique.generationMode === "separated-with-parameters") {
    const values = mergedValues(p);
    params = allVariables(p.technique.rootSection)
      .filter((v) => v.marker !== "REPORTKEYS")
      .map((v) => dq(values.get(v.name)?.[0] ?? ""));
  }
  const id = rudderUniqueId(p);
  return p.technique.bundles
    .filter((b) => b.trim() !== "")
    .map((b) => ({
      name: p.technique.generationMode === "separated" ? b.split(UNIQUE_ID_TAG).join(id) : b,
      params,
    }));
}

function techniqueBundles(
  p: Policy,
  global: GlobalPolicyMode,
  nodeMode: PolicyMode | undefined,
): TechniqueBundles {
  return {
    promiser: `${p.ruleName}/${p.directiveName}`,
    policy: p,
    mode: computeMode(global, nodeMode, [p.policyMode]) ?? global.mode,
    main: mainBundles(p),
  };
}

function modeCall(t: TechniqueBundles): Call {
  const audit = !t.policy.technique.isSystem && t.mode === "audit";
  return { name: "set_dry_run_mode", params: [dq(audit ? "true" : "false")] };
}

const runBundleName = (p: Policy): string => `run_${p.id.directiveId.replace(/[-+]/g, "_")}`;

function runBundleCalls(t: TechniqueBundles): Call[] {
  const p = t.policy;
  const context: Call = {
    name: "rudder_reporting_context_v4",
    params: [p.id.directiveId, p.id.ruleId, p.technique.id.name, "", "", p.id.directiveId + p.id.ruleId].map(
      dq,
    ),
  };
  const reporting: Call = {
    name: p.technique.useMethodReporting ? "enable_reporting" : "disable_reporting",
    params: [],
  };
  return [
    ...(t.main.length > 0 ? [context] : []),
    reporting,
    ...t.main,
    { name: "clean_reporting_context", params: [] },
  ];
}

/** A merged run hook (MergePolicyService.mergeRunHooks). */
interface NodeRunHook {
  readonly hook: RunHookSpec;
  readonly reports: { id: string; mode: PolicyMode; technique: string; name: string; value: string }[];
}

function directivePolicyMode(
  global: GlobalPolicyMode,
  nodeMode: PolicyMode | undefined,
  mode: PolicyMode | undefined,
  system: boolean,
): PolicyMode {
  if (system) return "enforce";
  if (!global.overridable) return global.mode;
  if (nodeMode === "audit" || mode === "audit") return "audit";
  return mode ?? nodeMode ?? global.mode;
}

/** Run hooks of the policies, merged when kind, bundle and parameters are the same. */
export function mergeRunHooks(
  policies: readonly Policy[],
  global: GlobalPolicyMode,
  nodeMode: PolicyMode | undefined,
): NodeRunHook[] {
  const merged: NodeRunHook[] = [];
  for (const p of policies) {
    for (const v of p.vars) {
      for (const h of p.technique.runHooks) {
        const report = {
          id: reportId(v.id),
          mode: directivePolicyMode(global, nodeMode, v.policyMode, p.technique.isSystem),
          technique: p.technique.id.name,
          name: h.report.name,
          value: h.report.value ?? "None",
        };
        const same = merged.find(
          (m) =>
            m.hook.kind === h.kind &&
            m.hook.bundle === h.bundle &&
            JSON.stringify(m.hook.parameters) === JSON.stringify(h.parameters),
        );
        if (same) same.reports.push(report);
        else merged.push({ hook: h, reports: [report] });
      }
    }
  }
  return merged;
}

function hookJson(h: NodeRunHook): string {
  const parameters: Record<string, string> = {};
  for (const p of h.hook.parameters) parameters[p.name] = p.value;
  return JSON.stringify({ parameters, reports: h.reports });
}

/**
 * The text that replaces `&RUDDER_DIRECTIVES_SEQUENCE&` (or the system one):
 * the aligned `usebundle` lines, then the `run_*` bundles.
 */
export function formatSequence(
  bundles: readonly TechniqueBundles[],
  hooks: readonly NodeRunHook[],
  cleanDryRunEnd: boolean,
): string {
  return formatSequenceParts(bundles, hooks, cleanDryRunEnd).text;
}

/** The sequence text, and its usebundle lines alone (the value rudder.json shows). */
function formatSequenceParts(
  bundles: readonly TechniqueBundles[],
  hooks: readonly NodeRunHook[],
  cleanDryRunEnd: boolean,
): { text: string; usebundle: string } {
  const seq = bundles.map((b) => ({
    promiser: cfEscape(b.promiser),
    calls: [modeCall(b), { name: runBundleName(b.policy), params: [] }],
  }));
  const hookLines = (kind: "pre" | "post") =>
    hooks
      .filter((h) => h.hook.kind === kind)
      .map((h) => ({
        promiser: `${kind}-run-hook`,
        calls: [{ name: h.hook.bundle, params: [`'${hookJson(h)}'`] }],
      }));
  const all = [...hookLines("pre"), ...seq, ...hookLines("post")];
  const width = seq.length === 0 ? 0 : Math.max(...seq.map((s) => s.promiser.length));
  const pad = (s: string) => " ".repeat(Math.max(0, width - s.length));
  let out = "";
  let usebundle = "";
  if (all.length > 0) {
    out = all
      .flatMap((s) =>
        s.calls.map((c) => `      "${s.promiser}"${pad(s.promiser)} usebundle => ${callText(c)};`),
      )
      .join("\n");
    usebundle = out;
    if (cleanDryRunEnd)
      out += `\n      "clean_mode"${pad("clean_mode")} usebundle => set_dry_run_mode("false");`;
  }
  if (bundles.length > 0) {
    const runs = bundles.map((b) => {
      const lines = runBundleCalls(b).map(
        (c) => `      "${cfEscape(b.promiser)}" usebundle => ${callText(c)};`,
      );
      return `bundle agent ${runBundleName(b.policy)}\n{\n  methods:\n${lines.join("\n")}`;
    });
    out += `\n}\n${runs.join("\n}\n")}`;
  }
  return { text: out, usebundle };
}

/** The text that replaces `&RUDDER_DIRECTIVES_INPUTS&`. */
export function formatInputs(inputs: readonly string[]): string {
  return inputs.length === 0 ? "" : `"${inputs.join(`",\n"`)}",`;
}

/**
 * Renders a StringTemplate-style template with `&NAME&` attributes, with
 * StringTemplate's auto-indentation: the lines of a multi-line value are
 * indented as the attribute is.
 */
export function renderTemplate(template: string, attributes: Readonly<Record<string, string>>): string {
  // A line holding only an attribute whose value is empty disappears, newline and all.
  const dropped = template.replace(/^[ \t]*&([A-Z_]+)&[ \t]*\n/gm, (whole, name: string) =>
    attributes[name] === "" ? "" : whole,
  );
  return dropped.replace(
    /^([ \t]*)(.*?)&([A-Z_]+)&/gm,
    (whole, indent: string, before: string, name: string) => {
      const value = attributes[name];
      if (value === undefined) return whole;
      const lineIndent = before === "" ? indent : "";
      const indented = value.replace(/\n(?!\n|$)/g, `\n${lineIndent}`);
      return `${indent}${before}${indented}`;
    },
  );
}

export interface BundleSequenceFiles {
  /** rudder-directives.cf */
  readonly directives: string;
  /** rudder-system-directives.cf, when there are system policies */
  readonly systemDirectives?: string;
  /** rudder-directives.csv */
  readonly csv: string;
  /** the values of the bundle sequence's system variables, as rudder.json shows them */
  readonly variables: {
    readonly RUDDER_DIRECTIVES_INPUTS: string;
    readonly RUDDER_DIRECTIVES_SEQUENCE: string;
    readonly RUDDER_SYSTEM_DIRECTIVES_INPUTS: string;
    readonly RUDDER_SYSTEM_DIRECTIVES_SEQUENCE: string;
  };
}

export interface Templates {
  readonly directives: string;
  readonly systemDirectives: string;
}

/** The files of the bundle sequence for the node's (already merged) policies. */
export function buildBundleSequence(
  policies: readonly Policy[],
  global: GlobalPolicyMode,
  nodeMode: PolicyMode | undefined,
  templates: Templates,
): BundleSequenceFiles {
  const sorted = sortPolicies(policies);
  const bundles = sorted.map((p) => techniqueBundles(p, global, nodeMode)).filter((b) => b.main.length > 0);
  const user = bundles.filter((b) => !b.policy.technique.isSystem);
  const system = bundles.filter((b) => b.policy.technique.isSystem);
  const hooks = mergeRunHooks(
    sorted.filter((p) => !p.technique.isSystem),
    global,
    nodeMode,
  );
  const userInputs = formatInputs(inputFiles(sorted, false));
  const userSequence = formatSequenceParts(user, hooks, true);
  const directives = renderTemplate(templates.directives, {
    RUDDER_DIRECTIVES_INPUTS: userInputs,
    RUDDER_DIRECTIVES_SEQUENCE: userSequence.text,
  });
  const hasSystem = sorted.some((p) => p.technique.isSystem);
  const systemInputs = formatInputs(inputFiles(sorted, true));
  const systemSequence = formatSequenceParts(system, [], false);
  const systemDirectives = hasSystem
    ? renderTemplate(templates.systemDirectives, {
        RUDDER_SYSTEM_DIRECTIVES_INPUTS: systemInputs,
        RUDDER_SYSTEM_DIRECTIVES_SEQUENCE: systemSequence.text,
      })
    : undefined;
  return {
    directives,
    ...(systemDirectives === undefined ? {} : { systemDirectives }),
    csv: directivesCsv(sorted, global),
    variables: {
      RUDDER_DIRECTIVES_INPUTS: userInputs,
      RUDDER_DIRECTIVES_SEQUENCE: userSequence.usebundle,
      RUDDER_SYSTEM_DIRECTIVES_INPUTS: systemInputs,
      RUDDER_SYSTEM_DIRECTIVES_SEQUENCE: systemSequence.usebundle,
    },
  };
}

/** rudder-directives.csv (PolicyWriterService.writeDirectiveCsv). */
export function directivesCsv(sorted: readonly Policy[], global: GlobalPolicyMode): string {
  const lines = sorted.map((p) =>
    [
      p.id.directiveId,
      p.policyMode ?? global.mode,
      p.technique.generationMode,
      String(p.technique.runHooks.length > 0),
      p.technique.id.name,
      p.technique.id.version,
      String(p.technique.isSystem),
      p.directiveOrder,
    ]
      .map((f) => `"${f}"`)
      .join(","),
  );
  return `${lines.join("\n")}\n`;
}

/** tend's own templates, used when the configuration brings none. */
export const DEFAULT_TEMPLATES: Templates = {
  directives: [
    "# Written by tend from a Rudder configuration: the user directives of",
    "# this node as method calls, in Rudder's order, each named after its",
    "# rule and directive.",
    "",
    "body file control {",
    "",
    "  inputs => {",
    "    &RUDDER_DIRECTIVES_INPUTS&",
    "  };",
    "",
    "}",
    "",
    "",
    "bundle agent rudder_directives {",
    "  methods:",
    "&RUDDER_DIRECTIVES_SEQUENCE&",
    "",
    "}",
    "",
  ].join("\n"),
  systemDirectives: [
    "# Written by tend from a Rudder configuration: the system directives of",
    "# this node as method calls, in Rudder's order.",
    "",
    "body file control {",
    "",
    "  inputs => {",
    "    &RUDDER_SYSTEM_DIRECTIVES_INPUTS&",
    "  };",
    "",
    "}",
    "",
    "",
    "bundle agent rudder_system_directives {",
    "  methods:",
    "&RUDDER_SYSTEM_DIRECTIVES_SEQUENCE&",
    "",
    "}",
    "",
  ].join("\n"),
};
