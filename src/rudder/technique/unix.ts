/**
 * technique.cf as rudderc 8.3's Unix backend writes it: the technique bundle
 * (its parameters, `resources_dir` when the technique has resources, the
 * pass1-3 classes, `args`/`report_param`/`class_prefix`) calling, in order,
 * one `call_<technique>_<item id>` bundle per method call, with
 * push/pop_dry_run_mode around blocks that override the policy mode. Each
 * call bundle sets the reporting context, then calls the ncf method under
 * its condition, or defines the no-op classes and logs why it skipped.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: CFEngine references, not templates
import {
  CfBundle,
  type CfPromise,
  cfEscape,
  classExpression,
  expanded,
  ifCondition,
  quoted,
  renderTechniqueFile,
  slistVar,
  stringRaw,
  stringVar,
  unlessCondition,
  usebundle,
} from "./cf-layout.js";
import { andCondition, canonify, conditionText } from "./condition.js";
import type { Condition, Item, MethodCall, PolicyMode, Technique } from "./model.js";

/** Writes technique.cf; `hasResources` adds the `resources_dir` variable. */
export function generateTechniqueCf(technique: Technique, hasResources: boolean): string {
  const main = new CfBundle(
    technique.id,
    technique.params.map((p) => p.name),
  );
  if (hasResources) main.add([stringVar("resources_dir", "${this.promise_dirname}/resources")]);
  main.add([
    classExpression("pass3", "pass2"),
    classExpression("pass2", "pass1"),
    classExpression("pass1", "any"),
  ]);
  main.add([
    slistVar(
      "args",
      technique.params.map((p) => `\${${p.name}}`),
    ),
    stringRaw("report_param", 'join("_", args)'),
    stringRaw("full_class_prefix", `canonify("${technique.id}_\${report_param}")`),
    stringRaw("class_prefix", 'string_head("${full_class_prefix}", "1000")'),
  ]);
  const calls: CfBundle[] = [];
  for (const item of technique.items) {
    for (const [promise, bundle] of resolveItem(item, true, technique.id)) {
      main.add([promise]);
      if (bundle) calls.push(bundle);
    }
  }
  return renderTechniqueFile(technique.name, technique.version, [main, ...calls]);
}

type Call = readonly [CfPromise, CfBundle | undefined];

function resolveItem(item: Item, context: Condition, techniqueId: string): Call[] {
  if (item.kind === "method") {
    // A loop's main copy keeps its context as an expression, so that the
    // compile-time shortcuts below do not apply to it (rudderc does this).
    const computed = item.foreachState === "main" ? conditionText(context) : context;
    return [methodCall(techniqueId, item, computed)];
  }
  const calls: Call[] = [];
  const push = pushPolicyMode(item.policyModeOverride);
  if (push) calls.push([ifCondition(push, "pass3"), undefined]);
  for (const inner of item.items)
    calls.push(...resolveItem(inner, andCondition(context, item.condition), techniqueId));
  if (item.policyModeOverride)
    calls.push([ifCondition(usebundle("pop_dry_run_mode", []), "pass3"), undefined]);
  return calls;
}

function pushPolicyMode(mode: PolicyMode | undefined): CfPromise | undefined {
  if (!mode) return undefined;
  return usebundle("push_dry_run_mode", [quoted(mode === "audit" ? "true" : "false")]);
}

function methodCall(techniqueId: string, m: MethodCall, context: Condition): Call {
  const info = m.info;
  if (!info) throw new Error(`method call ${m.id} was not checked against the method library`);
  const condition = andCondition(context, m.condition);
  const component = cfEscape(m.name);
  const names = info.parameters.map((p) => p.name);
  const values = names.map((n) => quoted(cfEscape(m.params.get(n) ?? "")));
  const reportParameter = cfEscape(m.params.get(info.classParameter) ?? "");
  const supported = info.agentSupport.includes("cfengine-community");
  const promises = callPromises(m, info.bundleName, info.name, names, condition, supported);
  const content =
    m.reporting === "disabled"
      ? [usebundle("disable_reporting", []), ...promises, usebundle("enable_reporting", [])]
      : promises;
  const bundleName = `call_${techniqueId}_${canonify(m.id)}`;
  const callParameters = [
    quoted(component),
    quoted(reportParameter),
    quoted(m.id),
    "@{args}",
    quoted("${class_prefix}"),
  ];
  const bundleParameters = ["c_name", "c_key", "report_id", "args", "class_prefix"];
  if (typeof condition === "string") {
    callParameters.push(canonifyCondition(condition));
    bundleParameters.push("method_call_condition");
  }
  const call = ifCondition(usebundle(bundleName, [...callParameters, ...values]), "pass3");
  return [call, new CfBundle(bundleName, [...bundleParameters, ...names]).add(content)];
}

function callPromises(
  m: MethodCall,
  bundle: string,
  methodName: string,
  names: readonly string[],
  condition: Condition,
  supported: boolean,
): CfPromise[] {
  const context = usebundle("_method_reporting_context_v4", [
    expanded("c_name"),
    expanded("c_key"),
    expanded("report_id"),
  ]);
  const noop = usebundle("_classes_noop", [quoted("${report_data.method_id}")]);
  const method = usebundle(bundle, names.map(expanded));
  const push = pushPolicyMode(m.policyModeOverride);
  const pop = m.policyModeOverride ? usebundle("pop_dry_run_mode", []) : undefined;
  const log = (message: string): CfPromise =>
    usebundle("log_rudder_v4", [quoted("${c_key}"), quoted(message), quoted("")]);
  const skipped = (why: string): string =>
    `Skipping method '${methodName}' with key parameter '\${c_key}' since condition '${why}' is not reached`;
  const present = <T>(list: (T | undefined)[]): T[] => list.filter((p) => p !== undefined);
  if (!supported)
    return [context, noop, log(`'${m.name}' method is not available on classic Rudder agent, skip`)];
  if (condition === false) return [context, noop, log(skipped("false"))];
  if (condition === true) return present([context, push, method, pop]);
  const incall = "${method_call_condition}";
  return present([
    context,
    push,
    ifCondition(method, incall),
    pop,
    unlessCondition(noop, incall),
    unlessCondition(log(skipped(incall)), incall),
  ]);
}

/**
 * A condition as an argument: literal text quoted; variables canonified at
 * run time (`concat("a_",canonify("${v}"),"")`), as the classes they name
 * are canonified. Like rudderc, it does not handle nested variables.
 */
export function canonifyCondition(c: string): string {
  if (!c.includes("${")) return `"${c}"`;
  if (/^\$\{[^}]*\}$/.test(c)) return `canonify("${c}")`;
  return `concat("${c.replace(/(\$\{[^}]*\})/g, '",canonify("$1"),"')}")`;
}
