/**
 * How CFEngine 3.21 evaluates each bundle type: which program runs it, the
 * normal order of its promise types, how many passes, and what happens to
 * sections outside that order. These facts are not in cf-promises' syntax
 * description; they were read from the 3.21 agents' behaviour.
 */

/** The 3.21 programs that evaluate bundles. */
export type Evaluator = "cf-agent" | "cf-serverd" | "cf-monitord";

/**
 * What happens to a section whose promise type is not in the order:
 * - `custom-after-each-pass`: built-in types outside the order do not occur;
 *   custom promise types run after the built-in ones in every pass, in the
 *   order written;
 * - `ignored`: never evaluated (`meta` or `defaults` in an edit_line bundle);
 * - `after-with-warning`: evaluated after the order, with a warning;
 * - `written-order`: there is no order, sections run as written.
 */
export type OtherSections = "custom-after-each-pass" | "ignored" | "after-with-warning" | "written-order";

export interface BundleEvaluation {
  readonly evaluator: Evaluator;
  readonly bundleType: string;
  /** Promise types in the order evaluated; `null` when sections run in the order written. */
  readonly order: readonly string[] | null;
  /** How many times the whole order is walked. */
  readonly passes: number;
  readonly others: OtherSections;
}

/**
 * cf-agent's normal order for agent and common bundles. After `classes` in
 * every pass, cf-agent evaluates the bundle's `vars` again and then its
 * `defaults`.
 */
export const AGENT_ORDER: readonly string[] = [
  "meta",
  "vars",
  "defaults",
  "classes",
  "users",
  "files",
  "packages",
  "guest_environments",
  "methods",
  "processes",
  "services",
  "commands",
  "storage",
  "databases",
  "reports",
];

/** The order within an edit_line bundle, for each file edited. */
export const EDIT_LINE_ORDER: readonly string[] = [
  "vars",
  "classes",
  "delete_lines",
  "field_edits",
  "insert_lines",
  "replace_patterns",
  "reports",
];

/** The order within an edit_xml bundle, for each file edited. */
export const EDIT_XML_ORDER: readonly string[] = [
  "vars",
  "classes",
  "build_xpath",
  "delete_tree",
  "insert_tree",
  "delete_attribute",
  "set_attribute",
  "delete_text",
  "set_text",
  "insert_text",
  "reports",
];

/** cf-serverd's order for server bundles. */
export const SERVER_ORDER: readonly string[] = ["meta", "vars", "classes", "roles", "access"];

/** cf-serverd's order for common bundles. */
export const SERVER_COMMON_ORDER: readonly string[] = ["meta", "vars", "classes", "reports"];

/**
 * Before any bundle runs, every program evaluates each common bundle's
 * sections in this order (so that `vars` can use classes set by `classes`).
 */
export const COMMON_PRE_EVALUATION: readonly string[] = ["vars", "classes", "vars"];

/** How 3.21 evaluates each bundle type, per program. */
export const BUNDLE_EVALUATIONS: readonly BundleEvaluation[] = [
  {
    evaluator: "cf-agent",
    bundleType: "agent",
    order: AGENT_ORDER,
    passes: 3,
    others: "custom-after-each-pass",
  },
  {
    evaluator: "cf-agent",
    bundleType: "common",
    order: AGENT_ORDER,
    passes: 3,
    others: "custom-after-each-pass",
  },
  { evaluator: "cf-agent", bundleType: "edit_line", order: EDIT_LINE_ORDER, passes: 3, others: "ignored" },
  { evaluator: "cf-agent", bundleType: "edit_xml", order: EDIT_XML_ORDER, passes: 3, others: "ignored" },
  {
    evaluator: "cf-serverd",
    bundleType: "server",
    order: SERVER_ORDER,
    passes: 1,
    others: "after-with-warning",
  },
  {
    evaluator: "cf-serverd",
    bundleType: "common",
    order: SERVER_COMMON_ORDER,
    passes: 1,
    others: "after-with-warning",
  },
  { evaluator: "cf-monitord", bundleType: "monitor", order: null, passes: 1, others: "written-order" },
  { evaluator: "cf-monitord", bundleType: "common", order: null, passes: 1, others: "written-order" },
];

/** The program that runs a bundle type by default; `undefined` for bundle types nothing runs. */
export const DEFAULT_EVALUATOR: Readonly<Record<string, Evaluator>> = {
  agent: "cf-agent",
  common: "cf-agent",
  edit_line: "cf-agent",
  edit_xml: "cf-agent",
  server: "cf-serverd",
  monitor: "cf-monitord",
};

/**
 * The program that reads each control body type (`common` is read by all of
 * them; the parser itself reads `file`, for `namespace` and `inputs`).
 */
export const CONTROL_BODY_READERS: Readonly<Record<string, string>> = {
  common: "every program",
  agent: "cf-agent",
  server: "cf-serverd",
  monitor: "cf-monitord",
  runagent: "cf-runagent",
  executor: "cf-execd",
  hub: "cf-hub",
  file: "the parser",
};
