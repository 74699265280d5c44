/**
 * Reads a technique's `metadata.xml` as cfclerk's TechniqueParser and
 * SectionSpecParser read it, for the cfengine-community agent: the
 * TECHNIQUE name, MULTIINSTANCE, POLICYGENERATION, USEMETHODREPORTING,
 * SYSTEM / POLICY_TYPES, BUNDLES, TMLS, FILES, RUNHOOKS (at the root or
 * in an `<AGENT type="cfengine-community">`), TRACKINGVARIABLE and the
 * SECTIONS tree with INPUT / SELECT1 / SELECT / REPORTKEYS. Problems are
 * diagnostics with the file, line and column of the element.
 */
import { createRequire } from "node:module";
import type * as XmlDom from "@xmldom/xmldom";
import type { DiagnosticBag } from "./diagnostics.js";
import {
  type GenerationMode,
  type RunHookSpec,
  type SectionSpec,
  type Technique,
  type TechniqueId,
  type TechniqueResource,
  type VariableSpec,
  reportKeysVariableName,
} from "./technique.js";

const REPOSITORY_PREFIX = "RUDDER_CONFIGURATION_REPOSITORY";
const GENERATION_MODES: readonly GenerationMode[] = ["merged", "separated", "separated-with-parameters"];
const CFENGINE_AGENTS = new Set(["cfengine-community", "cfengine", "community", "cfengine-nova"]);

let xmldom: typeof XmlDom | undefined;
function dom(): typeof XmlDom {
  if (!xmldom) xmldom = createRequire(import.meta.url)("@xmldom/xmldom") as typeof XmlDom;
  return xmldom;
}

interface Ctx {
  readonly file: string;
  readonly bag: DiagnosticBag;
  readonly id: TechniqueId;
}

const lineOf = (n: XmlDom.Node): number => (n as unknown as { lineNumber?: number }).lineNumber ?? 1;
const colOf = (n: XmlDom.Node): number => (n as unknown as { columnNumber?: number }).columnNumber ?? 1;

function fail(ctx: Ctx, node: XmlDom.Node, message: string): void {
  ctx.bag.error(ctx.file, lineOf(node), colOf(node), message);
}

function warn(ctx: Ctx, node: XmlDom.Node, message: string): void {
  ctx.bag.warning(ctx.file, lineOf(node), colOf(node), message);
}

/** Element children of `node`, optionally only those named `name`. */
function children(node: XmlDom.Node, name?: string): XmlDom.Element[] {
  const out: XmlDom.Element[] = [];
  for (let c = node.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === 1 && (name === undefined || c.nodeName === name)) out.push(c as XmlDom.Element);
  }
  return out;
}

/** Descendant elements named `name` (Scala's `\\`). */
function descendants(node: XmlDom.Element, name: string): XmlDom.Element[] {
  return Array.from(node.getElementsByTagName(name));
}

function text(node: XmlDom.Node | undefined): string {
  return node?.textContent ?? "";
}

function childText(node: XmlDom.Element, name: string): string | undefined {
  const c = children(node, name);
  return c.length === 0 ? undefined : text(c[0]);
}

/**
 * Parses `source` (the text of `file`) as the metadata.xml of technique
 * `id` in folder `dir`. Returns undefined when it cannot be read at all;
 * the reasons are in `bag`.
 */
export function parseMetadataXml(
  source: string,
  file: string,
  id: TechniqueId,
  dir: string,
  bag: DiagnosticBag,
): Technique | undefined {
  const ctx: Ctx = { file, bag, id };
  const root = parseXml(source, ctx);
  if (!root) return undefined;
  if (root.nodeName.toUpperCase() !== "TECHNIQUE") {
    fail(ctx, root, `expected a <TECHNIQUE> root element, found <${root.nodeName}>`);
    return undefined;
  }
  const displayName = root.getAttribute("name") ?? "";
  if (displayName === "") fail(ctx, root, "<TECHNIQUE> needs a 'name' attribute");
  if (!/^[a-zA-Z0-9\-_]+$/.test(id.name)) fail(ctx, root, `'${id.name}' is not a valid technique id`);
  const rootSection = parseSections(root, ctx);
  const agent = agentConfig(root, ctx);
  const isSystem = (childText(root, "SYSTEM") ?? "").trim().toLowerCase() === "true";
  const technique: Technique = {
    id,
    displayName,
    description: childText(root, "DESCRIPTION")?.trim() || displayName,
    multiInstance: (childText(root, "MULTIINSTANCE") ?? "").trim().toLowerCase() === "true",
    generationMode: generationMode(root, ctx),
    useMethodReporting: (childText(root, "USEMETHODREPORTING") ?? "").trim().toLowerCase() === "true",
    policyTypes: policyTypes(root, isSystem),
    isSystem,
    ...agent,
    trackerBoundingVariable: trackingVariable(root, ctx),
    rootSection,
    dir,
    metadataFile: file,
  };
  checkTracking(technique, root, ctx);
  return technique;
}

function parseXml(source: string, ctx: Ctx): XmlDom.Element | undefined {
  let message: string | undefined;
  const parser = new (dom().DOMParser)({
    onError: (level: string, msg: string) => {
      if (level !== "warning" && message === undefined) message = msg.split("\n")[0];
    },
  });
  try {
    const doc = parser.parseFromString(source, "text/xml");
    if (message === undefined && doc.documentElement) return doc.documentElement;
    ctx.bag.error(ctx.file, 1, 1, `not well-formed XML: ${message ?? "no root element"}`);
  } catch (error) {
    const loc = (error as { locator?: { lineNumber?: number; columnNumber?: number } }).locator;
    const msg = (error as Error).message.split("\n")[0];
    ctx.bag.error(ctx.file, loc?.lineNumber ?? 1, loc?.columnNumber ?? 1, `not well-formed XML: ${msg}`);
  }
  return undefined;
}

function generationMode(root: XmlDom.Element, ctx: Ctx): GenerationMode {
  const node = children(root, "POLICYGENERATION")[0];
  const value = text(node).trim();
  if (!node || value === "") return "merged";
  const mode = GENERATION_MODES.find((m) => m === value.toLowerCase());
  if (mode) return mode;
  // Rudder falls back to "merged" silently; say it.
  warn(
    ctx,
    node,
    `unknown POLICYGENERATION '${value}', expected one of ${GENERATION_MODES.join(", ")}; using merged`,
  );
  return "merged";
}

function policyTypes(root: XmlDom.Element, isSystem: boolean): string[] {
  const nodes = children(root, "POLICY_TYPES");
  if (nodes.length === 0) return [isSystem ? "rudder.system" : "rudder.base"];
  const types = nodes
    .flatMap((n) => text(n).split(","))
    .map((s) => s.trim())
    .filter((s) => s !== "");
  return types.length === 0 ? ["rudder.base"] : [...new Set(types)].sort();
}

function trackingVariable(root: XmlDom.Element, ctx: Ctx): string | undefined {
  const nodes = children(root, "TRACKINGVARIABLE");
  if (nodes.length > 1) fail(ctx, nodes[1] as XmlDom.Element, "only one <TRACKINGVARIABLE> is allowed");
  const first = nodes[0];
  if (!first) return undefined;
  const size = childText(first, "SAMESIZEAS")?.trim();
  return size === "" ? undefined : size;
}

function checkTracking(t: Technique, root: XmlDom.Element, ctx: Ctx): void {
  const bound = t.trackerBoundingVariable;
  if (bound === undefined) return;
  const names = new Set(collectVariables(t.rootSection).map((v) => v.name));
  const node = children(root, "TRACKINGVARIABLE")[0] ?? root;
  // System variables are not modelled: a bound system variable is only warned about.
  if (!names.has(bound))
    warn(ctx, node, `the tracking variable is bound to '${bound}', which no section defines`);
}

function collectVariables(s: SectionSpec): VariableSpec[] {
  return s.children.flatMap((c) => (c.kind === "variable" ? [c] : collectVariables(c)));
}

interface AgentPart {
  bundles: string[];
  templates: TechniqueResource[];
  files: TechniqueResource[];
  runHooks: RunHookSpec[];
}

function agentConfig(root: XmlDom.Element, ctx: Ctx): AgentPart {
  // Elements at the root are the cfengine-community agent's, as in cfclerk.
  const parts: AgentPart[] = [agentPart(root, ctx)];
  for (const agent of children(root, "AGENT")) {
    const types = (agent.getAttribute("type") ?? "").split(",").map((s) => s.trim());
    if (types.some((t) => CFENGINE_AGENTS.has(t))) parts.push(agentPart(agent, ctx));
  }
  const nonEmpty = parts.filter(
    (p) => p.bundles.length + p.templates.length + p.files.length + p.runHooks.length > 0,
  );
  if (nonEmpty.length > 1) {
    fail(ctx, root, "the cfengine-community agent is configured twice (at the root and in an <AGENT>)");
  }
  return nonEmpty[0] ?? { bundles: [], templates: [], files: [], runHooks: [] };
}

function agentPart(node: XmlDom.Element, ctx: Ctx): AgentPart {
  const bundles = children(node, "BUNDLES").flatMap((b) => descendants(b, "NAME").map((n) => text(n)));
  const templates = children(node, "TMLS").flatMap((t) =>
    descendants(t, "TML").map((x) => resource(x, true, ctx)),
  );
  const files = children(node, "FILES").flatMap((f) =>
    descendants(f, "FILE").map((x) => resource(x, false, ctx)),
  );
  const runHooks = children(node, "RUNHOOKS").flatMap((h) => parseRunHooks(h, ctx));
  return {
    bundles,
    templates: templates.filter((r): r is TechniqueResource => r !== undefined),
    files: files.filter((r): r is TechniqueResource => r !== undefined),
    runHooks,
  };
}

function resource(node: XmlDom.Element, template: boolean, ctx: Ctx): TechniqueResource | undefined {
  const name = (node.getAttribute("name") ?? "").trim();
  if (name === "") {
    fail(ctx, node, `<${node.nodeName}> needs a 'name' attribute`);
    return undefined;
  }
  if (name.startsWith("/") || name.endsWith("/")) {
    fail(ctx, node, `resource name '${name}' must not start nor end with '/'`);
    return undefined;
  }
  const fromRepository = name.startsWith(`${REPOSITORY_PREFIX}/`);
  const base = fromRepository ? (name.split("/").pop() ?? name) : name;
  const outPath = childText(node, "OUTPATH") ?? "";
  const includedText = childText(node, "INCLUDED");
  // TML: included unless "false"; FILE: included only when "true".
  const included = template ? includedText !== "false" : includedText === "true";
  const defaultOut = `${ctx.id.name}/${ctx.id.version}/${base}${template ? ".cf" : ""}`;
  return { name, outPath: outPath === "" ? defaultOut : outPath, included, template, fromRepository };
}

function parseRunHooks(node: XmlDom.Element, ctx: Ctx): RunHookSpec[] {
  const hooks: RunHookSpec[] = [];
  for (const c of children(node)) {
    if (c.nodeName !== "PRE" && c.nodeName !== "POST") continue;
    const bundle = c.getAttribute("bundle") ?? "";
    const report = descendants(c, "REPORT").find((r) => (r.getAttribute("name") ?? "") !== "");
    if (bundle === "" || !report) {
      fail(ctx, c, `a run hook needs a 'bundle' attribute and a <REPORT name="...">`);
      continue;
    }
    const value = report.getAttribute("value") ?? "";
    const parameters = descendants(c, "PARAMETER").flatMap((p) => {
      const name = p.getAttribute("name") ?? "";
      const v = p.getAttribute("value") || text(p);
      return name === "" || v === "" ? [] : [{ name, value: v }];
    });
    hooks.push({
      bundle,
      kind: c.nodeName === "PRE" ? "pre" : "post",
      report: { name: report.getAttribute("name") ?? "", ...(value === "" ? {} : { value }) },
      parameters,
    });
  }
  return hooks;
}

function parseSections(root: XmlDom.Element, ctx: Ctx): SectionSpec {
  const sections = children(root, "SECTIONS");
  const empty: SectionSpec = {
    kind: "section",
    name: "SECTIONS",
    multivalued: false,
    component: false,
    children: [],
  };
  if (sections.length > 1) fail(ctx, sections[1] as XmlDom.Element, "only one <SECTIONS> is allowed");
  const first = sections[0];
  if (!first) return empty;
  const kids = sectionChildren(first, "SECTIONS", false, ctx);
  for (const k of kids) {
    if (k.kind === "variable")
      warn(ctx, first, `variable '${k.name}' is not allowed directly under <SECTIONS>`);
  }
  const rootSection: SectionSpec = { ...empty, children: kids };
  checkSectionNames(rootSection, first, ctx);
  return rootSection;
}

function checkSectionNames(root: SectionSpec, node: XmlDom.Element, ctx: Ctx): void {
  const vars = collectVariables(root);
  const seen = new Set<string>();
  for (const v of vars) {
    if (seen.has(v.name)) ctx.bag.error(ctx.file, v.line, 1, `variable '${v.name}' is defined twice`);
    seen.add(v.name);
  }
  const walk = (s: SectionSpec) => {
    if (s.componentKey !== undefined && !seen.has(s.componentKey)) {
      fail(ctx, node, `section '${s.name}' has component key '${s.componentKey}', which no variable defines`);
    }
    for (const c of s.children) if (c.kind === "section") walk(c);
  };
  walk(root);
}

function sectionChildren(
  node: XmlDom.Element,
  sectionName: string,
  multivalued: boolean,
  ctx: Ctx,
): (SectionSpec | VariableSpec)[] {
  const out: (SectionSpec | VariableSpec)[] = [];
  for (const c of children(node)) {
    const name = c.nodeName;
    if (name === "SECTION") {
      const s = parseSection(c, multivalued, ctx);
      if (s) out.push(s);
    } else if (name === "INPUT" || name === "SELECT1" || name === "SELECT" || name === "REPORTKEYS") {
      const v = parseVariable(c, sectionName, multivalued, ctx);
      if (v) out.push(v);
    } else if (name !== "DESCRIPTION") {
      fail(
        ctx,
        c,
        `unexpected <${name}> in a section, expected <SECTION>, <INPUT>, <SELECT1>, <SELECT> or <REPORTKEYS>`,
      );
    }
  }
  return out;
}

function parseSection(node: XmlDom.Element, parentMulti: boolean, ctx: Ctx): SectionSpec | undefined {
  const name = node.getAttribute("name") ?? "";
  if (name === "") {
    fail(ctx, node, "<SECTION> needs a 'name' attribute");
    return undefined;
  }
  const declaredMulti = (node.getAttribute("multivalued") ?? "false").toLowerCase() === "true";
  const hasReportKeys = children(node, "REPORTKEYS").length > 0;
  const multivalued = declaredMulti || hasReportKeys;
  const kids = sectionChildren(node, name, parentMulti || multivalued, ctx);
  const declaredKey = node.getAttribute("componentKey") || undefined;
  const reportKey = hasReportKeys ? reportKeysVariableName(name) : undefined;
  if (declaredKey !== undefined && reportKey !== undefined && declaredKey !== reportKey) {
    fail(ctx, node, `section '${name}' has both a componentKey and <REPORTKEYS>`);
  }
  const component = (node.getAttribute("component") ?? "false").toLowerCase() === "true" || hasReportKeys;
  const componentKey = declaredKey ?? reportKey;
  const reportingLogic = node.getAttribute("reporting") || undefined;
  if (multivalued && component && componentKey === undefined && reportingLogic === undefined) {
    fail(ctx, node, `section '${name}' is multivalued and a component: it needs a componentKey attribute`);
  }
  const id = node.getAttribute("id") || undefined;
  return {
    kind: "section",
    name,
    multivalued,
    component,
    ...(componentKey === undefined ? {} : { componentKey }),
    ...(reportingLogic === undefined ? {} : { reportingLogic }),
    ...(id === undefined ? {} : { id }),
    children: kids,
  };
}

function parseVariable(
  node: XmlDom.Element,
  sectionName: string,
  multivalued: boolean,
  ctx: Ctx,
): VariableSpec | undefined {
  const marker = node.nodeName as VariableSpec["marker"];
  if (marker === "REPORTKEYS") {
    const values = children(node, "VALUE")
      .map((v) => text(v).trim())
      .filter((v) => v !== "");
    const id = node.getAttribute("id") || children(node, "VALUE")[0]?.getAttribute("id") || undefined;
    return {
      kind: "variable",
      marker,
      name: reportKeysVariableName(sectionName),
      description: `Expected Report key names for component ${sectionName}`,
      multivalued: true,
      mayBeEmpty: false,
      type: "string",
      items: [],
      providedValues: values,
      ...(id === undefined ? {} : { id }),
      checked: true,
      line: lineOf(node),
    };
  }
  const name = (childText(node, "NAME") ?? "").trim();
  const description = (childText(node, "DESCRIPTION") ?? "").trim();
  if (name === "") {
    fail(ctx, node, `<${marker}> needs a <NAME>`);
    return undefined;
  }
  if (name === "None" || name === "TRACKINGKEY")
    fail(ctx, node, `'${name}' is reserved and cannot name a variable`);
  // cfclerk requires a DESCRIPTION; rudderc writes one for every parameter.
  if (description === "") warn(ctx, node, `<${marker}> '${name}' has no <DESCRIPTION>`);
  const constraint = children(node, "CONSTRAINT")[0];
  const defaultNode = constraint ? children(constraint, "DEFAULT")[0] : undefined;
  const variableName = childText(node, "VARIABLENAME")?.trim();
  const items = children(node, "ITEM").map((i) => ({
    value: childText(i, "VALUE") ?? i.getAttribute("value") ?? "",
    label: childText(i, "LABEL") ?? i.getAttribute("label") ?? "",
  }));
  const id = node.getAttribute("id") || undefined;
  return {
    kind: "variable",
    marker,
    name,
    description,
    ...(variableName ? { variableName } : {}),
    multivalued: multivalued || (childText(node, "MULTIVALUED") ?? "").trim().toLowerCase() === "true",
    mayBeEmpty: constraint
      ? (childText(constraint, "MAYBEEMPTY") ?? "").trim().toLowerCase() === "true"
      : false,
    ...(defaultNode ? { defaultValue: text(defaultNode) } : {}),
    type: (constraint ? childText(constraint, "TYPE")?.trim() : undefined) || "string",
    items,
    providedValues: [],
    ...(id === undefined ? {} : { id }),
    checked: (childText(node, "CHECKED") ?? "true").trim().toLowerCase() === "true",
    line: lineOf(node),
  };
}
