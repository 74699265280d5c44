/**
 * Checks of `bundle` blocks and their sections: the bundle type, reserved
 * names, and which promise types a bundle type allows.
 */
import type { Bundle, PromiseSection } from "../ast.js";
import { getBundleType, getPromiseType, isBuiltinPromiseType } from "../syntax/index.js";
import { type ValidationContext, listChoices } from "./context.js";
import { formatSuggestion } from "./suggest.js";

/** Bundle types 3.21 accepts; the component types beyond those with promise tables are accepted as-is. */
const ACCEPTED_BUNDLE_TYPES = [
  "common",
  "agent",
  "server",
  "monitor",
  "executor",
  "runagent",
  "keygenerator",
  "hub",
  "knowledge",
  "edit_line",
  "edit_xml",
];

/** Names that are variable scopes of their own and cannot name a bundle. */
const RESERVED_BUNDLE_NAMES: ReadonlySet<string> = new Set(["sys", "const", "mon", "edit", "match", "this"]);

/** Whether 3.21 accepts `bundle TYPE`. */
export function isKnownBundleType(type: string): boolean {
  return ACCEPTED_BUNDLE_TYPES.includes(type) || getBundleType(type) !== undefined;
}

/** Checks the bundle's type and name. */
export function checkBundle(bundle: Bundle, file: string, ctx: ValidationContext): void {
  const type = bundle.type.text;
  if (!isKnownBundleType(type)) {
    const hint = formatSuggestion(type, ACCEPTED_BUNDLE_TYPES);
    const message = `Unknown bundle type '${type}'; expected one of: ${listChoices(ACCEPTED_BUNDLE_TYPES)}.${hint}`;
    ctx.report("error", "unknown-bundle-type", message, bundle.type.span, file);
  }
  if (RESERVED_BUNDLE_NAMES.has(bundle.name.text)) {
    const message = `'${bundle.name.text}' is a reserved variable scope and cannot name a bundle; choose another name`;
    ctx.report("error", "invalid-promise", message, bundle.name.span, file);
  }
}

/**
 * Checks that the section's promise type is allowed in the bundle. Unknown
 * sections are custom promise types; they are an error only when no
 * `promise agent NAME` block in the policy declares them — and cf-promises
 * accepts even that, so it is a warning.
 */
export function checkSection(
  section: PromiseSection,
  bundle: Bundle,
  file: string,
  ctx: ValidationContext,
): void {
  const typeName = section.type.text;
  const bundleType = bundle.type.text;
  if (!isKnownBundleType(bundleType)) return;
  const syntax = getPromiseType(bundleType, typeName);
  if (syntax) {
    if (syntax.status !== "normal") reportStatus(section, bundleType, syntax.status, file, ctx);
    return;
  }
  if (isBuiltinPromiseType(typeName)) {
    const allowed = getBundleType(bundleType)?.promiseTypes ?? [];
    const message = `promise type '${typeName}' is not allowed in a ${bundleType} bundle; a ${bundleType} bundle takes: ${listChoices(allowed, 30)}`;
    ctx.report("error", "unknown-promise-type", message, section.type.span, file);
    return;
  }
  if (!ctx.index.customPromiseTypes.has(typeName)) reportUndeclaredCustomType(section, bundleType, file, ctx);
}

function reportStatus(
  section: PromiseSection,
  bundleType: string,
  status: string,
  file: string,
  ctx: ValidationContext,
): void {
  const what = status === "removed" ? "has been removed and its promises are ignored" : "is deprecated";
  ctx.report(
    "warning",
    "deprecated",
    `promise type '${section.type.text}' ${what} in ${bundleType} bundles`,
    section.type.span,
    file,
  );
}

function reportUndeclaredCustomType(
  section: PromiseSection,
  bundleType: string,
  file: string,
  ctx: ValidationContext,
): void {
  const typeName = section.type.text;
  const allowed = getBundleType(bundleType)?.promiseTypes ?? [];
  const hint = formatSuggestion(typeName, allowed);
  const message =
    `promise type '${typeName}' is neither built in for ${bundleType} bundles nor declared by a 'promise agent ${typeName}' block; ` +
    `cf-agent will fail to run these promises.${hint}`;
  ctx.report("warning", "undefined-promise-type", message, section.type.span, file);
}
