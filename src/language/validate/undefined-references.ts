/**
 * Checks that names used as bodies and bundles refer to something defined.
 * cf-promises rejects undefined bodies in promises only when it runs its
 * whole-policy checks (with `body common control`, or `-c`); everything
 * else it leaves to cf-agent, so those are warnings here.
 */
import type { Attribute, Body, Bundle, Rval, Span } from "../ast.js";
import type { Severity } from "../diagnostics.js";
import { getPromiseType } from "../syntax/index.js";
import type { AttributeSyntax } from "../syntax/types.js";
import type { ValidationContext } from "./context.js";
import { hasVariable } from "./context.js";
import {
  findAnyBundle,
  findBody,
  findCalledBundle,
  getReferencedName,
  isVariableDefined,
} from "./references.js";
import { getScalarText, isScalar } from "./values.js";

/** Checks body references of every promise; `severity` is error when the policy is runnable. */
export function checkPromiseBodyReferences(ctx: ValidationContext, severity: Severity): void {
  for (const { node: bundle, file } of ctx.index.bundles) {
    for (const section of bundle.sections) {
      const syntax = getPromiseType(bundle.type.text, section.type.text);
      if (!syntax) continue;
      for (const group of section.groups) {
        for (const promise of group.promises) {
          for (const attribute of promise.attributes) {
            const attributeSyntax = syntax.attributes[attribute.name.text];
            if (attributeSyntax?.type === "body")
              checkBodyReference(attribute, attributeSyntax, file, severity, ctx);
            if (attributeSyntax?.type === "bundle") checkBundleReference(attribute, bundle, file, ctx);
          }
        }
      }
    }
  }
}

function checkBodyReference(
  attribute: Attribute,
  syntax: AttributeSyntax,
  file: string,
  severity: Severity,
  ctx: ValidationContext,
): void {
  const bodyType = syntax.bodyType ?? attribute.name.text;
  const reference = getReferencedName(attribute.value);
  if (reference === null) return;
  const found = findBody(ctx.index, bodyType, reference);
  if (!found) {
    // Worded as cf-promises words it (scripts look for "Undefined body NAME"), then the fix.
    const message = `Undefined body ${reference} with type ${attribute.name.text}; define 'body ${bodyType} ${reference}' or fix the name`;
    ctx.report(
      hasVariable(reference) ? "warning" : severity,
      "undefined-body",
      message,
      attribute.value.span,
      file,
    );
    return;
  }
  // Quoted names of the promise type's own body attributes are already errors.
  if (attribute.value.kind === "string" && syntax.visibility !== "promiseType") {
    ctx.report(
      "warning",
      "quoted-body-reference",
      `body names are written without quotes: ${attribute.name.text} => ${reference}`,
      attribute.value.span,
      file,
    );
  }
  checkBodyArguments(attribute.value, found.node, file, ctx);
}

function checkBodyArguments(value: Rval, body: Body, file: string, ctx: ValidationContext): void {
  const given = value.kind === "call" ? value.args.length : 0;
  const expected = body.params?.length ?? 0;
  if (given === expected) return;
  const params = body.params?.map((p) => p.text).join(", ") ?? "";
  const message = `body ${body.type.text} '${body.name.text}' takes ${expected} argument${expected === 1 ? "" : "s"} (${params}), but ${given} ${given === 1 ? "is" : "are"} given`;
  ctx.report("warning", "wrong-argument-count", message, value.span, file);
}

function checkBundleReference(
  attribute: Attribute,
  bundle: Bundle,
  file: string,
  ctx: ValidationContext,
): void {
  const value = attribute.value;
  if (value.kind !== "call" && !(isScalar(value) && value.kind !== "nakedvar")) return;
  const reference = value.kind === "call" ? value.name : getScalarText(value);
  if (hasVariable(reference)) return;
  if (findCalledBundle(ctx.index, reference, bundle.namespace)) return;
  if (attribute.name.text !== "usebundle") {
    if (findAnyBundle(ctx.index, reference)) return;
  }
  const message = `there is no agent or common bundle '${reference}' in namespace '${bundle.namespace}'; cf-agent will fail to call it`;
  ctx.report("warning", "undefined-bundle", message, value.span, file);
}

/** Checks `inherit_from` of bodies (cf-promises does not; cf-agent fails on it). */
export function checkInheritance(ctx: ValidationContext): void {
  for (const { node: body, file } of ctx.index.bodies) {
    for (const group of body.groups) {
      for (const attribute of group.attributes) {
        if (attribute.name.text !== "inherit_from") continue;
        const reference = getReferencedName(attribute.value);
        if (reference === null || hasVariable(reference) || findBody(ctx.index, body.type.text, reference))
          continue;
        const message = `'inherit_from' names body ${body.type.text} '${reference}', which is not defined`;
        ctx.report("warning", "undefined-body", message, attribute.value.span, file);
      }
    }
  }
}

/** With a full check, every bundle in the bundlesequence (or `main`) must exist. */
export function checkBundleSequence(ctx: ValidationContext): void {
  const control = ctx.index.bodies.find(
    (b) => b.node.type.text === "common" && b.node.name.text === "control",
  );
  const entries =
    control?.node.groups.flatMap((g) =>
      g.attributes.filter((a) => a.name.text === "bundlesequence").map((a) => ({ a, g })),
    ) ?? [];
  if (entries.some(({ g }) => g.guard !== null && g.guard.expression !== "any")) return;
  if (entries.some(({ a }) => a.name.text === "ignore_missing_bundles")) return;
  if (control && hasIgnoreMissingBundles(control.node)) return;
  const last = entries.at(-1)?.a;
  if (!last) {
    if (!findAnyBundle(ctx.index, "main")) reportMissingMain(ctx);
    return;
  }
  const items = last.value.kind === "list" ? last.value.items : [last.value];
  for (const item of items) {
    const name = item.kind === "call" ? item.name : isScalar(item) ? getScalarText(item) : null;
    if (name === null || findAnyBundle(ctx.index, name)) continue;
    if (hasVariable(name)) {
      checkSequenceVariable(name, item.span, control?.file ?? "", ctx);
      continue;
    }
    const message = `bundle '${name}' in the bundlesequence is not defined in the policy`;
    ctx.report("error", "undefined-bundle", message, item.span, control?.file ?? "");
  }
}

/** A bundlesequence entry that is one variable from a bundle that never sets it stays unexpanded. */
function checkSequenceVariable(text: string, span: Span, file: string, ctx: ValidationContext): void {
  const match = /^[$@][({]([^(){}$@]+)[)}]$/.exec(text);
  if (!match || isVariableDefined(ctx.index, match[1])) return;
  const message = `bundlesequence entry '${text}' refers to a variable no vars promise defines, so it stays unexpanded and names no bundle`;
  ctx.report("error", "undefined-bundle", message, span, file);
}

function hasIgnoreMissingBundles(body: Body): boolean {
  return body.groups.some((g) =>
    g.attributes.some(
      (a) =>
        a.name.text === "ignore_missing_bundles" &&
        isScalar(a.value) &&
        ["true", "yes", "on"].includes(getScalarText(a.value)),
    ),
  );
}

function reportMissingMain(ctx: ValidationContext): void {
  const entry = ctx.index.entryFile;
  if (entry === null) return;
  const message =
    "there is no bundlesequence and no bundle named 'main' to run; define 'bundle agent main' or set bundlesequence in 'body common control'";
  ctx.report("error", "undefined-bundle", message, [0, 0], entry);
}
