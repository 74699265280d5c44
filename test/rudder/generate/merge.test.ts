// Rudder's own merge and order tests as tables: BundleOrderTest.scala,
// PolicyAgregationTest.scala (rudder-core, branch 8.3), and the seed's
// worked example of issue 18.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { GenerationMode, Technique } from "../../../src/rudder/config/technique.js";
import { compareBundleOrder, compareBundleOrderList } from "../../../src/rudder/generate/bundle-order.js";
import { buildPolicies } from "../../../src/rudder/generate/merge.js";
import { type PolicyDraft, mergedValues, trackingValues } from "../../../src/rudder/generate/policy.js";

const sign = (n: number) => Math.sign(n);

// BundleOrderTest: [a, b, expected sign of compare(a, b)]
const SIMPLE: [string, string, number][] = [
  ["", "", 0], // be equal with empty string
  ["plop", "", 1], // let empty string be the smallest
  ["plop", "foo", 1], // use alphaNum
  ["050 a", "010 b", 1], // be sortable with numbers
  ["50", "100", 1], // be careful, it's NOT BY NUMBER
];
const LISTS: [string[], string[], number][] = [
  [[], [], 0], // be equals with empty list
  [["10", "20"], ["10", "20"], 0], // ok for equals
  [["10", ""], ["10"], 0], // ok for equals, different size
  [["10", "100"], ["20"], -1], // handle less than
  [["101", "100"], ["020", "200", "300"], 1], // handle more than
];

for (const [a, b, expected] of SIMPLE) {
  test(`BundleOrderTest: compare(${JSON.stringify(a)}, ${JSON.stringify(b)}) has sign ${expected}`, () => {
    assert.equal(sign(compareBundleOrder(a, b)), expected);
  });
}
for (const [a, b, expected] of LISTS) {
  test(`BundleOrderTest: compareList(${JSON.stringify(a)}, ${JSON.stringify(b)}) has sign ${expected}`, () => {
    assert.equal(sign(compareBundleOrderList(a, b)), expected);
  });
}

test("BundleOrder is case-insensitive as Java's CASE_INSENSITIVE_ORDER", () => {
  assert.equal(compareBundleOrder("Rule A", "rule a"), 0);
  assert.ok(compareBundleOrder("a", "B") < 0);
  assert.ok(compareBundleOrder("_", "a") < 0); // '_' (95) before 'a' (97), after 'A' folded
});

function technique(
  name: string,
  version: string,
  multiInstance: boolean,
  generationMode: GenerationMode = "merged",
): Technique {
  return {
    id: { name, version },
    displayName: name,
    description: "",
    multiInstance,
    generationMode,
    useMethodReporting: false,
    policyTypes: ["rudder.base"],
    isSystem: false,
    bundles: [name],
    templates: [],
    files: [],
    runHooks: [],
    trackerBoundingVariable: "card",
    rootSection: { kind: "section", name: "SECTIONS", multivalued: false, component: false, children: [] },
    dir: "/nonexistent",
    metadataFile: "/nonexistent/metadata.xml",
  };
}

// PolicyAgregationTest's techniques
const tech1_1 = technique("tech_1", "1.0", true);
const tech2_1 = technique("tech_2", "1.0", true);
const tech2_3 = technique("tech_2", "3.0", true, "separated");
const tech3_1 = technique("tech_3", "1.0", false);
const tech3_2 = technique("tech_3", "2.0", false);

/** PolicyAgregationTest.newPolicy: rule r_<id>, directive d_<id>, ordered by their ids, priority 5. */
function draft(t: Technique, id: string, values: (string | null)[], priority = 5): PolicyDraft {
  const v = new Map([["card", values as string[]]]);
  return {
    id: { ruleId: `r_${id}`, directiveId: `d_${id}` },
    ruleName: "rule name",
    directiveName: "directive name",
    technique: t,
    priority,
    isSystem: false,
    values: v,
    originalValues: v,
    ruleOrder: `r_${id}`,
    directiveOrder: `d_${id}`,
  };
}

const NODE = { id: "root", hostname: "server.rudder.local" };
const GLOBAL = { mode: "enforce" as const, overridable: true };

type Summary = [string, (string | null)[], string[]];

function summarize(drafts: PolicyDraft[]): Summary[] {
  const r = buildPolicies(NODE, GLOBAL, drafts);
  assert.ok(r.ok, JSON.stringify(r.messages));
  return r.policies.map((p) => [
    `${p.technique.id.name}/${p.technique.id.version}`,
    mergedValues(p).get("card") ?? [],
    trackingValues(p),
  ]);
}

const sameElements = (actual: Summary[], expected: Summary[]) => {
  const key = (s: Summary) => JSON.stringify(s);
  assert.deepEqual(actual.map(key).sort(), expected.map(key).sort());
};

const AGGREGATION: { name: string; drafts: () => PolicyDraft[]; expected: Summary[] }[] = [
  {
    name: "correctly merge technique by name",
    drafts: () => [
      draft(tech1_1, "id1", ["value1"]),
      draft(tech1_1, "id2", ["value2"]),
      draft(tech2_1, "id3", ["value3"]),
    ],
    expected: [
      ["tech_1/1.0", ["value1", "value2"], ["r_id1@@d_id1@@0", "r_id2@@d_id2@@0"]],
      ["tech_2/1.0", ["value3"], ["r_id3@@d_id3@@0"]],
    ],
  },
  {
    name: "correctly merge directive with bound tracking key",
    drafts: () => [draft(tech1_1, "id1", ["value1"]), draft(tech1_1, "id2", ["value2", "value3"])],
    expected: [
      [
        "tech_1/1.0",
        ["value1", "value2", "value3"],
        ["r_id1@@d_id1@@0", "r_id2@@d_id2@@0", "r_id2@@d_id2@@0"],
      ],
    ],
  },
  {
    name: "correctly handle null and empty values",
    drafts: () => [draft(tech1_1, "id1", [null]), draft(tech1_1, "id2", [null, "value2"])],
    expected: [
      ["tech_1/1.0", [null, null, "value2"], ["r_id1@@d_id1@@0", "r_id2@@d_id2@@0", "r_id2@@d_id2@@0"]],
    ],
  },
  {
    name: "correctly choose the most prioritary technique",
    drafts: () => [draft(tech3_1, "id1", ["value1"]), draft(tech3_1, "id2", ["value2"], 0)],
    expected: [["tech_3/1.0", ["value2"], ["r_id2@@d_id2@@0"]]],
  },
  {
    name: "choose the one with the first name with different technique version on non multi-policy",
    drafts: () => [draft(tech3_1, "xx", ["value1"]), draft(tech3_2, "aa", ["value2"])],
    expected: [["tech_3/2.0", ["value2"], ["r_aa@@d_aa@@0"]]],
  },
  {
    name: "create one policy for each multi-policy technique and choose one other for other merged",
    drafts: () => [
      draft(tech2_1, "xx", ["value1"]),
      draft(tech2_1, "aa", ["value2"]),
      draft(tech2_3, "00", ["value3", "value4"]),
      draft(tech2_3, "11", ["value5"]),
    ],
    expected: [
      ["tech_2/1.0", ["value2", "value1"], ["r_aa@@d_aa@@0", "r_xx@@d_xx@@0"]],
      ["tech_2/3.0", ["value3", "value4"], ["r_00@@d_00@@0", "r_00@@d_00@@0"]],
      ["tech_2/3.0", ["value5"], ["r_11@@d_11@@0"]],
    ],
  },
];

for (const c of AGGREGATION) {
  test(`PolicyAgregationTest: ${c.name}`, () => sameElements(summarize(c.drafts()), c.expected));
}

test("merging directives of two versions of a merged technique is an error, as in Rudder", () => {
  const r = buildPolicies(NODE, GLOBAL, [
    draft(tech2_1, "a", ["1"]),
    draft(technique("tech_2", "2.0", true), "b", ["2"]),
  ]);
  assert.equal(r.ok, false);
  assert.match(r.messages[0]?.message ?? "", /different versions of technique 'tech_2'/);
});

test("merging enforce and audit directives of a merged technique is an error", () => {
  const a = { ...draft(tech1_1, "a", ["1"]), policyMode: "enforce" as const };
  const b = { ...draft(tech1_1, "b", ["2"]), policyMode: "audit" as const };
  assert.equal(buildPolicies(NODE, GLOBAL, [a, b]).ok, false);
});

test("a unique technique: ties broken by rule then directive name, with the NON STABLE POLICY warning", () => {
  const a = { ...draft(tech3_1, "1", ["v1"]), ruleOrder: "Rule B", directiveOrder: "d" };
  const b = { ...draft(tech3_1, "2", ["v2"]), ruleOrder: "rule a", directiveOrder: "z" };
  const r = buildPolicies(NODE, GLOBAL, [a, b]);
  assert.ok(r.ok);
  assert.equal(r.policies.length, 1);
  assert.deepEqual(r.policies[0]?.id, { ruleId: "r_2", directiveId: "d_2" });
  assert.deepEqual(r.policies[0]?.overrides, [{ ruleId: "r_1", directiveId: "d_1" }]);
  assert.match(
    r.messages[0]?.message ?? "",
    /^Unicity check: NON STABLE POLICY ON NODE 'server.rudder.local'/,
  );
});

test("a unique technique: the same directive through two rules does not warn", () => {
  const a = { ...draft(tech3_1, "1", ["v1"]), ruleOrder: "Rule B" };
  const b = {
    ...draft(tech3_1, "1", ["v1"]),
    id: { ruleId: "r_other", directiveId: "d_1" },
    ruleOrder: "rule a",
  };
  const r = buildPolicies(NODE, GLOBAL, [a, b]);
  assert.ok(r.ok);
  assert.deepEqual(r.messages, []);
  assert.equal(r.policies[0]?.id.ruleId, "r_other");
});

// The seed's worked example: three multi-instance merged techniques A, B, C;
// directives A1, A2, B1, B2, C1, C2 with one priority; rules R0 = [C1],
// R1 = [A1, B2], R2 = [A2, B1, C2] on one node.
test("issue 18's worked example: policy order and merged value orders", () => {
  const A = technique("A", "1.0", true);
  const B = technique("B", "1.0", true);
  const C = technique("C", "1.0", true);
  const mk = (t: Technique, rule: string, directive: string): PolicyDraft => ({
    ...draft(t, directive, [directive]),
    id: { ruleId: rule, directiveId: directive },
    ruleName: rule,
    directiveName: directive,
    ruleOrder: rule,
    directiveOrder: directive,
  });
  const drafts = [
    mk(C, "R0", "C1"),
    mk(A, "R1", "A1"),
    mk(B, "R1", "B2"),
    mk(A, "R2", "A2"),
    mk(B, "R2", "B1"),
    mk(C, "R2", "C2"),
  ];
  const r = buildPolicies(NODE, GLOBAL, drafts);
  assert.ok(r.ok);
  assert.deepEqual(
    r.policies.map((p) => [p.id.ruleId, p.id.directiveId]),
    [
      ["R0", "C1"],
      ["R1", "A1"],
      ["R1", "B2"],
    ],
  );
  assert.deepEqual(
    r.policies.map((p) => mergedValues(p).get("card")),
    // MergePolicyService.merge sorts the values by priority, then (rule name,
    // directive name): B2 (R1) comes before B1 (R2). The seed document's last
    // line says [B1, B2]; Rudder's code gives [B2, B1], and so does tend.
    [
      ["C1", "C2"],
      ["A1", "A2"],
      ["B2", "B1"],
    ],
  );
});
