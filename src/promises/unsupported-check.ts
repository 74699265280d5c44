/**
 * `tend check`'s side of {@link ./unsupported.ts}: a warning at each place
 * of a policy that uses what tend does not implement (a promise type of
 * 3.21's agent syntax that is not registered, an attribute or value listed
 * as unsupported), saying that `tend agent` will not keep the promise.
 */
import type { Attribute, Body, Bundle } from "../language/ast.js";
import { type Diagnostic, makeDiagnostic } from "../language/diagnostics.js";
import type { PolicySet } from "../language/policy-set.js";
import { BUNDLE_TYPES, PROMISE_TYPES } from "../language/syntax/index.js";
import { describe, UNSUPPORTED_ATTRIBUTES, type UnsupportedAttribute } from "./unsupported.js";

/** Bundle types whose promises tend agent runs. */
const AGENT_BUNDLES = ["agent", "edit_line", "edit_xml"] as const;

/** Warnings for what `set` uses that tend does not implement; `registered` tells the types tend has. */
export function unsupportedDiagnostics(set: PolicySet, registered: (type: string) => boolean): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const { policy } of set.files) {
    for (const block of policy.blocks) {
      if (block.kind === "bundle") checkBundle(block, policy.path, registered, out);
      else if (block.kind === "body") checkBody(block, policy.path, out);
    }
  }
  return out;
}

function checkBundle(
  bundle: Bundle,
  file: string,
  registered: (type: string) => boolean,
  out: Diagnostic[],
): void {
  const bundleType = bundle.type.text;
  if (!(AGENT_BUNDLES as readonly string[]).includes(bundleType)) return;
  for (const section of bundle.sections) {
    const type = section.type.text;
    const known = PROMISE_TYPES[type];
    if (!BUNDLE_TYPES[bundleType]?.promiseTypes.includes(type) || known?.status !== "normal") continue;
    if (!registered(type)) {
      out.push(
        makeDiagnostic(
          file,
          section.type.span,
          "warning",
          "not-implemented",
          `promise type '${type}' is not implemented by tend: tend agent will not keep its promises`,
        ),
      );
      continue;
    }
    for (const group of section.groups)
      for (const promise of group.promises) checkAttributes(promise.attributes, "promise", type, file, out);
  }
}

function checkBody(body: Body, file: string, out: Diagnostic[]): void {
  const of = body.name.text === "control" ? "control" : "body";
  for (const group of body.groups) checkAttributes(group.attributes, of, body.type.text, file, out);
}

/**
 * The control settings of `set` tend ignores, as the agent logs them when
 * it starts (there is no promise to fail): one line each.
 */
export function unsupportedControlMessages(set: PolicySet): string[] {
  const out: Diagnostic[] = [];
  for (const { policy } of set.files)
    for (const block of policy.blocks)
      if (block.kind === "body" && block.name.text === "control") checkBody(block, policy.path, out);
  return out.map((d) => d.message);
}

function checkAttributes(
  attributes: readonly Attribute[],
  of: UnsupportedAttribute["of"],
  owner: string,
  file: string,
  out: Diagnostic[],
): void {
  for (const attribute of attributes) {
    const row = UNSUPPORTED_ATTRIBUTES.find(
      (r) => r.of === of && r.owner === owner && r.attribute === attribute.name.text && matches(r, attribute),
    );
    if (!row) continue;
    const what =
      of === "body"
        ? "tend agent will not keep promises using this body"
        : of === "control"
          ? "tend agent ignores it"
          : "tend agent will not keep this promise";
    out.push(makeDiagnostic(file, attribute.span, "warning", "not-implemented", `${describe(row)}; ${what}`));
  }
}

/** A row with a value matches a literal of that value; a value from a variable is known only at run time. */
function matches(row: UnsupportedAttribute, attribute: Attribute): boolean {
  if (row.value === undefined) return true;
  return attribute.value.kind === "string" && attribute.value.value === row.value;
}
